// Paths: where kseries keeps things outside the user's tree (the provisioned-tree cache), and which paths may name a
// file inside a tree (recipe parameters, files a patch touches).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ParamError } from '../errors.js';

export const KERNEL_SERIES = '6.12';

/** `$KSERIES_CACHE`, else `$XDG_CACHE_HOME/kseries`, else `~/.cache/kseries`. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.KSERIES_CACHE) return path.resolve(env.KSERIES_CACHE);
  const xdg = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(xdg, 'kseries');
}

/** Debian's kernel source tarball; `$KSERIES_LINUX_TARBALL` names another copy. */
export function debianTarball(env: NodeJS.ProcessEnv = process.env): string {
  return env.KSERIES_LINUX_TARBALL || `/usr/src/linux-source-${KERNEL_SERIES}.tar.xz`;
}

/** A relative path that stays inside the tree, normalised; anything else is refused. */
export function checkTreePath(raw: string, what: string): string {
  const norm = path.posix.normalize(raw.replace(/\\/g, '/'));
  if (raw === '' || path.posix.isAbsolute(norm) || norm === '..' || norm.startsWith('../') || norm.includes('\0') || norm === '.') {
    throw new ParamError(`${what}: ${JSON.stringify(raw)} is not a path inside the kernel tree`, 'give a path relative to the tree top, e.g. kernel/sched/core.c');
  }
  if (norm.split('/').includes('.git')) {
    throw new ParamError(`${what}: ${JSON.stringify(raw)} points into .git`, 'give a path of a source file');
  }
  return norm.replace(/\/$/, '');
}

/**
 * A tree-relative path (already through checkTreePath) whose existing part leads through no symlink out of `root`:
 * a patch may not write through `drivers/foo -> /etc`.
 */
export function checkNoSymlinkOut(root: string, rel: string, what: string): void {
  const top = fs.realpathSync(root);
  let at = top;
  for (const part of rel.split('/')) {
    at = path.join(at, part);
    let real: string;
    try {
      real = fs.realpathSync(at);
    } catch {
      return; // does not exist (yet): nothing beyond it can be a link
    }
    if (real !== top && !real.startsWith(`${top}/`)) {
      throw new ParamError(`${what}: ${JSON.stringify(rel)} leads through a symlink out of the tree (to ${real})`, 'a patch may only touch files inside the tree');
    }
    at = real;
  }
}
