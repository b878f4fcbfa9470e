// The one kernel kseries boots: `minimal` (tinyconfig + kvm_guest.config + what a boot and the workloads need, less the
// drivers of devices the guest does not have; or defconfig, or a .config file) with lockdep, might_sleep and the
// static-key-before-init check on, and the objects of the static-key candidates it measures (the auto flags by
// default). measure counts in it at a commit; check boots a series in it at the series' tip, from the same source
// folder and build directory, so a series rebuilds only what it changes. One configuration for both, whichever runs
// first: nothing a later run asks for switches on a symbol that rebuilds the kernel.
import fs from 'node:fs';
import path from 'node:path';
import { BOOT_OFF, BOOT_SYMBOLS, CHECK_SYMBOLS, GUEST_OFF, LOCKDEP_SYMBOLS, NO_SUCH_DEVICE, objectPlans, type ObjectPlan } from '../boot/config.js';
import { buildDirOf, KernelBuild } from '../build/builder.js';
import type { KernelNeed } from '../build/need.js';
import { setSymbols } from '../build/kbuild.js';
import { withProgress, type OnProgress } from '../progress.js';
import { carriable, type FlagCandidate } from '../recipes/static-key/scan.js';
import { scanStaticKeys } from '../recipes/static-key/tree-scan/static-keys.js';
import { readAtCommit } from '../tools/git.js';
import type { KernelTree } from '../tree/tree.js';
import { retire, sourceAt, sourceLock, withLockFile } from '../tree/worktree.js';

/**
 * Which candidates the kernel is built to measure: `auto` (what `generate static-keys` converts unless told otherwise,
 * and what check boots series in: the auto flags and the manual ones it carries as RFCs, see carriable()) or `all`
 * (auto and manual: a bigger kernel, in a build directory of its own).
 */
export type MeasuredKinds = 'auto' | 'all';

export interface BootKernelOptions {
  /** minimal, defconfig or a .config file. */
  config: string;
  candidates: MeasuredKinds;
  env?: NodeJS.ProcessEnv;
  progress?: OnProgress;
  /** Build under bubblewrap (a series someone else wrote): a build directory of its own, never shared. */
  sandbox?: boolean;
  /** Objects to build beyond the candidates' (the files a series changes). */
  also?: string[];
}

export interface BootKernel {
  build: KernelBuild;
  /** "minimal+lockdep": how reports and messages name the kernel. */
  label: string;
  /** The candidates measured in it, at the commit the kernel's configuration was made for. */
  candidates: FlagCandidate[];
  /** Where each candidate's object stands in the configuration. */
  plans: ObjectPlan[];
  /** Symbols asked for that stayed off, with why. */
  off: Map<string, string>;
}

/** "minimal+lockdep", "defconfig+lockdep", "my.config+lockdep". */
export function bootKernelLabel(config: string): string {
  return `${config === 'minimal' || config === 'defconfig' ? config : path.basename(config)}+lockdep`;
}

/** The build flavour of the boot kernel: one for the auto flags' objects, one with every candidate's. */
function flavourOf(kinds: MeasuredKinds): string {
  return kinds === 'all' ? 'lockdep-all' : 'lockdep';
}

/** The boot kernel as the build plan names it, for `why`. */
export function bootKernelNeed(tree: KernelTree, config: string, kinds: MeasuredKinds, why: string, env?: NodeJS.ProcessEnv): KernelNeed {
  const objects = kinds === 'auto' ? "the auto flags' objects" : "every candidate's objects";
  const make = (commit: string) => withBootKernel(tree, commit, { config, candidates: kinds, env }, async ({ build }) => (await build.buildImage(`building the ${bootKernelLabel(config)} kernel`)).ok);
  return { dir: buildDirOf(tree, { config, flavour: flavourOf(kinds), env }), kind: 'kernel', name: 'boot kernel', config: `${bootKernelLabel(config)} with ${objects}`, why, make };
}

/**
 * With the shared source folder at `commit` and the boot kernel configured for it (not built: `work` builds what it
 * needs), under the folder's lock. The candidates are those of `candidatesAt` (default `commit`): check passes the
 * series' base, so the kernel it boots a series in has the configuration measure made at that base.
 */
export async function withBootKernel<T>(tree: KernelTree, commit: string, opts: BootKernelOptions & { candidatesAt?: string }, work: (k: BootKernel) => Promise<T>): Promise<T> {
  const at = opts.candidatesAt ?? commit;
  const kinds = opts.candidates;
  const scanned = await withProgress('scanning the tree for static-key candidates', opts.progress, () => ({}), () => scanStaticKeys(tree, [], at, opts.env));
  const candidates = scanned.filter((c) => (kinds === 'auto' ? c.verdict === 'auto' || carriable(c) : c.verdict !== 'reject') && c.file.endsWith('.c'));
  return withLockFile(sourceLock('boot', opts.env), async () => {
    // Before measure and check shared one kernel, check's had a source folder and a build directory of its own.
    await retire(tree, [], ['sources/boot-series', 'sources/boot-series.index', 'build/shared/minimal-boot', 'build/shared/minimal-boot-auto'], opts.env);
    const source = await sourceAt(tree, commit, 'boot', opts.env);
    const build = new KernelBuild(tree, source, { config: opts.config, flavour: flavourOf(kinds), distcc: false, sandbox: opts.sandbox, env: opts.env, progress: opts.progress });
    const always = [...BOOT_SYMBOLS, ...LOCKDEP_SYMBOLS, ...CHECK_SYMBOLS];
    const disable = opts.config === 'minimal' ? [...BOOT_OFF, ...NO_SUCH_DEVICE, ...GUEST_OFF] : BOOT_OFF;
    await build.configure(always, commit, disable, { prepare: false });
    const read = (f: string) => readAtCommit(tree.root, commit, f);
    const base = setSymbols(fs.readFileSync(path.join(build.buildDir, '.config'), 'utf8'));
    const plans = await objectPlans(candidates.map((c) => c.file.replace(/\.c$/, '.o')), read, base);
    const extra = opts.config === 'minimal' ? plans.filter((p) => !p.leftOff).flatMap((p) => p.symbols) : [];
    for (const o of opts.also ?? []) extra.push(...((await build.symbolsFor(o, read)) ?? []));
    // What a candidate's or a series' object needs stays on, even a device the guest lacks.
    const off = await build.configure([...always, ...new Set(extra)], commit, disable.filter((s) => !extra.includes(s)));
    return work({ build, label: bootKernelLabel(opts.config), candidates, plans, off });
  });
}
