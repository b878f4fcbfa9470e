// get_maintainer.pl's git statistics are asked for only on a tree with a history: a tarball's import with a commit
// of one's own on it has none (Debian's 6.1 so: "GitAuthor: T" and the importer came out as Cc's).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { hasHistory } from '../../src/tree/tree.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-history-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const env = { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.org', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.org' };
const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trim();

test('an import and a commit on it is no history; fifty commits are', async () => {
  git('init', '-q');
  fs.writeFileSync(path.join(dir, 'Makefile'), 'all:\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'Linux 6.1.192 (Debian linux-source-6.1)');
  git('commit', '-q', '--allow-empty', '-m', 'treewide: use string choice helpers');
  const tree = { root: dir } as Parameters<typeof hasHistory>[0];
  expect(await hasHistory(tree)).toBe(false);
  for (let i = 0; i < 48; i++) git('commit', '-q', '--allow-empty', '-m', `commit ${i}`);
  expect(await hasHistory(tree)).toBe(true);
});
