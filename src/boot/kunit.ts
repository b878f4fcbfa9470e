// KUnit on a commit of the tree, as maintainers run it: in the configuration the tree's tools/testing/kunit/kunit.py
// makes for x86_64 (`kunit.py config`: the kunitconfig and its QEMU lines, olddefconfig'd), booted by `kunit.py exec`
// under QEMU (KVM where a probe guest boots, else TCG); kseries reads kunit.py's JSON. kseries builds the image itself
// (kunitPyBuilds says why). One build folder per kunitconfig (kunitKernelDir), shared by every tree and series that
// asks for the same one (both kprobe series), following one shared source folder: the base, the series and the series
// without its fix are one kernel built incrementally. A new kunitconfig's folder starts as a copy of the KUnit folder
// used last, objects and all, so Kbuild recompiles only what the other configuration changes (fixdep records which
// symbols each object reads).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { buildBootImage, copyBuild } from '../build/builder.js';
import { kconfigIndexAt } from '../build/kconfig.js';
import { compilerPath } from '../build/compiler.js';
import { runMake, type MakeOptions } from '../tools/make.js';
import { onPath } from '../tools/which.js';
import { withProgress, type OnProgress } from '../progress.js';
import { retire, sourceAt, sourceLock, withLockFile } from '../tree/worktree.js';
import { kunitConfig, kunitExec, type KunitTree } from '../tools/kunit.js';
import { cacheDir } from '../tree/paths.js';
import type { KernelTree } from '../tree/tree.js';
import { chooseAccel, type Accel } from './accel.js';

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
  /** Lines of the kunitconfig left out at this commit: no Kconfig file of it defines their symbol (a series' own test). */
  leftOut?: string[];
}

export type KunitSlot = 'base' | 'series' | 'unfixed';

/** A slot in a progress line: "building the KUnit kernel of the series without its fix". */
const SLOT_TEXT: Record<KunitSlot, string> = { base: 'base', series: 'series', unfixed: 'series without its fix' };

/** Seconds the booted test kernel may run its tests (TCG is slow; the kprobes suite takes about a second). */
const EXEC_TIMEOUT = 300;

/** How reports and messages name the test kernel: kunit.py's own x86_64 configuration with the kunitconfig. */
export const KUNIT_KERNEL = "kunit.py's x86_64 config + kunitconfig";

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
}

/** What building a test kernel gave. */
interface Built {
  ok: boolean;
  log: string[];
  seconds: number;
  compiler: string;
}

/** The build folder of a kunitconfig's test kernel: one per kunitconfig (its lines, sorted), shared by every tree. */
export function kunitKernelDir(config: string[], env?: NodeJS.ProcessEnv): string {
  const digest = createHash('sha1').update([...config].sort().join('\n')).digest('hex').slice(0, 10);
  return path.join(kunitKernelsDir(env), `${KUNIT_FOLDER}+${digest}`);
}

/** The folder of every kunitconfig's build folder. */
function kunitKernelsDir(env?: NodeJS.ProcessEnv): string {
  return path.join(cacheDir(env), 'build', 'shared');
}

const KUNIT_FOLDER = 'kunit.py';

/** A kunitconfig's build folder (kunit.py+<digest>), not the .kunitconfig and results files kept beside it. */
const KUNIT_DIR_NAME = /^kunit\.py\+[0-9a-f]+$/;

/** What older kseries kept: KUnit in tinyconfig, and one kunit.py folder for every kunitconfig. */
const RETIRED = ['tinyconfig-kunit', 'kunit.py-kunit'].flatMap((d) => ['', '.kunitconfig', '.base.results.json', '.series.results.json', '.unfixed.results.json'].map((x) => `build/shared/${d}${x}`));

/**
 * Build and run KUnit with `config` (CONFIG_X=value lines) at `commit`, as `kunit.py run --arch=x86_64
 * --kunitconfig=...` does: kunit.py's configuration, its build, its QEMU command line.
 */
export function runKunit(tree: KernelTree, commit: string, slot: KunitSlot, config: string[], opts: KunitOptions = {}): Promise<KunitResult> {
  return withKunitKernel(tree, commit, config, opts, async (t, make) => {
    const started = Date.now();
    const built = await kunitPyBuilds(t, make, slot, opts);
    return execute(t, commit, slot, { ...built, seconds: seconds(started), compiler: make.compiler }, opts);
  });
}

/** Build the test kernel of `config` at `commit` and nothing else (the build plan's `make`; the bench). */
export function buildKunitKernel(tree: KernelTree, commit: string, config: string[], opts: KunitOptions = {}): Promise<boolean> {
  return withKunitKernel(tree, commit, config, opts, async (t, make) => (await kunitPyBuilds(t, make, 'base', opts)).ok);
}

/**
 * The lines of a kunitconfig whose symbol a Kconfig file at `commit` defines, and those left out: a series that adds
 * a test adds its symbol, and the base's run, which kunit.py would refuse ("not all Kconfig options ... were in the
 * generated .config"), goes without it, as a maintainer's kunitconfig of the base would.
 */
export async function definedAt(tree: KernelTree, commit: string, config: string[]): Promise<{ kept: string[]; leftOut: string[] }> {
  const index = await kconfigIndexAt(tree, commit);
  const defined = (line: string) => {
    const symbol = /^CONFIG_(\w+)=/.exec(line)?.[1];
    return symbol === undefined || index.defines(symbol);
  };
  return { kept: config.filter(defined), leftOut: config.filter((l) => !defined(l)) };
}

/** The shared KUnit source folder at `commit` and the kunitconfig's build folder, under the folder's lock. */
function withKunitKernel<T>(tree: KernelTree, commit: string, config: string[], opts: KunitOptions, work: (t: KunitTree & { leftOut: string[] }, make: MakeOptions & { compiler: string }) => Promise<T>): Promise<T> {
  return withLockFile(sourceLock('kunit', opts.env), async () => {
    // Older kseries built KUnit in a worktree per tree, then in tinyconfig and in one folder for every kunitconfig.
    await retire(tree, ['kunit'], RETIRED, opts.env);
    const source = await sourceAt(tree, commit, 'kunit', opts.env);
    const buildDir = kunitKernelDir(config, opts.env);
    seedKunitDir(buildDir, opts.env);
    fs.mkdirSync(buildDir, { recursive: true });
    const compiler = compilerPath({ ccache: onPath('ccache', opts.env), distcc: false, depend: true }, opts.env ?? process.env);
    const { kept, leftOut } = await definedAt(tree, commit, config);
    const t = { source, buildDir, kunitconfig: writeKunitconfig(buildDir, kept), leftOut };
    return work(t, { source, buildDir, arch: 'x86_64', cc: compiler.cc, env: compiler.env, compiler: compiler.name });
  });
}

/**
 * A kunitconfig's new build folder starts as a copy of the KUnit folder built last, objects and all: kunit.py makes its
 * .config anew (the kunitconfig it records differs) and Kbuild rebuilds what the change of configuration touches.
 */
export function seedKunitDir(buildDir: string, env?: NodeJS.ProcessEnv): void {
  if (fs.existsSync(path.join(buildDir, '.config'))) return;
  const parent = kunitKernelsDir(env);
  const built = (d: string) => fs.statSync(path.join(d, 'vmlinux'), { throwIfNoEntry: false })?.mtimeMs;
  const siblings = fs.existsSync(parent) ? fs.readdirSync(parent).filter((n) => KUNIT_DIR_NAME.test(n)).map((n) => path.join(parent, n)) : [];
  const newest = siblings.filter((d) => d !== buildDir && built(d) !== undefined).sort((a, b) => built(b)! - built(a)!)[0];
  if (newest) copyBuild(newest, buildDir, { objects: true });
}

/**
 * The test kernel in `buildDir`, then the run. kunit.py makes the configuration (`kunit.py config`) and kseries builds
 * what kunit.py's QEMU boots, vmlinux and bzImage, as it builds its own boot kernel: vmlinux through ccache in depend
 * mode, the image around it without (buildBootImage). `kunit.py build` would make `all` through ccache's default mode,
 * a third slower cold, and the modules too, which its QEMU never loads.
 */
async function kunitPyBuilds(t: KunitTree, make: MakeOptions, slot: KunitSlot, opts: KunitOptions): Promise<{ ok: boolean; log: string[] }> {
  const configured = await withProgress(`configuring the KUnit kernel of the ${SLOT_TEXT[slot]} (kunit.py config)`, opts.progress, () => ({}), async () => {
    const res = await kunitConfig(t, make);
    if (res.code !== 0) return { ok: false, log: tail(`${res.stdout}\n${res.stderr}`) };
    // kunit.py's build runs olddefconfig before each make: a commit's new Kconfig symbols get their defaults. syncconfig
    // does that and writes include/config/auto.conf, which the build would otherwise make in a Kconfig run of its own.
    const synced = await runMake(make, ['syncconfig']);
    return synced.code === 0 ? { ok: true, log: [] } : { ok: false, log: tail(synced.stderr) };
  });
  return configured.ok ? buildBootImage(make, `building the KUnit kernel of the ${SLOT_TEXT[slot]}`, opts) : configured;
}

/** `kunit.py exec` of a built test kernel, its results read from kunit.py's JSON; `inside` runs before the lock is let go. */
async function execute(t: KunitTree & { leftOut: string[] }, commit: string, slot: KunitSlot, built: Built, opts: KunitOptions): Promise<KunitResult> {
  const empty = { commit, tests: [], passed: 0, failed: 0, skipped: 0, buildSeconds: built.seconds, compiler: built.compiler, runSeconds: 0, ...(t.leftOut.length ? { leftOut: t.leftOut } : {}) };
  if (!built.ok) return { run: { ...empty, status: 'build-failed', log: built.log } };
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
  return { run, accel };
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
