// kseries never changes the user's branch, index or working tree: not on success, not on failure, not when killed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { KernelTree } from '../../src/tree/tree.js';
import { snapshot, type Snapshot } from '../helpers/snapshot.js';
import { cli, FIXTURE_RECIPES, git, REPO_ROOT, userTree } from '../helpers/tree.js';

let tree: KernelTree;
let out: string;
let before: Snapshot;
const WATCHED = ['mm/memcontrol.c', 'lib/bcd.c', 'notes-of-the-user.txt'];
const run = (...args: string[]) => cli(['--tree', tree.root, '--recipes', FIXTURE_RECIPES, ...args]);
const kseriesBranches = (series: string) => git(tree.root, 'branch', '--list', `kseries/${series}/*`).trim();

beforeAll(async () => {
  tree = await userTree();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-iso-'));
  // The user is mid-work: on their own branch, with a change staged, a change unstaged and a file untracked.
  git(tree.root, 'checkout', '-q', '-b', 'user-work');
  fs.appendFileSync(path.join(tree.root, 'mm/memcontrol.c'), '\n/* unstaged work of the user */\n');
  fs.appendFileSync(path.join(tree.root, 'lib/bcd.c'), '\n/* staged work of the user */\n');
  git(tree.root, 'add', 'lib/bcd.c');
  fs.writeFileSync(path.join(tree.root, 'notes-of-the-user.txt'), 'do not lose me\n');
  before = snapshot(tree.root, WATCHED);
});

afterAll(() => {
  git(tree.root, 'reset', '-q', '--hard');
  fs.rmSync(path.join(tree.root, 'notes-of-the-user.txt'), { force: true });
  git(tree.root, 'checkout', '-q', '-');
  git(tree.root, 'branch', '-q', '-D', 'user-work');
  fs.rmSync(out, { recursive: true, force: true });
});

test('a full run (generate, emit, send --dry-run) leaves the checkout as it was', async () => {
  const g = await run('generate', 'static-key', '--set', 'file=mm/memcontrol.c', '--set', 'flag=cgroup_memory_nosocket', '--no-build', '--json');
  expect(g.code).toBe(0);
  // The series is made from the committed HEAD, not from the user's unstaged edit.
  const { branch, base } = JSON.parse(g.out);
  expect(base).toBe(before.head);
  expect(git(tree.root, 'show', `${branch}:mm/memcontrol.c`)).not.toContain('unstaged work of the user');
  expect((await run('emit', 'static-key-cgroup_memory_nosocket', '--out', out)).code).toBe(0);
  expect((await run('send', 'static-key-cgroup_memory_nosocket', '--out', out)).code).toBe(0);
  expect(snapshot(tree.root, WATCHED)).toEqual(before);
});

test('a run that fails midway leaves the checkout as it was and no series branch', async () => {
  const r = await run('generate', 'broken-diff');
  expect(r.code).toBe(2);
  expect(r.err.split('\n')).toHaveLength(2);
  expect(kseriesBranches('broken-diff')).toBe('');
  expect(snapshot(tree.root, WATCHED)).toEqual(before);
});

test('a run killed while it commits leaves the checkout as it was, and the next run completes', async () => {
  const lock = path.join(tree.gitCommonDir, 'kseries', 'lock');
  const child = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'bin', 'kseries.js'), '--tree', tree.root, '--recipes', FIXTURE_RECIPES, 'generate', 'bcd-cleanup', '--set', 'suffix=-killed'],
    { stdio: 'ignore' },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let killed = false;
  for (let i = 0; i < 3000 && child.exitCode === null; i++) {
    if (fs.existsSync(lock)) {
      killed = child.kill('SIGKILL');
      break;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  await exited;
  expect(killed).toBe(true);
  // Killed while holding the lock: no branch, or (had it just finished) a whole one; never a partial series.
  const branches = kseriesBranches('bcd-cleanup-killed');
  if (branches) expect(git(tree.root, 'rev-list', '--count', 'master..kseries/bcd-cleanup-killed/v1').trim()).toBe('3');
  expect(snapshot(tree.root, WATCHED)).toEqual(before);
  // The stale lock of the dead run is taken over and its leftovers in the worktree are discarded.
  const again = await run('generate', 'bcd-cleanup', '--set', 'suffix=-killed', '--json');
  expect(again.err).toBe('');
  expect(again.code).toBe(0);
  expect(JSON.parse(again.out).commits).toHaveLength(3);
  expect(snapshot(tree.root, WATCHED)).toEqual(before);
});
