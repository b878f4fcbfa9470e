// The shared source folder boot kernels are built from: it follows any clone's commit, rewriting only what differs, so
// a build directory that follows it stays incremental across clones.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { readAtCommit, readManyAtCommit } from '../../src/tools/git.js';
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

  // The same commit again, by a ref: no pass over the files (a file someone broke stays broken, which shows it).
  fs.writeFileSync(path.join(dir, 'kernel/b.c'), 'broken\n');
  git(repo, 'tag', 'two', two);
  await sourceAt(tree(repo), 'two', 'boot', cache);
  expect(fs.readFileSync(path.join(dir, 'kernel/b.c'), 'utf8')).toBe('broken\n');
  // An interrupted checkout leaves no record of the commit, so the next one writes every file it must.
  fs.rmSync(`${dir}.commit`);
  await sourceAt(tree(repo), two, 'boot', cache);
  expect(fs.readFileSync(path.join(dir, 'kernel/b.c'), 'utf8')).toBe('int b = 1;\n');
});

test('files at a commit, read through one git cat-file: texts, missing files, folders, many at once', async () => {
  const repo = path.join(root, 'blobs');
  fs.mkdirSync(path.join(repo, 'lib'), { recursive: true });
  const big = 'x'.repeat(300_000) + '\n';
  fs.writeFileSync(path.join(repo, 'lib/big.c'), big);
  fs.writeFileSync(path.join(repo, 'lib/Makefile'), 'obj-y += big.o\n');
  fs.writeFileSync(path.join(repo, 'empty'), '');
  git(repo, 'init', '-q');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'one');
  expect(await readAtCommit(repo, 'HEAD', 'lib/Makefile')).toBe('obj-y += big.o\n');
  expect(await readAtCommit(repo, 'HEAD', 'empty')).toBe('');
  expect(await readAtCommit(repo, 'HEAD', 'lib/none.c')).toBeUndefined();
  expect(await readAtCommit(repo, 'HEAD', 'lib')).toBeUndefined();
  expect(await readAtCommit(repo, 'nosuchref', 'lib/Makefile')).toBeUndefined();
  const files = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? 'lib/big.c' : i % 3 === 1 ? 'lib/Makefile' : `missing${i}`));
  const many = await readManyAtCommit(repo, 'HEAD', files);
  expect([...many.keys()].sort()).toEqual(['lib/Makefile', 'lib/big.c']);
  expect(many.get('lib/big.c')).toBe(big);
});
