// KUnit on a commit of the tree: kunit.py boots a test kernel under QEMU (KVM where a probe guest boots, else TCG)
// and kseries reads its results. The test kernel is, first choice, the one kernel kseries boots (check/kunit.ts asks
// measure/kernel.ts for it, then runKunitOnBuild): built already when measure or check ran, with KUnit's tests run
// only when kunit.py boots it (CONFIG_KUNIT_DEFAULT_ENABLED off), so a kunitconfig of KUnit and test symbols costs a
// few objects, not a kernel. Otherwise (runKunitAt) tinyconfig with a console and the kunitconfig's symbols (kunit.py's
// own start, olddefconfig of the kunitconfig alone, builds every default driver: twice the objects), which kunit.py
// builds and keeps as long as its kunitconfig is a subset; a kunitconfig tinyconfig cannot satisfy builds from
// kunit.py's own start. Each kernel follows a shared source folder in kseries' cache, so the series' kernel after the
// base's rebuilds only what the series changes, whichever clone asked.
import fs from 'node:fs';
import path from 'node:path';
import { KernelBuild } from '../build/builder.js';
import { compilerPath } from '../build/compiler.js';
import { objectsToBuild, setSymbols } from '../build/kbuild.js';
import { onPath } from '../tools/which.js';
import { buildSample, withProgress, type OnProgress } from '../progress.js';
import { retire, sourceAt, sourceLock, withLockFile } from '../tree/worktree.js';
import { kunitBuild, kunitExec, type KunitTree } from '../tools/kunit.js';
import { cacheDir } from '../tree/paths.js';
import type { KernelTree } from '../tree/tree.js';
import { chooseAccel, type Accel } from './accel.js';
import { BOOT_OFF } from './config.js';

export interface KunitTest {
  suite: string;
  name: string;
  /** As kunit.py reports it: PASS, FAIL, SKIP, TEST_CRASHED, ... */
  status: string;
}

export interface KunitRun {
  commit: string;
  status: 'passed' | 'failed' | 'build-failed' | 'crashed';
  tests: KunitTest[];
  passed: number;
  failed: number;
  skipped: number;
  /** The last lines kunit.py printed, when the run did not pass. */
  log?: string[];
  buildSeconds: number;
  /** Which path compiled: gcc or ccache gcc. */
  compiler?: string;
  runSeconds: number;
  /** The values of the symbols KunitOptions.show names in the test kernel's .config (configSettings()). */
  settings?: { name: string; value: string }[];
}

export type KunitSlot = 'base' | 'series' | 'unfixed';

/** A slot in a progress line: "building the KUnit kernel of the series without its fix". */
const SLOT_TEXT: Record<KunitSlot, string> = { base: 'base', series: 'series', unfixed: 'series without its fix' };

/** Seconds the booted test kernel may run its tests (TCG is slow; the kprobes suite takes about a second). */
const EXEC_TIMEOUT = 300;

/**
 * What the tinyconfig test kernel adds: 64-bit, printk on the serial console (KUnit's output), the menu most suites
 * sit in, and the unwinder x86-64 kernels ship with (tinyconfig's guessing one fails the suites that check a stack
 * trace, kprobes' nested kretprobe among them; BOOT_OFF switches it off).
 */
const KUNIT_BASE = ['64BIT', 'PRINTK', 'TTY', 'SERIAL_8250', 'SERIAL_8250_CONSOLE', 'RUNTIME_TESTING_MENU', 'UNWINDER_ORC'];

/** Symbols a kunitconfig may add to the boot kernel: KUnit and tests, code that runs only when kunit.py boots it. */
const TEST_SYMBOL = /(^|_)(KUNIT|TESTS?)(_|$)/;

/** Which kernel ran the tests: its configuration's name, and why not the one before it (boot kernel, tinyconfig). */
/** How reports name kunit.py's own start as the test kernel. */
export const KUNIT_PY = "kunit.py's config";

export interface KunitKernel {
  /** "minimal+lockdep" (the boot kernel), "tinyconfig" or "kunit.py's config". */
  name: string;
  why?: string;
}

/** How reports and messages name the test kernel: "minimal+lockdep + kunitconfig", "tinyconfig + kunitconfig", ... */
export function kunitKernelLabel(k: KunitKernel): string {
  return `${k.name} + kunitconfig`;
}

/** A kunitconfig's lines: the symbols it switches on and off, and the first that sets a value. */
export function kunitLines(config: string[]): { on: string[]; off: string[]; valued?: string } {
  // Every line is CONFIG_X=value: the recipe's manifest and check's --kunit reader keep no other.
  const lines = config.map((l) => /^CONFIG_(\w+)=(.*)$/.exec(l)).filter((m) => m !== null);
  const valued = lines.find((m) => !['y', 'm', 'n'].includes(m[2]!))?.[1];
  return { on: lines.filter((m) => m[2] === 'y' || m[2] === 'm').map((m) => m[1]!), off: lines.filter((m) => m[2] === 'n').map((m) => m[1]!), ...(valued ? { valued } : {}) };
}

export interface KunitOptions {
  /** Chosen on the first built kernel when not given (and returned, so that a second run uses the same). */
  accel?: Accel;
  /** Work on the built test kernel's build directory while no other run can change it (the census). */
  inside?: (buildDir: string) => Promise<void>;
  /** Symbols whose values the run reports (KunitRun.settings). */
  show?: string[];
  env?: NodeJS.ProcessEnv;
  progress?: OnProgress;
}

export interface KunitResult {
  run: KunitRun;
  accel?: Accel;
  kernel: KunitKernel;
}

/** What building a test kernel gave, the same for every kernel. */
interface Built {
  ok: boolean;
  log: string[];
  seconds: number;
  compiler: string;
}

/**
 * Build and run KUnit with `config` (CONFIG_X=value lines) at `commit` in tinyconfig + the kunitconfig, or kunit.py's own
 * start when tinyconfig cannot serve it; `why` says why not the boot kernel.
 */
export async function runKunitAt(tree: KernelTree, commit: string, slot: KunitSlot, config: string[], why: string, opts: KunitOptions = {}): Promise<KunitResult> {
  const { on, off, valued } = kunitLines(config);
  if (valued) return onKunitPyKernel(tree, commit, slot, config, `not tinyconfig: the kunitconfig sets CONFIG_${valued} to a value`, opts);
  return onTinyKernel(tree, commit, slot, config, on, off, why, opts);
}

/** Why the boot kernel, with `set` symbols set, cannot run a kunitconfig's tests; undefined when it can. */
export function bootRefuses(config: string[], set: ReadonlySet<string>): string | undefined {
  const { on, off, valued } = kunitLines(config);
  if (valued) return `not the boot kernel: the kunitconfig sets CONFIG_${valued} to a value`;
  const needed = off.find((s) => set.has(s));
  if (needed) return `not the boot kernel: the kunitconfig needs CONFIG_${needed} off, which the boot kernel has on`;
  const other = on.find((s) => !set.has(s) && !TEST_SYMBOL.test(s));
  if (other) return `not the boot kernel: the kunitconfig switches on CONFIG_${other}, no test, which would change the kernel measure counts in`;
  return undefined;
}

/** KUnit in a configured kseries kernel build (the boot kernel, `name` as reports call it) at `commit`. */
export async function runKunitOnBuild(build: KernelBuild, name: string, commit: string, slot: KunitSlot, config: string[], opts: KunitOptions = {}): Promise<KunitResult> {
  const t = { source: build.source, buildDir: build.buildDir, kunitconfig: writeKunitconfig(build.buildDir, config) };
  const started = Date.now();
  const image = await build.buildImage(`building the ${name} kernel of the ${SLOT_TEXT[slot]} with KUnit`);
  return execute(t, commit, slot, { ...image, seconds: seconds(started), compiler: build.compiler }, { name }, opts);
}

/** In tinyconfig + the kunitconfig, built by kunit.py; in kunit.py's own start when tinyconfig cannot serve it. */
async function onTinyKernel(tree: KernelTree, commit: string, slot: KunitSlot, config: string[], on: string[], off: string[], why: string, opts: KunitOptions): Promise<KunitResult> {
  const fell = await withKunitSource(tree, commit, opts, async (source) => {
    const build = new KernelBuild(tree, source, { config: 'tinyconfig', flavour: 'kunit', distcc: false, env: opts.env, progress: opts.progress });
    const left = await build.configure([...KUNIT_BASE, ...on], commit, [...BOOT_OFF, ...off]);
    const missing = on.find((s) => left.has(s));
    if (missing) return `not tinyconfig: ${left.get(missing)}`;
    // kunit.py keeps a .config that holds its kunitconfig, as long as its record of the kunitconfig matches.
    fs.writeFileSync(path.join(build.buildDir, 'last_used_kunitconfig'), [...archConfig(source), ...config].join('\n') + '\n');
    return kunitPyBuilds(source, build.buildDir, commit, slot, config, { name: 'tinyconfig', why }, opts);
  });
  return typeof fell === 'string' ? onKunitPyKernel(tree, commit, slot, config, fell, opts) : fell;
}

/**
 * In kunit.py's own start, as a maintainer runs the tests (`kunit.py run --arch=x86_64 --kunitconfig=...`): its x86_64
 * QEMU config and the kunitconfig, olddefconfig'd, in a build directory of its own.
 */
export function onKunitPyKernel(tree: KernelTree, commit: string, slot: KunitSlot, config: string[], why: string, opts: KunitOptions = {}): Promise<KunitResult> {
  return withKunitSource(tree, commit, opts, (source) => {
    const buildDir = path.join(cacheDir(opts.env), 'build', 'shared', 'kunit.py-kunit');
    fs.mkdirSync(buildDir, { recursive: true });
    return kunitPyBuilds(source, buildDir, commit, slot, config, { name: KUNIT_PY, why }, opts);
  });
}

/** The shared KUnit source folder at `commit`, under its lock. */
function withKunitSource<T>(tree: KernelTree, commit: string, opts: KunitOptions, work: (source: string) => Promise<T>): Promise<T> {
  return withLockFile(sourceLock('kunit', opts.env), async () => {
    // Before the test kernel started from tinyconfig, kunit.py made it in a build directory per tree, from a worktree.
    await retire(tree, ['kunit'], ['kunit'], opts.env);
    return work(await sourceAt(tree, commit, 'kunit', opts.env));
  });
}

/** `kunit.py build` in `buildDir`, then the run; says so when kunit.py replaced the .config kseries made. */
async function kunitPyBuilds(source: string, buildDir: string, commit: string, slot: KunitSlot, config: string[], kernel: KunitKernel, opts: KunitOptions): Promise<KunitResult> {
  const symbols = () => setSymbols(fs.readFileSync(path.join(buildDir, '.config'), 'utf8'));
  const seeded = kernel.name === 'tinyconfig' ? symbols() : undefined;
  const t = { source, buildDir, kunitconfig: writeKunitconfig(buildDir, config) };
  const started = Date.now();
  const first = !fs.existsSync(path.join(buildDir, 'vmlinux'));
  const read = (f: string) => fs.promises.readFile(path.join(source, f), 'utf8').catch(() => undefined);
  const estimate = first ? async () => objectsToBuild(read, setSymbols(fs.readFileSync(path.join(buildDir, '.config'), 'utf8'))) : undefined;
  const compiler = compilerPath({ ccache: onPath('ccache', opts.env), distcc: false }, opts.env ?? process.env);
  const built = await withProgress(`building the KUnit kernel of the ${SLOT_TEXT[slot]}`, opts.progress, buildSample(buildDir, estimate), () => kunitBuild(t, compiler));
  // kunit.py made a .config of its own when one that was set is no longer (a symbol the commit adds, on by default,
  // is no replacement); the next run then configures from tinyconfig again (configure() builds on a .config it finds).
  const now = seeded && fs.existsSync(path.join(buildDir, '.config')) ? symbols() : undefined;
  const replaced = seeded !== undefined && now !== undefined && [...seeded].some((s) => !now.has(s));
  const ran = replaced ? { name: KUNIT_PY, why: 'not tinyconfig: kunit.py made a .config of its own' } : kernel;
  const log = tail(`${built.stdout}\n${built.stderr}`);
  const result = await execute(t, commit, slot, { ok: built.code === 0, log, seconds: seconds(started), compiler: compiler.name }, ran, opts);
  if (replaced) fs.rmSync(path.join(buildDir, '.config'));
  return result;
}

/** `kunit.py exec` of a built test kernel, its results read from kunit.py's JSON; `inside` runs before the lock is let go. */
async function execute(t: KunitTree, commit: string, slot: KunitSlot, built: Built, kernel: KunitKernel, opts: KunitOptions): Promise<KunitResult> {
  const empty = { commit, tests: [], passed: 0, failed: 0, skipped: 0, buildSeconds: built.seconds, compiler: built.compiler, runSeconds: 0 };
  if (!built.ok) return { run: { ...empty, status: 'build-failed', log: built.log }, kernel };
  const accel = opts.accel ?? (await chooseAccel(path.join(t.buildDir, 'arch/x86/boot/bzImage'), opts.env));
  const json = `${t.buildDir}.${slot}.results.json`;
  fs.rmSync(json, { force: true });
  const started = Date.now();
  const exec = () => kunitExec(t, { json, qemuArgs: accel.qemuArgs, timeout: EXEC_TIMEOUT });
  const ran = await withProgress(`booting the KUnit kernel of the ${SLOT_TEXT[slot]} under ${accel.accel.toUpperCase()}`, opts.progress, () => ({}), exec);
  const runSeconds = seconds(started);
  const tests = fs.existsSync(json) ? testsOf(JSON.parse(fs.readFileSync(json, 'utf8'))) : [];
  const count = (s: string) => tests.filter((x) => x.status === s).length;
  const failed = tests.length - count('PASS') - count('SKIP');
  const status = tests.length === 0 ? 'crashed' : failed > 0 || ran.code !== 0 ? 'failed' : 'passed';
  const run: KunitRun = { ...empty, status, tests, passed: count('PASS'), failed, skipped: count('SKIP'), runSeconds };
  if (opts.show?.length) run.settings = configSettings(fs.readFileSync(path.join(t.buildDir, '.config'), 'utf8'), opts.show);
  if (status !== 'passed') run.log = tail(`${ran.stdout}\n${ran.stderr}`);
  await opts.inside?.(t.buildDir);
  return { run, accel, kernel };
}

/**
 * The values of `names` in a .config's text: "y", "m", a number or string as written, "n" for "is not set"; a name
 * the .config does not mention (not a symbol of this tree, or its dependencies unmet) is left out.
 */
export function configSettings(config: string, names: string[]): { name: string; value: string }[] {
  const values = new Map<string, string>();
  for (const m of config.matchAll(/^(CONFIG_\w+)=(.*)$/gm)) values.set(m[1]!, m[2]!);
  for (const m of config.matchAll(/^# (CONFIG_\w+) is not set$/gm)) values.set(m[1]!, 'n');
  return names.filter((name) => values.has(name)).map((name) => ({ name, value: values.get(name)! }));
}

/** The kunitconfig kunit.py is given, beside the build directory. */
function writeKunitconfig(buildDir: string, config: string[]): string {
  const file = `${buildDir}.kunitconfig`;
  fs.writeFileSync(file, `${config.join('\n')}\n`);
  return file;
}

/** The lines kunit.py adds for x86_64 QEMU (its qemu_configs/x86_64.py), which it counts as the kunitconfig's. */
function archConfig(source: string): string[] {
  const text = fs.readFileSync(path.join(source, 'tools/testing/kunit/qemu_configs/x86_64.py'), 'utf8');
  return text.match(/^CONFIG_\w+=[^\s']+/gm) ?? [];
}

interface KunitJsonGroup {
  name: string;
  sub_groups?: KunitJsonGroup[];
  test_cases?: { name: string; status: string }[];
}

/** kunit.py's JSON: nested groups (suites) of test cases. */
function testsOf(root: KunitJsonGroup): KunitTest[] {
  const out: KunitTest[] = [];
  const walk = (g: KunitJsonGroup, suite: string) => {
    for (const t of g.test_cases ?? []) out.push({ suite, name: t.name, status: t.status });
    for (const s of g.sub_groups ?? []) walk(s, s.name);
  };
  walk(root, root.name);
  return out;
}

function seconds(since: number): number {
  return Math.round((Date.now() - since) / 100) / 10;
}

function tail(text: string): string[] {
  return text.trim().split('\n').slice(-15);
}
