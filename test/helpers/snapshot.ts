// Everything of a user's checkout that kseries must never change: HEAD, their refs, index, working files.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
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

function onIndexCopy<T>(root: string, fn: (env: NodeJS.ProcessEnv) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'snapshot-index-'));
  try {
    fs.copyFileSync(path.join(root, '.git', 'index'), path.join(dir, 'index'));
    return fn({ ...process.env, GIT_INDEX_FILE: path.join(dir, 'index') });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function gitEnv(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

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
    // On a copy of the index: `git status` and `git diff` refresh a stat-dirty index and write it back (git 2.39,
    // --no-optional-locks or not), which would change what the next snapshot reads.
    ...onIndexCopy(root, (env) => ({
      status: gitEnv(root, env, 'status', '--porcelain=v2', '--untracked-files=all', '--ignored=no'),
      diff: sha(gitEnv(root, env, 'diff')),
      staged: sha(gitEnv(root, env, 'diff', '--cached')),
    })),
    files: Object.fromEntries(files.map((f) => [f, sha(fs.readFileSync(path.join(root, f)))])),
  };
}
