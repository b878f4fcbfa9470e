// KUnit on a commit of the tree: kunit.py builds the test kernel and boots it under QEMU (KVM where a probe guest
// boots, else TCG), and kseries reads its results. The kernel starts from tinyconfig with a console and the
// kunitconfig's symbols (kunit.py's own start, olddefconfig of the kunitconfig alone, builds every default driver:
// twice the objects); kunit.py keeps a .config its kunitconfig is a subset of. Source and build directory are shared
// by every tree (a source folder in kseries' cache), so the series' kernel after the base's rebuilds only what the
// series changes, whichever clone asked. A kunitconfig tinyconfig cannot satisfy builds from kunit.py's own start.
import fs from 'node:fs';
import path from 'node:path';
import { KernelBuild } from '../build/builder.js';
import { compilerPath } from '../build/compiler.js';
import { objectsToBuild, setSymbols } from '../build/kbuild.js';
import { onPath } from '../tools/which.js';
import { buildSample, withProgress, type OnProgress } from '../progress.js';
import { retire, sourceAt, sourceLock, withLockFile } from '../tree/worktree.js';
import { kunitBuild, kunitExec } from '../tools/kunit.js';
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
}

export type KunitSlot = 'base' | 'series';

/** Seconds the booted test kernel may run its tests (TCG is slow; the kprobes suite takes about a second). */
const EXEC_TIMEOUT = 300;

/**
 * What the test kernel adds to tinyconfig: 64-bit, printk on the serial console (KUnit's output), the menu most suites
 * sit in, and the unwinder x86-64 kernels ship with (tinyconfig's guessing one fails the suites that check a stack
 * trace, kprobes' nested kretprobe among them).
 */
const KUNIT_BASE = ['64BIT', 'PRINTK', 'TTY', 'SERIAL_8250', 'SERIAL_8250_CONSOLE', 'RUNTIME_TESTING_MENU', 'UNWINDER_ORC'];

/** What it switches off: as the boot kernel, -Os, xz and address randomization; and the guessing unwinder. */
const KUNIT_OFF = [...BOOT_OFF, 'UNWINDER_GUESS'];

/** Which start the test kernel's configuration had, and why not tinyconfig when it is kunit.py's. */
export interface KunitKernel {
  base: 'tinyconfig' | 'kunit.py';
  why?: string;
}

/** How reports and messages name the test kernel: "tinyconfig + kunitconfig" or "kunit.py's config + kunitconfig". */
export function kunitKernelLabel(k: KunitKernel): string {
  return `${k.base === 'tinyconfig' ? 'tinyconfig' : "kunit.py's config"} + kunitconfig`;
}

/**
 * Build and run KUnit with `config` (CONFIG_X=y lines) at `commit`. `accel` is chosen on the first built kernel
 * when not given (and returned, so that a second run uses the same).
 */
export async function runKunitAt(
  tree: KernelTree,
  commit: string,
  slot: KunitSlot,
  config: string[],
  opts: { accel?: Accel; env?: NodeJS.ProcessEnv; progress?: OnProgress } = {},
): Promise<{ run: KunitRun; accel?: Accel; buildDir: string; kernel: KunitKernel }> {
  return withLockFile(sourceLock('kunit', opts.env), async () => {
    // Before the test kernel started from tinyconfig, kunit.py made it in a build directory per tree, from a worktree.
    await retire(tree, ['kunit'], ['kunit'], opts.env);
    const source = await sourceAt(tree, commit, 'kunit', opts.env);
    const { buildDir, kernel: configured } = await configureKernel(tree, source, commit, config, opts);
    const symbols = () => [...setSymbols(fs.readFileSync(path.join(buildDir, '.config'), 'utf8'))].sort().join();
    const seeded = configured.base === 'tinyconfig' ? symbols() : undefined;
    const kunitconfig = `${buildDir}.kunitconfig`;
    fs.writeFileSync(kunitconfig, `${config.join('\n')}\n`);
    const t = { source, buildDir, kunitconfig };
    let started = Date.now();
    const first = !fs.existsSync(path.join(buildDir, 'vmlinux'));
    const read = (f: string) => fs.promises.readFile(path.join(source, f), 'utf8').catch(() => undefined);
    const estimate = first ? async () => objectsToBuild(read, setSymbols(fs.readFileSync(path.join(buildDir, '.config'), 'utf8'))) : undefined;
    const compiler = compilerPath({ ccache: onPath('ccache', opts.env), distcc: false }, opts.env ?? process.env);
    const built = await withProgress(`building the KUnit kernel of the ${slot}`, opts.progress, buildSample(buildDir, estimate), () => kunitBuild(t, compiler));
    const buildSeconds = seconds(started);
    // kunit.py keeps a .config only when it holds the kunitconfig and its record of it matches: say so if it did not.
    // The next run then configures from tinyconfig again (configure() builds on a .config it finds).
    const replaced = seeded !== undefined && fs.existsSync(path.join(buildDir, '.config')) && symbols() !== seeded;
    if (replaced) fs.rmSync(path.join(buildDir, '.config'));
    const kernel: KunitKernel = replaced ? { base: 'kunit.py', why: 'kunit.py made a .config of its own' } : configured;
    const empty = { commit, tests: [], passed: 0, failed: 0, skipped: 0, buildSeconds, compiler: compiler.name, runSeconds: 0 };
    if (built.code !== 0) return { run: { ...empty, status: 'build-failed', log: tail(`${built.stdout}\n${built.stderr}`) }, buildDir, kernel };
    const accel = opts.accel ?? (await chooseAccel(path.join(buildDir, 'arch/x86/boot/bzImage'), opts.env));
    const json = `${buildDir}.${slot}.results.json`;
    fs.rmSync(json, { force: true });
    started = Date.now();
    const exec = () => kunitExec(t, { json, qemuArgs: accel.qemuArgs, timeout: EXEC_TIMEOUT });
    const ran = await withProgress(`booting the KUnit kernel of the ${slot} under ${accel.accel.toUpperCase()}`, opts.progress, () => ({}), exec);
    const runSeconds = seconds(started);
    const tests = fs.existsSync(json) ? testsOf(JSON.parse(fs.readFileSync(json, 'utf8'))) : [];
    const count = (s: string) => tests.filter((x) => x.status === s).length;
    const failed = tests.length - count('PASS') - count('SKIP');
    const status = tests.length === 0 ? 'crashed' : failed > 0 || ran.code !== 0 ? 'failed' : 'passed';
    const run: KunitRun = { ...empty, status, tests, passed: count('PASS'), failed, skipped: count('SKIP'), runSeconds };
    if (status !== 'passed') run.log = tail(`${ran.stdout}\n${ran.stderr}`);
    return { run, accel, buildDir, kernel };
  });
}

/**
 * The test kernel's build directory, configured: tinyconfig with KUNIT_BASE and the kunitconfig's symbols (their
 * dependencies switched on as for any kseries kernel), and kunit.py's record of the kunitconfig it was made for, so
 * that kunit.py keeps it. When a symbol of the kunitconfig stays off (a dependency tinyconfig lacks and kseries cannot
 * tell), or a line sets a value, kunit.py configures from its own start, in a build directory of its own.
 */
async function configureKernel(tree: KernelTree, source: string, commit: string, config: string[], opts: { env?: NodeJS.ProcessEnv; progress?: OnProgress }): Promise<{ buildDir: string; kernel: KunitKernel }> {
  // Every line is CONFIG_X=value: the recipe's manifest and check's --kunit reader keep no other.
  const lines = config.map((l) => /^CONFIG_(\w+)=(.*)$/.exec(l)).filter((m) => m !== null);
  const fallback = (why: string) => {
    const buildDir = path.join(cacheDir(opts.env), 'build', 'shared', 'kunit.py-kunit');
    fs.mkdirSync(buildDir, { recursive: true });
    return { buildDir, kernel: { base: 'kunit.py' as const, why } };
  };
  const valued = lines.find((m) => !['y', 'm', 'n'].includes(m[2]!));
  if (valued) return fallback(`the kunitconfig sets CONFIG_${valued[1]} to a value`);
  const on = lines.filter((m) => m[2] === 'y' || m[2] === 'm').map((m) => m[1]!);
  const off = lines.filter((m) => m[2] === 'n').map((m) => m[1]!);
  const build = new KernelBuild(tree, source, { config: 'tinyconfig', flavour: 'kunit', distcc: false, env: opts.env, progress: opts.progress });
  const left = await build.configure([...KUNIT_BASE, ...on], commit, [...KUNIT_OFF, ...off]);
  const missing = on.find((s) => left.has(s));
  if (missing) return fallback(left.get(missing)!);
  fs.writeFileSync(path.join(build.buildDir, 'last_used_kunitconfig'), [...archConfig(source), ...config].join('\n') + '\n');
  return { buildDir: build.buildDir, kernel: { base: 'tinyconfig' } };
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
