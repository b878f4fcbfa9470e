// KUnit on a commit of the tree: kunit.py builds the test kernel in one build directory kept per tree, from one
// worktree kept for it, so the series' kernel after the base's rebuilds only what the series changes (the base's
// after the series', the same); then boots it under QEMU (KVM where a probe guest boots, else TCG) and reads its
// results.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { compilerPath } from '../build/compiler.js';
import { objectsToBuild, setSymbols } from '../build/kbuild.js';
import { onPath } from '../tools/which.js';
import { buildSample, withProgress, type OnProgress } from '../progress.js';
import { retire, withLock, worktreeAt } from '../tree/worktree.js';
import { kunitBuild, kunitExec } from '../tools/kunit.js';
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
}

export type KunitSlot = 'base' | 'series';

/** Seconds the booted test kernel may run its tests (TCG is slow; the kprobes suite takes about a second). */
const EXEC_TIMEOUT = 300;

/** The build directory: one per tree (its git directory), outside the source. */
export function kunitBuildDir(tree: KernelTree, env?: NodeJS.ProcessEnv): string {
  const treeId = createHash('sha1').update(tree.gitCommonDir).digest('hex').slice(0, 12);
  return path.join(cacheDir(env), 'kunit', treeId, 'kernel');
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
): Promise<{ run: KunitRun; accel?: Accel; buildDir: string }> {
  const buildDir = kunitBuildDir(tree, opts.env);
  fs.mkdirSync(buildDir, { recursive: true });
  const kunitconfig = `${buildDir}.kunitconfig`;
  fs.writeFileSync(kunitconfig, `${config.join('\n')}\n`);
  return withLock(tree, async () => {
    // Before one build directory served both, each had its own, and a worktree.
    await retire(tree, ['kunit-base', 'kunit-series'], ['base', 'series', 'base.kunitconfig', 'series.kunitconfig', 'base.results.json', 'series.results.json'].map((f) => path.relative(cacheDir(opts.env), path.join(path.dirname(buildDir), f))), opts.env);
    const source = await worktreeAt(tree, commit, 'kunit');
    const t = { source, buildDir, kunitconfig };
    let started = Date.now();
    const first = !fs.existsSync(path.join(buildDir, 'vmlinux'));
    const read = (f: string) => fs.promises.readFile(path.join(source, f), 'utf8').catch(() => undefined);
    const estimate = first ? async () => objectsToBuild(read, setSymbols(fs.readFileSync(path.join(buildDir, '.config'), 'utf8'))) : undefined;
    const compiler = compilerPath({ ccache: onPath('ccache', opts.env), distcc: false }, opts.env ?? process.env);
    const built = await withProgress(`building the KUnit kernel of the ${slot}`, opts.progress, buildSample(buildDir, estimate), () => kunitBuild(t, compiler));
    const buildSeconds = seconds(started);
    const empty = { commit, tests: [], passed: 0, failed: 0, skipped: 0, buildSeconds, compiler: compiler.name, runSeconds: 0 };
    if (built.code !== 0) return { run: { ...empty, status: 'build-failed', log: tail(`${built.stdout}\n${built.stderr}`) }, buildDir };
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
    return { run, accel, buildDir };
  });
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
