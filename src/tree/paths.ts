// Where kseries keeps things outside the user's tree: the provisioned-tree cache.
import os from 'node:os';
import path from 'node:path';

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
