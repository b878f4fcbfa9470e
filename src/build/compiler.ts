// Which program compiles a kernel's objects: gcc, or gcc through ccache, distcc or both, with what they need.
import fs from 'node:fs';
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
 * (`<cache>/ccache-direct`) unless CCACHE_DIR says where: an object compiled from the same text again (a base
 * compiled for the draft and again for the check, a file a series does not change) is read from it, whatever its
 * file's mtime.
 *
 * `depend` (kseries' own builds) runs ccache in its depend mode (CCACHE_DEPEND), which hashes the files the compiler's
 * dependency file names instead of running the preprocessor once more: an uncached kernel object costs a third more
 * time through ccache's default mode (mm/ and kernel/sched/ of the boot kernel, 2 cores: 39 s with gcc alone, 53 s
 * through ccache, 41 s in depend mode), and a cold boot kernel is most of a cold test run. Depend mode does not see an
 * `.incbin`'s file, so an object that includes data the build makes would come back old from the cache: the
 * bootable image's wrapper (arch/x86/boot/compressed/piggy.o around the compressed vmlinux; seen: a series booted a
 * kernel built hours before). KernelBuild.buildImage therefore builds vmlinux through ccache and the image around it
 * without (CCACHE_DISABLE); the other .incbin objects of vmlinux wrap data made from the configuration and sources
 * their dependency files name (realmode.bin, config_data.gz, the initramfs list). kunit.py's builds, which make the
 * image in the same run, keep the default mode. A user's CCACHE_DEPEND or CCACHE_NODEPEND is passed on as given.
 */
/**
 * kseries' ccache folder in its cache. `ccache`, the one before, was filled in depend mode with image wrappers among
 * its entries (old piggy.o objects), which any mode would hand back: it is removed (retireDependCache).
 */
export const CCACHE_FOLDER = 'ccache-direct';

/**
 * Remove the ccache folder an older kseries filled in depend mode (see CCACHE_FOLDER), and with it the image wrappers
 * its builds may hold (`piggy.o` and the bzImage around it), so that the next image is wrapped around its own kernel.
 */
export function retireDependCache(env: NodeJS.ProcessEnv): void {
  const old = path.join(cacheDir(env), 'ccache');
  if (!fs.existsSync(old)) return;
  const builds = path.join(cacheDir(env), 'build');
  for (const owner of fs.existsSync(builds) ? fs.readdirSync(builds) : []) {
    const dir = path.join(builds, owner);
    if (!fs.statSync(dir).isDirectory()) continue;
    // build/shared also holds files beside the build directories (a KUnit kernel's results, its kunitconfig).
    for (const config of fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory())) {
      for (const f of ['arch/x86/boot/compressed/piggy.o', 'arch/x86/boot/bzImage']) fs.rmSync(path.join(dir, config.name, f), { force: true });
    }
  }
  fs.rmSync(old, { recursive: true, force: true });
}

export function compilerPath(use: { ccache: boolean; distcc: boolean; depend?: boolean }, env: NodeJS.ProcessEnv): CompilerPath {
  if (!use.ccache && !use.distcc) return { name: 'gcc' };
  const settings = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => /^(DISTCC|CCACHE)_/.test(e[0]) && e[1] !== undefined));
  if (use.ccache) {
    settings.CCACHE_DIR ??= path.join(cacheDir(env), CCACHE_FOLDER);
    if (use.depend && settings.CCACHE_DEPEND === undefined && settings.CCACHE_NODEPEND === undefined) settings.CCACHE_DEPEND = '1';
  }
  if (!use.distcc) return { cc: 'ccache gcc', env: settings, name: 'ccache gcc' };
  if (!use.ccache) return { cc: 'distcc gcc', env: settings, name: 'distcc gcc' };
  return { cc: 'ccache gcc', env: { ...settings, CCACHE_PREFIX: 'distcc' }, name: 'ccache + distcc gcc' };
}
