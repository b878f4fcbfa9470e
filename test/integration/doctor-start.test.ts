// doctor on this machine, doctor with a program missing, and `kseries start` (npm start) end to end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import type { CheckReport } from '../../src/check/report.js';
import { DEMO_FLAGS } from '../../src/commands/start.js';
import { runCheckpatch } from '../../src/tools/kernel-scripts.js';
import { cli, git, userTree, withOnlyGit } from '../helpers/tree.js';

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-start-'));
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }));

test('doctor finds everything kseries needs on this machine', async () => {
  const tree = await userTree();
  const r = await cli(['--tree', tree.root, 'doctor']);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  expect(r.out).not.toContain('MISSING');
  expect(r.out).toContain('ok      git send-email');
  expect(r.out).toContain(`ok      kernel tree: Linux ${tree.version}`);
});

test('doctor names the Debian package of each missing program', () =>
  withOnlyGit(async (env) => {
    const r = await cli(['--tree', '/nonexistent', 'doctor', '--json'], { env });
    expect(r.code).toBe(2);
    const j = JSON.parse(r.out);
    expect(j.missingPackages).toEqual(expect.arrayContaining(['perl', 'make', 'gcc', 'binutils', 'flex', 'bison', 'bc']));
    expect(j.missingPackages).not.toContain('git');
    expect(j.tree.ok).toBe(false);
  }));

test('start converts the demo flags with static-keys: generated, built, proven, checkpatch-clean, emitted', async () => {
  const tree = await userTree();
  const r = await cli(['--tree', tree.root, 'start'], { cwd });
  expect(r.code, r.err).toBe(0);
  const dir = path.join(cwd, 'out', 'static-keys', 'v1');
  const report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8')) as CheckReport;
  expect(report.verdict).toBe('clean');
  const proofs = report.patches.flatMap((p) => p.proofs);
  expect(proofs.map((p) => p.claim.split(' ')[0]).sort()).toEqual([...DEMO_FLAGS].sort());
  expect(proofs.every((p) => p.ok)).toBe(true);
  const patches = fs.readdirSync(dir).filter((f) => /^000[1-9].*\.patch$/.test(f));
  expect(patches).toHaveLength(5); // one per maintainer group: the two memcg flags share a patch
  for (const f of patches) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    expect((await runCheckpatch(tree.root, text, { strict: true })).findings).toEqual([]);
    expect(text).toMatch(/in all: \d+ tests?, \d+ insns\/\d+ bytes -> \d+ jump labels?, \d+ insns?\/\d+ bytes/);
  }
  const cover = fs.readFileSync(path.join(dir, '0000-cover-letter.patch'), 'utf8');
  expect(cover).toContain('mm/memcontrol.c:86 cgroup_memory_nosocket, set by the __setup() handler cgroup_memory()');
  expect(cover).toMatch(/6 object-code proofs hold/);
  expect(cover).toContain('  cgroup_memory_nosocket -> cgroup_memory_nosocket_key:\n    2 tests, 4 insns/22 bytes -> 2 jump labels, 2 insns/4 bytes\n');
  expect(git(tree.root, 'show', 'kseries/static-keys/v1:mm/memcontrol.c')).toContain('static DEFINE_STATIC_KEY_FALSE_RO(cgroup_memory_nosocket_key);');
  expect(r.out).toContain('next:');
  expect(r.out).toContain('kseries send static-keys');
});
