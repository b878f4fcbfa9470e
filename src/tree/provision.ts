// `kseries tree init`: make kernel-tree/ point at a usable Linux git tree, provisioning one into the cache if needed.
import fs from 'node:fs';
import path from 'node:path';
import { isRoot, processAlive } from '../system.js';
import { TreeError } from '../errors.js';
import { gitRun, gitRunRaw } from '../tools/git.js';
import { run, runRaw } from '../tools/run.js';
import { cacheDir, debianTarball, KERNEL_SERIES } from './paths.js';
import { describeTree, readKernelVersion, treeLocation, type KernelTree } from './tree.js';

export interface ProvisionOptions {
  cwd: string;
  tree?: string;
  /** An existing Linux git tree of the user's, used in place (never written). */
  from?: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

export interface Provisioned {
  tree: KernelTree;
  how: 'existing' | 'user-tree' | 'cache' | 'debian-tarball' | 'clone';
  link?: string;
}

const STABLE_GIT = 'https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git';

/** The identity and date of the base commit kseries makes, so the same tarball always gives the same commit. */
const BASE_IDENTITY = {
  GIT_AUTHOR_NAME: 'kseries',
  GIT_AUTHOR_EMAIL: 'kseries@localhost',
  GIT_COMMITTER_NAME: 'kseries',
  GIT_COMMITTER_EMAIL: 'kseries@localhost',
};

export async function provisionTree(opts: ProvisionOptions): Promise<Provisioned> {
  const log = opts.log ?? (() => {});
  const env = opts.env ?? process.env;
  const { dir, from } = treeLocation(opts);

  if (opts.from) {
    const tree = await describeTree(fs.realpathSync(path.resolve(opts.cwd, opts.from)));
    linkTree(dir, tree.root);
    return { tree, how: 'user-tree', link: dir };
  }
  if (fs.existsSync(dir)) return { tree: await describeTree(fs.realpathSync(dir)), how: 'existing' };
  if (from !== 'the default kernel-tree/') {
    throw new TreeError(`no kernel tree at ${dir} (${from})`, 'create it, or unset it to let kseries provision kernel-tree/');
  }

  const cache = cacheDir(env);
  const tarball = debianTarball(env);
  const cached = path.join(cache, `linux-${seriesOf(tarball)}`);
  if (fs.existsSync(cached)) {
    const tree = await describeTree(cached);
    linkTree(dir, cached);
    return { tree, how: 'cache', link: dir };
  }
  fs.mkdirSync(cache, { recursive: true });
  removeStaleWork(cache);

  if (!fs.existsSync(tarball) && isRoot() && !env.KSERIES_LINUX_TARBALL) {
    log(`installing linux-source-${KERNEL_SERIES} with apt-get`);
    await runRaw('apt-get', ['install', '-y', '-q', `linux-source-${KERNEL_SERIES}`], {
      cwd: cache,
      env: { DEBIAN_FRONTEND: 'noninteractive' },
    }).catch(() => undefined);
  }
  if (fs.existsSync(tarball)) {
    log(`unpacking ${tarball} into ${cached}`);
    await buildFromTarball(tarball, cached, log);
    const tree = await describeTree(cached);
    linkTree(dir, cached);
    return { tree, how: 'debian-tarball', link: dir };
  }

  if (env.KSERIES_OFFLINE !== '1') {
    log(`cloning ${STABLE_GIT} (depth 1)`);
    if (await cloneStable(cached)) {
      const tree = await describeTree(cached);
      linkTree(dir, cached);
      return { tree, how: 'clone', link: dir };
    }
  }
  throw new TreeError(
    `no Linux ${KERNEL_SERIES} tree could be provisioned`,
    `run \`sudo apt-get install linux-source-${KERNEL_SERIES}\` then \`kseries tree init\`, or \`kseries tree init --from /path/to/linux\``,
  );
}

/** Unpack the Debian tarball into a git repo with one base commit and a `v<version>` tag; atomic by rename. */
async function buildFromTarball(tarball: string, dest: string, log: (line: string) => void): Promise<void> {
  const work = `${dest}.work-${process.pid}`;
  fs.mkdirSync(work, { recursive: true });
  await run('tar', ['-xJf', tarball, '-C', work, '--strip-components=1'], { cwd: work });
  dropDebianIgnoreBlock(path.join(work, '.gitignore'));
  const version = readKernelVersion(work);
  if (!version) throw new TreeError(`${tarball} does not hold a kernel tree`, `reinstall linux-source-${KERNEL_SERIES}`);
  log(`committing the ${version} tree as the base commit`);
  const date = fs.statSync(tarball).mtime.toISOString();
  const env = { ...BASE_IDENTITY, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
  const git = (args: string[]) => gitRun(work, args, { env });
  await git(['init', '-q', '-b', 'master']);
  // Every blob goes straight into one pack at zlib's fastest level (git's "bulk checkin" of big files, with every
  // file counted big): 91k loose objects would make the first scans slow and set off a background `git gc` of about
  // 90 s that competes with them; the pack is 334 MB where gc's is 263 MB, and `git grep` reads it faster.
  await git(['-c', 'core.bigFileThreshold=1', '-c', 'core.compression=1', 'add', '-A']);
  // Named after the package the tarball is from (linux-source-6.1 given as KSERIES_LINUX_TARBALL is not 6.12's).
  await git(['commit', '-q', '--no-verify', '-m', `Linux ${version} (Debian linux-source-${seriesOf(tarball)})`]);
  await git(['tag', `v${version}`]);
  await git(['repack', '-d', '-q']);
  fs.renameSync(work, dest);
}

/** The series a Debian tarball holds, from its name (linux-source-6.1 given as KSERIES_LINUX_TARBALL is not 6.12). */
function seriesOf(tarball: string): string {
  return /linux-source-(\d+\.\d+)\.tar/.exec(path.basename(tarball))?.[1] ?? KERNEL_SERIES;
}

/**
 * Debian's tarball ends its .gitignore with a block that ignores everything at the top level (`/*`, `!/debian/`),
 * so a plain `git add` would track nothing. Cut that block off.
 */
export function dropDebianIgnoreBlock(file: string): void {
  if (!fs.existsSync(file)) return;
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const star = lines.findIndex((l) => l.trim() === '/*');
  if (star < 0) return;
  let start = star;
  while (start > 0 && lines[start - 1]!.startsWith('#')) start--;
  fs.writeFileSync(file, lines.slice(0, start).join('\n').replace(/\n*$/, '\n'));
}

async function cloneStable(dest: string): Promise<boolean> {
  const work = `${dest}.work-${process.pid}`;
  const res = await gitRunRaw(path.dirname(dest), ['clone', '-q', '--depth', '1', '--branch', `v${KERNEL_SERIES}`, STABLE_GIT, work], {
    env: { GIT_TERMINAL_PROMPT: '0' },
  }).catch(() => ({ code: 1 }));
  if (res.code !== 0) {
    fs.rmSync(work, { recursive: true, force: true });
    return false;
  }
  fs.renameSync(work, dest);
  return true;
}

/** kernel-tree/ becomes a symlink to the tree; an existing link is replaced, anything else is left alone. */
function linkTree(link: string, target: string): void {
  if (path.resolve(link) === target) return;
  const st = fs.lstatSync(link, { throwIfNoEntry: false });
  if (st && !st.isSymbolicLink()) {
    throw new TreeError(`${link} exists and is not a link kseries made`, 'move it away, or use it with --tree');
  }
  if (st) fs.unlinkSync(link);
  fs.symlinkSync(target, link);
}

/** Half-made trees of runs that were interrupted. */
function removeStaleWork(cache: string): void {
  for (const name of fs.readdirSync(cache)) {
    const m = /\.work-(\d+)$/.exec(name);
    if (m && !processAlive(Number(m[1]))) fs.rmSync(path.join(cache, name), { recursive: true, force: true });
  }
}
