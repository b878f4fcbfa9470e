// KUnit evidence for a range: the tests of a kunitconfig on the base and on the tip, compared, and (for a kprobe
// series) the census of the tip's test kernel. The base's tests must pass on both; the tests the series adds must pass.
import { bootRefuses, KUNIT_PY, kunitKernelLabel, kunitLines, onKunitPyKernel, runKunitAt, runKunitOnBuild, type KunitKernel, type KunitOptions, type KunitResult, type KunitRun, type KunitSlot } from '../boot/kunit.js';
import { withBootKernel } from '../measure/kernel.js';
import { kernelObjects, kprobeCensus, type Census } from '../kprobe/census.js';
import { codeDigest, keptResult } from '../kept.js';
import { withProgress, type OnProgress } from '../progress.js';
import { gitRaw, revertedOn } from '../tools/git.js';
import { kseriesDir } from '../tree/worktree.js';
import type { KunitSpec } from '../templates/manifest.js';
import type { KernelTree } from '../tree/tree.js';

export interface KunitReport {
  config: string[];
  accel: 'kvm' | 'tcg';
  /** Why that accelerator: what the KVM probe saw. */
  accelWhy: string;
  /** The test kernel: the boot kernel, tinyconfig or kunit.py's own start with the kunitconfig (and why not the one before). */
  kernel: KunitKernel;
  base: KunitRun;
  series: KunitRun;
  /** Tests that run on the series and not on the base. */
  added: string[];
  /**
   * The series' tests again in kunit.py's own configuration, as a maintainer runs them (`kunit.py run` with the same
   * kunitconfig), with its settings; absent where the test kernel above was that one already.
   */
  standard?: KunitRun & { kernel: KunitKernel };
  /**
   * The series' tests on the series without its fix (kunit.without, by subject): the tests the series adds that fail
   * there, which show the bug; absent without a fix to take out.
   */
  without?: { subject: string; run?: KunitRun; failed: string[] };
  /** What fails the check; empty when the tests of the base and of the series all pass. */
  problems: string[];
  ok: boolean;
  /** Every instruction of the series' test kernel as a post_handler probe site (kunit.kprobeCensus). */
  census?: Census;
  /** When a passing run of the same trees and kunitconfig was made (ISO time): that run's report, kept. */
  keptFrom?: string;
}

export async function kunitEvidence(
  tree: KernelTree,
  range: { base: string; tip: string },
  spec: KunitSpec,
  opts: { env?: NodeJS.ProcessEnv; log?: (line: string) => void; progress?: OnProgress; fresh?: boolean } = {},
): Promise<KunitReport> {
  // What decides it: the two trees, the kunitconfig, and kseries' code that builds, boots, compares and counts. A
  // passing run of the same is kept, so check after generate (the same trees) and a repeated npm start reuse it.
  const treeOf = async (rev: string) => (await gitRaw(tree.root, ['rev-parse', `${rev}^{tree}`])).trim();
  const key = { base: await treeOf(range.base), tip: await treeOf(range.tip), spec, code: codeDigest(['boot', 'measure/kernel', 'check/kunit', 'tools/kunit', 'kprobe', 'object-code']) };
  const kept = await keptResult('kunit', key, () => runBoth(tree, range, spec, opts), (r) => r.ok, { env: opts.env, fresh: opts.fresh });
  if (kept.keptFrom) opts.log?.(`KUnit: the same base, series and kunitconfig passed at ${kept.keptFrom}: kept`);
  if (!kept.keptFrom) return kept.value;
  // Kept from a run of other commits with the same trees (generate's draft): the report names these commits.
  const { base, series } = kept.value;
  return { ...kept.value, base: { ...base, commit: range.base }, series: { ...series, commit: range.tip }, keptFrom: kept.keptFrom };
}

async function runBoth(tree: KernelTree, range: { base: string; tip: string }, spec: KunitSpec, opts: { env?: NodeJS.ProcessEnv; log?: (line: string) => void; progress?: OnProgress }): Promise<KunitReport> {
  const log = opts.log ?? (() => {});
  log(`KUnit: building and booting the base's test kernel (${range.base.slice(0, 12)})`);
  const at = { env: opts.env, progress: opts.progress, show: spec.show };
  const base = await kunitAt(tree, range.base, range.base, 'base', spec.config, at);
  log(`KUnit: building and booting the series' test kernel (${range.tip.slice(0, 12)})`);
  // The census reads the series' test kernel before any other run can rebuild it.
  let census: Census | undefined;
  const inside = spec.kprobeCensus
    ? async (buildDir: string) => {
        log('KUnit: analyzing every instruction of the series\' test kernel as a post_handler probe site');
        census = await withProgress('analyzing every instruction of the series\' test kernel', opts.progress, () => ({}), async () => kprobeCensus(buildDir, await kernelObjects(buildDir)));
      }
    : undefined;
  const series = await kunitAt(tree, range.tip, range.base, 'series', spec.config, { ...at, accel: base.accel, inside });
  const accel = base.accel ?? series.accel;
  if (base.kernel.why) log(`KUnit: the test kernel is ${kunitKernelLabel(base.kernel)}, ${base.kernel.why}`);
  const names = (r: KunitRun) => new Set(r.tests.map((t) => `${t.suite}.${t.name}`));
  const before = names(base.run);
  const added = [...names(series.run)].filter((n) => !before.has(n));
  const without = spec.without ? await unfixed(tree, range, spec, added, { ...at, accel: base.accel }, log) : undefined;
  // Tests that pass in kseries' test kernel must pass where maintainers run them too: kunit.py's own configuration
  // differs (PREEMPT_DYNAMIC, more of the kernel), and a test may depend on it.
  let standard: KunitResult | undefined;
  if (series.kernel.name !== KUNIT_PY) {
    log("KUnit: the series' tests again in kunit.py's own configuration, as maintainers run them");
    standard = await onKunitPyKernel(tree, range.tip, 'series', spec.config, "kunit.py run's own configuration, as maintainers run it", { ...at, accel: base.accel });
  }
  const report: KunitReport = {
    config: spec.config,
    accel: accel?.accel ?? 'tcg',
    accelWhy: accel?.why ?? 'no kernel was built to probe KVM with',
    kernel: base.kernel,
    base: base.run,
    series: series.run,
    added,
    problems: [...broken(base.run, 'base'), ...against(base.run, series.run, 'series'), ...(standard ? against(base.run, standard.run, "series in kunit.py's own configuration") : [])],
    ok: false,
    ...(without ? { without } : {}),
    ...(standard ? { standard: { ...standard.run, kernel: standard.kernel } } : {}),
  };
  if (without) report.problems.push(...unshown(without, added));
  report.ok = report.problems.length === 0;
  if (census) report.census = census;
  return report;
}

/**
 * KUnit at `commit` in the boot kernel (its candidates those of `candidatesAt`, the series' base, as check boots a
 * series in it), with the kunitconfig's symbols added, when they are KUnit's and tests'; else in a kernel of its own.
 */
async function kunitAt(tree: KernelTree, commit: string, candidatesAt: string, slot: KunitSlot, config: string[], opts: KunitOptions): Promise<KunitResult> {
  const { on } = kunitLines(config);
  let refused: string | undefined;
  const symbols = (set: ReadonlySet<string>) => {
    refused = bootRefuses(config, set);
    return refused ? [] : on;
  };
  const kernel = { config: 'minimal', candidates: 'auto' as const, candidatesAt, symbols, env: opts.env, progress: opts.progress };
  const onBoot = await withBootKernel(tree, commit, kernel, async ({ build, off, label }) => {
    const left = on.find((s) => off.has(s));
    if (left && !refused) refused = `not the boot kernel: ${off.get(left)}`;
    return refused ? undefined : runKunitOnBuild(build, label, commit, slot, config, opts);
  });
  return onBoot ?? runKunitAt(tree, commit, slot, config, refused!, opts);
}

/** The series' tests on the series without the patch kunit.without names (its fix). */
async function unfixed(tree: KernelTree, range: { base: string; tip: string }, spec: KunitSpec, added: string[], opts: KunitOptions, log: (line: string) => void): Promise<NonNullable<KunitReport['without']>> {
  const subject = spec.without!;
  const commits = (await gitRaw(tree.root, ['log', '--format=%H %s', `${range.base}..${range.tip}`])).trim().split('\n');
  const fix = commits.find((l) => l.slice(41) === subject)?.slice(0, 40);
  const commit = fix ? await revertedOn(tree.root, fix, range.tip, kseriesDir(tree)) : undefined;
  if (!commit) return { subject, failed: [] };
  log(`KUnit: the series' tests without "${subject}", which they must show the bug of`);
  const { run } = await kunitAt(tree, commit, range.base, 'unfixed', spec.config, opts);
  // A test that crashed the kernel shows the bug as well as one that failed: 6.1's KUnit does not survive the fault,
  // and kunit.py reports the suite it was in as one nameless case in error. Such a suite counts where the series adds
  // a test to it; kunit.py's outer group is no suite of its own.
  const crashedSuite = (suite: string) => added.some((a) => a.startsWith(`${suite}.`));
  const failed = run.tests
    .filter((t) => t.status !== 'PASS' && t.status !== 'SKIP' && (t.name || crashedSuite(t.suite)))
    .map((t) => (t.name ? `${t.suite}.${t.name}` : `${t.suite} (crashed)`));
  return { subject, run, failed };
}

/**
 * Why the tests do not show the bug the fix fixes: no such patch, no kernel without it, or no added test fails there
 * (or crashes the suite it is in).
 */
function unshown(w: NonNullable<KunitReport['without']>, added: string[]): string[] {
  if (!w.run) return [`the series' tests cannot run without "${w.subject}": no patch of the series has that subject, or the later patches need it`];
  if (w.run.status === 'build-failed' || w.run.status === 'crashed') return [`without "${w.subject}" the KUnit kernel ${w.run.status === 'build-failed' ? 'does not build' : 'reports no results'}: ${w.run.log?.slice(-3).join(' / ')}`];
  if (!w.failed.some((t) => added.includes(t) || t.endsWith(' (crashed)'))) return [`no test the series adds fails without "${w.subject}": the tests do not show what it fixes`];
  return [];
}

/** What fails in one run (`what` names it): a kernel that does not build or boot, a failing test. */
function broken(r: KunitRun, what: string): string[] {
  const problems: string[] = [];
  if (r.status === 'build-failed') problems.push(`the ${what}'s KUnit kernel does not build: ${r.log?.slice(-3).join(' / ')}`);
  if (r.status === 'crashed') problems.push(`the ${what}'s KUnit kernel reported no test results: ${r.log?.slice(-3).join(' / ')}`);
  for (const t of r.tests) if (t.status !== 'PASS' && t.status !== 'SKIP') problems.push(`${t.suite}.${t.name} ${t.status} on the ${what}`);
  return problems;
}

/** What fails in a run of the series against the base's: its own failures, and a test of the base that no longer runs. */
function against(base: KunitRun, series: KunitRun, what: string): string[] {
  const problems = broken(series, what);
  const after = new Set(series.tests.map((t) => `${t.suite}.${t.name}`));
  if (series.status !== 'build-failed' && series.status !== 'crashed') {
    for (const t of base.tests) if (!after.has(`${t.suite}.${t.name}`)) problems.push(`${t.suite}.${t.name} runs on the base and not on the ${what}`);
  }
  return problems;
}
