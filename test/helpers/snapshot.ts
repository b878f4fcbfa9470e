// Everything of a user's checkout that kseries must never change: HEAD, their refs, index, working files.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { git } from './tree.js';

export interface Snapshot {
  head: string;
  symbolicHead: string;
  refs: string;
  index: string;
  status: string;
  diff: string;
  staged: string;
  files: Record<string, string>;
}

const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** `files`: working-tree files (tracked or not) whose bytes must stay the same. */
export function snapshot(root: string, files: string[]): Snapshot {
  return {
    head: git(root, 'rev-parse', 'HEAD').trim(),
    symbolicHead: git(root, 'symbolic-ref', '-q', 'HEAD').trim(),
    refs: git(root, 'for-each-ref', '--format=%(refname) %(objectname)')
      .split('\n')
      .filter((l) => !l.startsWith('refs/heads/kseries/'))
      .join('\n'),
    index: sha(fs.readFileSync(path.join(root, '.git', 'index'))),
    // Read-only looks: a plain `git status` would refresh a stat-dirty index and change what the next snapshot reads.
    status: git(root, '--no-optional-locks', 'status', '--porcelain=v2', '--untracked-files=all', '--ignored=no'),
    diff: sha(git(root, '--no-optional-locks', 'diff')),
    staged: sha(git(root, '--no-optional-locks', 'diff', '--cached')),
    files: Object.fromEntries(files.map((f) => [f, sha(fs.readFileSync(path.join(root, f)))])),
  };
}
