// KUnit evidence for a range: the tests of a kunitconfig on the base and on the tip, in kunit.py's own configuration as
// maintainers run them, compared, and (for a kprobe series) the census of the tip's test kernel. The base's tests must
// pass on both; the tests the series adds must pass, and fail without the fix where the series names one.
import { KUNIT_KERNEL, runKunit, type KunitOptions, type KunitResult, type KunitRun, type KunitSlot } from '../boot/kunit.js';
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
  /** The test kernel, as reports name it: kunit.py's own x86_64 configuration with the kunitconfig. */
  kernel: string;
  base: KunitRun;
  series: KunitRun;
  /** Tests that run on the series and not on the base. */
  added: string[];
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

async function runBoth(tree: KernelTree, range: { base: string; tip: string }, spec: KunitSpec, opts: { env?: NodeJS.ProcessEnv; log?: (line: string) => void; progress?: OnProgress; fresh?: boolean }): Promise<KunitReport> {
  const log = opts.log ?? (() => {});
  log(`KUnit: building and booting the base's test kernel (${range.base.slice(0, 12)}) in kunit.py's own configuration`);
  const at = { env: opts.env, progress: opts.progress, show: spec.show };
  const base = await keptRun(tree, range.base, 'base', spec, at, log, opts.fresh);
  log(`KUnit: building and booting the series' test kernel (${range.tip.slice(0, 12)})`);
  // The census reads the series' test kernel before any other run can rebuild it.
  let census: Census | undefined;
  const inside = spec.kprobeCensus
    ? async (buildDir: string) => {
        log('KUnit: analyzing every instruction of the series\' test kernel as a post_handler probe site');
        census = await withProgress('analyzing every instruction of the series\' test kernel', opts.progress, () => ({}), async () => kprobeCensus(buildDir, await kernelObjects(buildDir)));
      }
    : undefined;
  const series = await keptRun(tree, range.tip, 'series', spec, { ...at, accel: base.accel, inside }, log, opts.fresh);
  const accel = base.accel ?? series.accel;
  const names = (r: KunitRun) => new Set(r.tests.map((t) => `${t.suite}.${t.name}`));
  const before = names(base.run);
  const added = [...names(series.run)].filter((n) => !before.has(n));
  const without = spec.without ? await unfixed(tree, range, spec, added, { ...at, accel: base.accel }, log) : undefined;
  const report: KunitReport = {
    config: spec.config,
    accel: accel?.accel ?? 'tcg',
    accelWhy: accel?.why ?? 'no kernel was built to probe KVM with',
    kernel: KUNIT_KERNEL,
    base: base.run,
    series: series.run,
    added,
    problems: [...broken(base.run, 'base'), ...against(base.run, series.run, 'series')],
    ok: false,
    ...(without ? { without } : {}),
  };
  if (without) report.problems.push(...unshown(without, added));
  report.ok = report.problems.length === 0;
  if (census) report.census = census;
  return report;
}

/**
 * One run at `commit`, kept by the commit's tree when it passed: the series a series applies on (kprobe-post on
 * kprobe-cold) was tested there already. A run that reads its kernel (`inside`: the census) is always made, and so is
 * every run of a --fresh check.
 */
async function keptRun(tree: KernelTree, commit: string, slot: KunitSlot, spec: KunitSpec, opts: KunitOptions, log: (line: string) => void, fresh = false): Promise<KunitResult> {
  const key = { tree: (await gitRaw(tree.root, ['rev-parse', `${commit}^{tree}`])).trim(), config: spec.config, show: spec.show, code: codeDigest(['boot', 'tools/kunit']) };
  const kept = await keptResult('kunit-run', key, () => runKunit(tree, commit, slot, spec.config, opts), (r) => r.run.status === 'passed', { env: opts.env, fresh: fresh || opts.inside !== undefined });
  if (!kept.keptFrom) return kept.value;
  log(`KUnit: the ${slot}'s tree passed the same kunitconfig at ${kept.keptFrom}: kept`);
  return { run: { ...kept.value.run, commit }, accel: opts.accel ?? kept.value.accel };
}

/** The series' tests on the series without the patch kunit.without names (its fix). */
async function unfixed(tree: KernelTree, range: { base: string; tip: string }, spec: KunitSpec, added: string[], opts: KunitOptions, log: (line: string) => void): Promise<NonNullable<KunitReport['without']>> {
  const subject = spec.without!;
  const commits = (await gitRaw(tree.root, ['log', '--format=%H %s', `${range.base}..${range.tip}`])).trim().split('\n');
  const fix = commits.find((l) => l.slice(41) === subject)?.slice(0, 40);
  const commit = fix ? await revertedOn(tree.root, fix, range.tip, kseriesDir(tree)) : undefined;
  if (!commit) return { subject, failed: [] };
  log(`KUnit: the series' tests without "${subject}", which they must show the bug of`);
  const { run } = await runKunit(tree, commit, 'unfixed', spec.config, opts);
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
