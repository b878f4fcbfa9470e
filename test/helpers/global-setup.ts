// Once per test run: provision the real tree (cached) and give the integration tests "the user's tree": one clone of
// it, kept in kseries' cache between runs so that the build and KUnit directories kseries keys by that clone's git
// directory are reused (a cold defconfig build and two KUnit kernels cost tens of minutes on 2 cores). Each run starts
// it clean: the branch as cloned, no stray files, and no series or branch that an earlier run generated.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { processAlive } from '../../src/system.js';
import { cacheDir } from '../../src/tree/paths.js';
import { provisionTree } from '../../src/tree/provision.js';
import { forgetSeries } from './series.js';

declare module 'vitest' {
  export interface ProvidedContext {
    cloneRoot: string;
    /** When this run began (ms): the kernel tier's last file holds the build folders used since against the plan. */
    runStarted: number;
  }
}

const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

export default async function setup(project: TestProject): Promise<() => void> {
  const repoRoot = path.resolve(__dirname, '../..');
  const { tree } = await provisionTree({ cwd: repoRoot, log: (l) => console.error(`[tree] ${l}`) });
  const dir = path.join(cacheDir(), 'test-clone');
  // One run at a time: a second run would reset the clone under the first one's feet.
  const lock = `${dir}.lock`;
  const holder = fs.existsSync(lock) ? Number(fs.readFileSync(lock, 'utf8')) : 0;
  if (holder && holder !== process.pid && processAlive(holder)) throw new Error(`another test run (pid ${holder}) is using ${dir}; wait for it to end`);
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  fs.writeFileSync(lock, String(process.pid));
  const fresh = !fs.existsSync(path.join(dir, '.git'));
  if (fresh) {
    fs.rmSync(dir, { recursive: true, force: true });
    git(tree.root, 'clone', '-q', '--shared', tree.root, dir);
  }
  const root = fs.realpathSync(dir);
  if (!fresh) resetClone(root);
  project.provide('cloneRoot', root);
  project.provide('runStarted', Date.now());
  return () => fs.rmSync(lock, { force: true });
}

/** The clone as `git clone` left it: its branch at origin's, no other branch, no stray file, no generated series. */
function resetClone(root: string): void {
  git(root, 'fetch', '-q', 'origin');
  const branch = git(root, 'rev-parse', '--abbrev-ref', 'origin/HEAD').trim().replace(/^origin\//, '');
  for (const wt of git(root, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).slice(1)) {
    const p = wt.slice('worktree '.length);
    // kseries' own worktree lives on (it resets itself); worktrees tests made elsewhere go.
    if (!p.startsWith(path.join(root, '.git'))) fs.rmSync(p, { recursive: true, force: true });
  }
  git(root, 'worktree', 'prune');
  git(root, 'checkout', '-q', '-f', '-B', branch, `origin/${branch}`);
  git(root, 'clean', '-q', '-fdx');
  for (const b of git(root, 'for-each-ref', '--format=%(refname:short)', 'refs/heads').split('\n').filter(Boolean)) {
    if (b !== branch) git(root, 'branch', '-q', '-D', b);
  }
  forgetSeries(root);
}
