// What kseries check refuses before it builds anything: a machine without the build packages, a --config that is no
// file. The checks that build are test/kernel/check.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { KernelTree } from '../../src/tree/tree.js';
import { runCheckpatch } from '../../src/tools/kernel-scripts.js';
import { cli, FIXTURE_RECIPES, userTree, withOnlyGit } from '../helpers/tree.js';

let tree: KernelTree;
let out: string;
const run = (...args: string[]) => cli(['--tree', tree.root, '--recipes', FIXTURE_RECIPES, ...args]);

beforeAll(async () => {
  tree = await userTree();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-check-'));
  const g = await run('generate', 'new-warning', '--set', 'suffix=-refused');
  expect(g.code, g.err).toBe(0);
});
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

test('missing build packages give one line naming them', () =>
  withOnlyGit(async (env) => {
    const r = await cli(['--tree', tree.root, 'check', 'new-warning-refused', '--out', out], { env });
    expect(r.code).toBe(2);
    expect(r.err.split('\n')).toHaveLength(2);
    expect(r.err).toMatch(/^kseries: kernel builds need Debian packages that are missing: perl make gcc flex bison bc\n/);
  }));

test('a --config that is neither a config target nor a file is refused before anything is built', async () => {
  const bad = await run('check', 'new-warning-refused', '--out', out, '--config', path.join(out, 'missing.config'));
  expect(bad.code).toBe(2);
  expect(bad.err).toMatch(/^kseries: --config .*missing\.config: neither defconfig, allmodconfig nor a file\n/);
});

test('checkpatch reports a patch whose only fault is a missing Signed-off-by', async () => {
  const patch = [
    'From: A U Thor <author@kernel.org>',
    'Subject: [PATCH] docs: fix a typo',
    '',
    'The word is "kernel".',
    '---',
    ' Documentation/process/howto.rst | 2 +-',
    ' 1 file changed, 1 insertion(+), 1 deletion(-)',
    '',
    'diff --git a/Documentation/process/howto.rst b/Documentation/process/howto.rst',
    '--- a/Documentation/process/howto.rst',
    '+++ b/Documentation/process/howto.rst',
    '@@ -1,1 +1,1 @@',
    `-${firstLine('Documentation/process/howto.rst')}`,
    `+${firstLine('Documentation/process/howto.rst')}.`,
    '',
  ].join('\n');
  const r = await runCheckpatch(tree.root, patch);
  expect(r.findings.map((f) => f.type)).toContain('MISSING_SIGN_OFF');
  expect(r.errors).toBeGreaterThan(0);
});

function firstLine(file: string): string {
  return fs.readFileSync(path.join(tree.root, file), 'utf8').split('\n')[0]!;
}
