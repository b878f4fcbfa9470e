// The kernels the kernel tier builds, named in one place. Each is built at most once per run and shared by every test
// that needs it; all live in kseries' cache (~/.cache/kseries, or $KSERIES_CACHE), so a warm run rebuilds only what a
// change touched. The files run in KERNEL_TIER_ORDER: npm start first, because it asks each shared kernel for the most
// (the boot kernel with the auto flags' objects, CONFIG_MEMCG, CONFIG_TASKSTATS and the kprobes KUnit suite), so the
// files after it only add objects and never switch on a symbol that would rebuild a kernel they share.

/**
 * The boot kernel: `minimal` (tinyconfig + kvm_guest.config + the boot symbols) + lockdep, with the objects of the
 * `auto` flags, in build/shared/minimal-lockdep. npm start and generate static-keys measure in it; so does the measure test.
 */
export const MEASURED = ['--candidates', 'auto'];

/**
 * Every kernel configuration the tier builds, where it lives in the cache, and who uses it. For the README and for
 * a reader who wonders why a test is slow the first time.
 */
export const KERNELS = [
  { kernel: 'boot (minimal+lockdep, the auto flags\' objects)', dir: 'build/shared/minimal-lockdep', users: 'start (measure, lockdep boots, KUnit), measure, static-keys, static-key' },
  { kernel: 'defconfig objects', dir: 'build/<clone>/defconfig', users: 'start, static-keys, static-key, check, kprobe-analyze, distcc' },
  { kernel: 'sandboxed defconfig objects', dir: 'build/<clone>/defconfig-sandboxed', users: 'review' },
  { kernel: 'a two-line .config\'s objects', dir: 'build/<clone>/file-<hash>', users: 'static-key (--config FILE)' },
] as const;

/** test/kernel/<name>.test.ts in the order they run; a file not named here runs after these. */
export const KERNEL_TIER_ORDER = ['start', 'measure', 'static-keys', 'static-key', 'check', 'kprobe-analyze', 'review', 'distcc'];
