// The shared source folder boot kernels are built from: it follows any clone's commit, rewriting only what differs, so
// a build directory that follows it stays incremental across clones.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { sourceAt } from '../../src/tree/worktree.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-source-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@kernel.org', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@kernel.org' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();

test('a commit of one clone, then another commit of a second clone: changed files rewritten, the rest untouched', async () => {
  const repo = path.join(root, 'repo');
  fs.mkdirSync(path.join(repo, 'kernel'), { recursive: true });
  git(repo, 'init', '-q');
  fs.writeFileSync(path.join(repo, 'kernel/a.c'), 'int a;\n');
  fs.writeFileSync(path.join(repo, 'kernel/b.c'), 'int b;\n');
  fs.writeFileSync(path.join(repo, 'Makefile'), 'obj-y += kernel/\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'one');
  const one = git(repo, 'rev-parse', 'HEAD');
  fs.writeFileSync(path.join(repo, 'kernel/b.c'), 'int b = 1;\n');
  fs.rmSync(path.join(repo, 'kernel/a.c'));
  git(repo, 'commit', '-qam', 'two');
  const two = git(repo, 'rev-parse', 'HEAD');
  const clone = path.join(root, 'clone');
  git(root, 'clone', '-q', '--shared', repo, clone);
  const cache = { KSERIES_CACHE: path.join(root, 'cache') };

  const tree = (top: string) => ({ root: top, gitCommonDir: path.join(top, '.git'), version: '6.12.0' });
  const dir = await sourceAt(tree(repo), one, 'boot', cache);
  expect(fs.readFileSync(path.join(dir, 'kernel/a.c'), 'utf8')).toBe('int a;\n');
  const mtime = (f: string) => fs.statSync(path.join(dir, f)).mtimeMs;
  const before = { makefile: mtime('Makefile'), b: mtime('kernel/b.c') };
  await new Promise((r) => setTimeout(r, 1100));

  expect(await sourceAt(tree(clone), two, 'boot', cache)).toBe(dir);
  expect(fs.existsSync(path.join(dir, 'kernel/a.c'))).toBe(false);
  expect(fs.readFileSync(path.join(dir, 'kernel/b.c'), 'utf8')).toBe('int b = 1;\n');
  expect(mtime('kernel/b.c')).toBeGreaterThan(before.b);
  expect(mtime('Makefile')).toBe(before.makefile);
  // The clones themselves are untouched: no checkout, no index change.
  expect(git(clone, 'status', '--porcelain')).toBe('');
});
