// Finding and describing the kernel tree kseries works on.
import fs from 'node:fs';
import path from 'node:path';
import { TreeError } from '../errors.js';
import { gitRun } from '../tools/git.js';

export interface KernelTree {
  /** Top of the tree (the user's checkout or the provisioned one): read, never written. */
  root: string;
  /** The git directory shared by all its worktrees. */
  gitCommonDir: string;
  /** e.g. "6.12.117", from the top Makefile. */
  version: string;
}

export interface TreeOptions {
  tree?: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

/** `--tree DIR`, else `$KSERIES_TREE`, else `kernel-tree/` in the current directory. */
export function treeLocation(opts: TreeOptions): { dir: string; from: string } {
  const env = opts.env ?? process.env;
  if (opts.tree) return { dir: path.resolve(opts.cwd, opts.tree), from: '--tree' };
  if (env.KSERIES_TREE) return { dir: path.resolve(opts.cwd, env.KSERIES_TREE), from: 'KSERIES_TREE' };
  return { dir: path.resolve(opts.cwd, 'kernel-tree'), from: 'the default kernel-tree/' };
}

export async function openTree(opts: TreeOptions): Promise<KernelTree> {
  const { dir, from } = treeLocation(opts);
  if (!fs.existsSync(dir)) {
    throw new TreeError(
      `no kernel tree at ${dir} (${from})`,
      'run `kseries tree init` to provision one, or pass --tree DIR / set KSERIES_TREE to a Linux git tree',
    );
  }
  return describeTree(fs.realpathSync(dir));
}

/** Check that `dir` is the top of a Linux git tree and read its version. */
export async function describeTree(dir: string): Promise<KernelTree> {
  const version = readKernelVersion(dir);
  if (!version || !fs.existsSync(path.join(dir, 'scripts', 'checkpatch.pl'))) {
    throw new TreeError(`${dir} is not the top of a Linux source tree`, 'point --tree at the directory holding MAINTAINERS and Makefile');
  }
  const top = await gitRun(dir, ['rev-parse', '--show-toplevel'], { okCodes: [0, 128] });
  if (top.code !== 0 || path.resolve(top.stdout.trim()) !== dir) {
    throw new TreeError(
      `${dir} is not the top of a git repository`,
      'kseries works on git trees: run `kseries tree init` to make one from the Debian source, or `git init` your tree',
    );
  }
  const common = await gitRun(dir, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  return { root: dir, gitCommonDir: common.stdout.trim(), version };
}

/** "VERSION.PATCHLEVEL.SUBLEVEL" from the top Makefile, or undefined when it is not a kernel Makefile. */
export function readKernelVersion(dir: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, 'Makefile'), 'utf8').slice(0, 2000);
  } catch {
    return undefined;
  }
  const field = (name: string) => new RegExp(`^${name}\\s*=\\s*(\\S*)`, 'm').exec(text)?.[1];
  const [v, p, s] = [field('VERSION'), field('PATCHLEVEL'), field('SUBLEVEL')];
  if (!v || !p) return undefined;
  return s && s !== '0' ? `${v}.${p}.${s}` : `${v}.${p}`;
}

/**
 * Commits below HEAD that make a history: a tarball's import and a few commits of one's own on it are none.
 * get_maintainer.pl's --git statistics over such a tree Cc the importer and "GitAuthor: you" (seen on Debian's 6.1
 * with one commit on it: "Bad divisor in main::vcs_assign: 0").
 */
const HISTORY_COMMITS = 50;

/** Whether the tree has history for get_maintainer.pl's git statistics (not a shallow clone or an import). */
export async function hasHistory(tree: KernelTree): Promise<boolean> {
  if ((await gitRun(tree.root, ['rev-parse', '--is-shallow-repository'])).stdout.trim() === 'true') return false;
  return Number((await gitRun(tree.root, ['rev-list', '--count', `--max-count=${HISTORY_COMMITS}`, 'HEAD'])).stdout.trim()) >= HISTORY_COMMITS;
}

/** The commit a revision names in the tree, or undefined when it names none. */
export async function commitOf(tree: KernelTree, rev: string): Promise<string | undefined> {
  const r = await gitRun(tree.root, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { okCodes: [0, 1, 128] });
  return r.code === 0 ? r.stdout.trim() : undefined;
}
