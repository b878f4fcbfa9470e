// The real kernel tree for the tree and kernel tiers: the provisioned cache, and the clone of it that plays "a user's
// tree" (made once per run by global-setup.ts).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { provisionTree } from '../../src/tree/provision.js';
import { describeTree, type KernelTree } from '../../src/tree/tree.js';
import { REPO_ROOT } from './cli.js';

export { cli, expectOneLineError, FIXTURE_RECIPES, REPO_ROOT, withOnlyGit, type CliRun } from './cli.js';

/** The provisioned Linux 6.12 tree; provisioning failures fail the test (it never skips). */
export async function provisionedTree(): Promise<KernelTree> {
  const p = await provisionTree({ cwd: REPO_ROOT, log: (l) => console.error(`[tree] ${l}`) });
  return p.tree;
}

/**
 * The clone of the provisioned tree made once per run (global-setup.ts): "a user's own checkout". Test files share it
 * and use their own series names; a test that dirties it restores it.
 */
export async function userTree(): Promise<KernelTree> {
  return describeTree(inject('cloneRoot'));
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

/**
 * Chains of the commits `git am` of `mails` (raw messages) makes on `base`: each mail on the first chain it applies
 * to (two new drivers' lines in one Kconfig each apply alone, not one after the other), in a worktree of its own that
 * checks out only the folders they touch, removed after; the commits stay in the repository. Each chain's tip and the
 * indexes of its mails, in order.
 */
export function amChains(root: string, base: string, mails: string[]): { tip: string; mails: number[] }[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-am-'));
  const folders = new Set(mails.flatMap((m) => [...m.matchAll(/^diff --git a\/(\S+) b\//gm)].map((x) => path.posix.dirname(x[1]!))));
  const chains: { tip: string; mails: number[] }[] = [];
  const am = (file: string) => execFileSync('git', ['-c', 'user.name=K Tester', '-c', 'user.email=k@tester.dev', 'am', '-q', file], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
  try {
    git(root, 'worktree', 'add', '-q', '--no-checkout', '--detach', dir, base);
    git(dir, 'sparse-checkout', 'set', ...folders);
    for (const [i, m] of mails.entries()) {
      const file = path.join(dir, '..', `kseries-am-${process.pid}-${i}.eml`);
      fs.writeFileSync(file, m);
      let placed = false;
      for (const chain of [...chains, { tip: base, mails: [] as number[] }]) {
        git(dir, 'checkout', '-q', '--detach', chain.tip);
        try {
          am(file);
        } catch {
          git(dir, 'am', '--abort');
          continue;
        }
        if (!chains.includes(chain)) chains.push(chain);
        chain.tip = git(dir, 'rev-parse', 'HEAD').trim();
        chain.mails.push(i);
        placed = true;
        break;
      }
      fs.rmSync(file, { force: true });
      if (!placed) throw new Error(`mail ${i} applies on no chain, nor on ${base} alone`);
    }
    return chains;
  } finally {
    git(root, 'worktree', 'remove', '--force', dir);
  }
}

/**
 * The tree `git am` of `patches` (mail files) makes on `base`, in a worktree of its own that checks out only the
 * folders the patches touch (a full checkout of 86k files costs seconds; what am makes is the same), removed after.
 */
export function amTree(root: string, base: string, patches: string[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-am-'));
  const folders = new Set(patches.flatMap((p) => [...fs.readFileSync(p, 'utf8').matchAll(/^diff --git a\/(\S+) b\//gm)].map((m) => path.posix.dirname(m[1]!))));
  try {
    git(root, 'worktree', 'add', '-q', '--no-checkout', '--detach', dir, base);
    git(dir, 'sparse-checkout', 'set', ...folders);
    git(dir, 'checkout', '-q', '--detach', base);
    git(dir, 'am', '-q', ...patches);
    return git(dir, 'rev-parse', 'HEAD^{tree}').trim();
  } finally {
    git(root, 'worktree', 'remove', '--force', dir);
  }
}
