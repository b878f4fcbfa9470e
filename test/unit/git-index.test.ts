// kseries never changes the user's index: `git diff` and `git status` in a checkout whose stat data is stale would
// write the index back (git 2.39 does, --no-optional-locks or not); kseries' git runs them on a private copy.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { gitRaw, gitRunRaw, gitTry } from '../../src/tools/git.js';

test('git diff and status in a checkout with stale stat data leave its index as it was', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-index-'));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=A', '-c', 'user.email=a@b.c', ...args], { cwd: root, encoding: 'utf8' });
  git('init', '-q');
  fs.writeFileSync(path.join(root, 'f'), 'a\n');
  git('add', 'f');
  git('commit', '-qm', 'x');
  // The same text, a newer mtime: the index's stat data is stale.
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(path.join(root, 'f'), later, later);
  fs.appendFileSync(path.join(root, 'g'), 'untracked\n');
  const index = () => fs.readFileSync(path.join(root, '.git', 'index'));
  const before = index();
  expect(await gitRaw(root, ['diff', 'HEAD', '--name-only'])).toBe('');
  expect((await gitRunRaw(root, ['diff', '--stat'])).stdout).toBe('');
  expect(await gitTry(root, ['status', '--porcelain'])).toBe('?? g\n');
  expect(index().equals(before)).toBe(true);
  // What kseries avoids: git's own diff rewrites it.
  git('diff');
  expect(index().equals(before)).toBe(false);
  fs.rmSync(root, { recursive: true, force: true });
});
