// kseries' own worktree and lock, kept in the tree's git directory: the user's branch, index and files are never used.
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import { LockedError } from '../errors.js';
import { processAlive } from '../system.js';
import { gitRaw, gitRun, gitTry } from '../tools/git.js';
import { cacheDir } from './paths.js';
import type { KernelTree } from './tree.js';

export function kseriesDir(tree: KernelTree): string {
  return path.join(tree.gitCommonDir, 'kseries');
}

/** The lock files the current async call chain holds: a nested withLock on one of them just runs its work. */
const held = new AsyncLocalStorage<ReadonlySet<string>>();

/**
 * Hold the tree's lock while `work` runs. Re-entrant along one call chain (check inside generate); another chain of
 * this process, or another live process, finds it taken. A lock left by a dead process is taken over.
 */
export function withLock<T>(tree: KernelTree, work: () => Promise<T>): Promise<T> {
  return withLockFile(path.join(kseriesDir(tree), 'lock'), work);
}

/** Hold the lock file `lock` while `work` runs (as withLock; also for kseries' shared folders in its cache). */
export async function withLockFile<T>(lock: string, work: () => Promise<T>): Promise<T> {
  const mine = held.getStore() ?? new Set<string>();
  if (mine.has(lock)) return work();
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw lockedError(lock);
      const holder = Number(fs.readFileSync(lock, 'utf8'));
      if (holder === process.pid || (holder && processAlive(holder))) throw lockedError(lock, holder);
      fs.rmSync(lock, { force: true });
    }
  }
  try {
    return await held.run(new Set([...mine, lock]), work);
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

function lockedError(lock: string, pid?: number): LockedError {
  return new LockedError(`another kseries run${pid ? ` (pid ${pid})` : ''} holds ${lock}`, 'wait for it to finish; remove the file if no kseries is running');
}

/**
 * The worktree kseries commits in, checked out (detached, clean) at `commit`. Whatever an interrupted run left in it
 * is thrown away here: it only ever holds kseries' own uncommitted work. Other names are worktrees kept for one job
 * each (the KUnit builds of a base and of a series), so that a build directory sees only the files that changed.
 */
export async function worktreeAt(tree: KernelTree, commit: string, name = 'worktree'): Promise<string> {
  const dir = path.join(kseriesDir(tree), name);
  const marker = dirtyMarker(tree, name);
  const registered = (await gitRaw(tree.root, ['worktree', 'list', '--porcelain'])).split('\n').includes(`worktree ${dir}`);
  if (!registered || !fs.existsSync(path.join(dir, '.git'))) {
    fs.rmSync(dir, { recursive: true, force: true });
    await gitRaw(tree.root, ['worktree', 'prune']);
    await gitRaw(tree.root, ['worktree', 'add', '--detach', '--force', dir, commit]);
    fs.rmSync(marker, { force: true });
    return dir;
  }
  if (fs.existsSync(marker)) {
    await gitTry(dir, ['am', '--abort']);
    await gitRaw(dir, ['reset', '-q', '--hard']);
    await gitRaw(dir, ['clean', '-q', '-fd']);
    fs.rmSync(marker);
  }
  await gitRaw(dir, ['checkout', '-q', '-f', '--detach', commit]);
  return dir;
}

/**
 * Remove kseries' worktrees of these names, and folders of its cache (relative paths), that an older kseries made and
 * this one no longer uses (they hold a whole tree, or a kernel build, each).
 */
export async function retire(tree: KernelTree, worktrees: string[], cached: string[], env?: NodeJS.ProcessEnv): Promise<void> {
  for (const name of worktrees) {
    const dir = path.join(kseriesDir(tree), name);
    if (!fs.existsSync(dir)) continue;
    fs.rmSync(dir, { recursive: true, force: true });
    await gitRaw(tree.root, ['worktree', 'prune']);
  }
  for (const rel of cached) fs.rmSync(path.join(cacheDir(env), rel), { recursive: true, force: true });
}

/**
 * A plain source folder in kseries' cache holding `commit` of the tree, shared by every tree and clone that has that
 * commit, with its own index (`<slot>.index`): only files that differ from what it held are rewritten, so a build
 * directory that follows it rebuilds only what changed, whichever clone asked. The caller holds sourceLock(slot).
 */
export async function sourceAt(tree: KernelTree, commit: string, slot: string, env?: NodeJS.ProcessEnv): Promise<string> {
  const dir = path.join(cacheDir(env), 'sources', slot);
  fs.mkdirSync(dir, { recursive: true });
  // The commit it holds, written once it holds all of it: the same commit again needs no pass over 80k files.
  const holds = `${dir}.commit`;
  const sha = (await gitRaw(tree.root, ['rev-parse', '--verify', `${commit}^{commit}`])).trim();
  if (fs.existsSync(holds) && fs.readFileSync(holds, 'utf8') === sha) return dir;
  fs.rmSync(holds, { force: true });
  const gitEnv = { GIT_INDEX_FILE: `${dir}.index` };
  await gitRun(tree.root, ['--git-dir', tree.gitCommonDir, '--work-tree', dir, 'read-tree', '--reset', '-u', sha], { env: gitEnv });
  fs.writeFileSync(holds, sha);
  return dir;
}

/** The lock of a shared source folder and the builds that follow it. */
export function sourceLock(slot: string, env?: NodeJS.ProcessEnv): string {
  return path.join(cacheDir(env), 'sources', `${slot}.lock`);
}

/** Present while kseries writes files into a worktree; a run that finds it knows the last one was interrupted. */
function dirtyMarker(tree: KernelTree, name = 'worktree'): string {
  return path.join(kseriesDir(tree), `${name}-dirty`);
}

/** Write into the worktree: marked, so that an interruption is cleaned up (reset and clean) by the next run. */
export async function writingWorktree<T>(tree: KernelTree, work: () => Promise<T>): Promise<T> {
  fs.writeFileSync(dirtyMarker(tree), String(process.pid));
  const result = await work();
  fs.rmSync(dirtyMarker(tree), { force: true });
  return result;
}
