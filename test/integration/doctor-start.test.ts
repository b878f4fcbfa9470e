// doctor on this machine, doctor with a program missing, and `kseries start` (npm start) end to end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
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

test('start generates, checks and emits the built-in static-key series, and says what to run next', async () => {
  const tree = await userTree();
  const r = await cli(['--tree', tree.root, 'start'], { cwd });
  expect(r.code).toBe(0);
  for (const flag of ['cgroup_memory_nosocket', 'cgroup_memory_nobpf']) {
    const dir = path.join(cwd, 'out', `static-key-${flag}`, 'v1');
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.patch'));
    expect(files).toHaveLength(1);
    const text = fs.readFileSync(path.join(dir, files[0]!), 'utf8');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8')).verdict).toBe('clean');
    expect(text).toContain('Checked with kseries: 1 of 1 patches built one by one (x86_64 defconfig, W=1) with no new warnings');
    expect((await runCheckpatch(tree.root, text, { strict: true })).findings).toEqual([]);
    expect(git(tree.root, 'show', `kseries/static-key-${flag}/v1:mm/memcontrol.c`)).toContain(`static DEFINE_STATIC_KEY_FALSE_RO(${flag}_key);`);
  }
  expect(r.out).toContain('next:');
  expect(r.out).toContain('kseries send static-key-cgroup_memory_nosocket');
});
