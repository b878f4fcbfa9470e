// Which program compiles a kernel's objects: gcc, or gcc through ccache, distcc or both, with what they need.
import path from 'node:path';
import { cacheDir } from '../tree/paths.js';

export interface CompilerPath {
  /** CC for make; undefined for make's own gcc. */
  cc?: string;
  /** What the wrappers need in make's environment. */
  env?: Record<string, string>;
  /** Which path compiles, as reports say it. */
  name: string;
}

/**
 * How objects get compiled, given which wrappers are in use. With both, make runs ccache, and ccache hands what it
 * does not have cached to distcc (CCACHE_PREFIX), so the name says both. The DISTCC_* and CCACHE_* settings of the
 * environment kseries was given reach the wrappers through make. ccache keeps its cache with kseries' other caches
 * (`<cache>/ccache`) unless CCACHE_DIR says where: an object compiled from the same text again (a base compiled for
 * the draft and again for the check, a file a series does not change) is read from it, whatever its file's mtime.
 * ccache runs in its depend mode (unless CCACHE_NODEPEND says otherwise): it hashes the headers named in the
 * dependency file kbuild has gcc write (-Wp,-MMD) instead of running the preprocessor before every compile, which
 * costs a kernel object a third more time when it is not cached (mm/ and kernel/sched/ of the boot kernel, 2 cores:
 * 39 s with gcc alone, 53 s through ccache, 41 s through ccache's depend mode; a cached object is read as fast).
 */
export function compilerPath(use: { ccache: boolean; distcc: boolean }, env: NodeJS.ProcessEnv): CompilerPath {
  if (!use.ccache && !use.distcc) return { name: 'gcc' };
  const settings = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => /^(DISTCC|CCACHE)_/.test(e[0]) && e[1] !== undefined));
  if (use.ccache) {
    settings.CCACHE_DIR ??= path.join(cacheDir(env), 'ccache');
    if (settings.CCACHE_NODEPEND === undefined) settings.CCACHE_DEPEND ??= '1';
  }
  if (!use.distcc) return { cc: 'ccache gcc', env: settings, name: 'ccache gcc' };
  if (!use.ccache) return { cc: 'distcc gcc', env: settings, name: 'distcc gcc' };
  return { cc: 'ccache gcc', env: { ...settings, CCACHE_PREFIX: 'distcc' }, name: 'ccache + distcc gcc' };
}
