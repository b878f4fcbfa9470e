// `kseries check`: every patch of a range, in order: build what it touches, new warnings, checkpatch, message rules,
// recipients. Builds run one patch after the other in kseries' worktree; checkpatch runs beside them.
import { assertConfig, type BuildOptions } from '../build/builder.js';
import { missingBuildPackages } from '../doctor.js';
import { MissingToolError } from '../errors.js';
import type { KernelTree } from '../tree/tree.js';
import { hasHistory } from '../tree/tree.js';
import { buildRange, type BuiltRange } from './builds.js';
import './checks/index.js';
import { formatMails, readCommits } from './commits.js';
import { patchChecks, patchFailed, patchHasFindings, seriesChecks, seriesResultsOf, type PatchFindings, type RangeOptions, type RangeRun, type SeriesResults } from './plugins.js';
import type { CheckReport, PatchReport } from './report.js';

export interface CheckOptions extends RangeOptions {
  series?: { name: string; version: number };
}

export async function checkRange(opts: CheckOptions): Promise<CheckReport> {
  const { tree } = opts;
  if (opts.build) await assertCanBuild(opts);
  const commits = await readCommits(tree, opts.base, opts.tip);
  const step = opts.onStep ?? (() => {});
  const mails = await formatMails(tree, opts.base, opts.tip);
  let builds: Promise<BuiltRange> | undefined;
  const run: RangeRun = {
    opts,
    commits,
    mails,
    history: await hasHistory(tree),
    built: () => (builds ??= buildRange(opts, commits, mails, step)),
    seriesProblems: [],
    identity: new Set(),
    step,
  };
  // Every patch check at once: checkpatch runs beside the builds.
  const results = await Promise.all(patchChecks().map((c) => c.run(run)));
  const patches: PatchReport[] = commits.map((c, i) => {
    const found = Object.fromEntries(patchChecks().map((check, k) => [check.field, results[k]![i]])) as unknown as PatchFindings;
    return { index: i + 1, commit: c.sha, subject: c.subject, ...found };
  });
  const built = opts.build ? await run.built() : undefined;
  // Then the series checks, one after the other: each may build and boot a kernel.
  const series: SeriesResults = {};
  for (const c of seriesChecks()) if (await c.wanted(run)) Object.assign(series, { [c.field]: await c.run(run) });
  const seriesFailed = seriesResultsOf(series).some((x) => !x.result.ok);
  const seriesProblems = run.seriesProblems;
  const failed = patches.some(patchFailed) || seriesProblems.some((p) => p.severity === 'error') || seriesFailed;
  return {
    series: { name: opts.series?.name ?? null, version: opts.series?.version ?? null, base: opts.base, tip: opts.tip, patches: commits.length },
    config: opts.config,
    ...(built?.config ? { configAsBuilt: built.config } : {}),
    ...(built?.others?.length ? { otherBuilds: built.others } : {}),
    ...(built?.missing?.length ? { buildsNotRun: built.missing } : {}),
    ...(built?.keptFrom ? { buildsKeptFrom: built.keptFrom } : {}),
    compiler: built?.compiler ?? 'none',
    patches,
    problems: seriesProblems,
    ...(run.identity.size ? { identity: [...run.identity] } : {}),
    ...series,
    verdict: patches.some(patchHasFindings) || seriesProblems.length > 0 || seriesFailed || run.identity.size > 0 ? 'findings' : 'clean',
    failed,
  };
}

async function assertCanBuild(opts: BuildOptions): Promise<void> {
  assertConfig(opts.config);
  const missing = await missingBuildPackages(opts.env);
  if (missing.length > 0) {
    throw new MissingToolError(`kernel builds need Debian packages that are missing: ${missing.join(' ')}`, `apt-get install -y ${missing.join(' ')}  (or kseries doctor --install; --no-build skips builds)`);
  }
}

/** Only the builds and object-code proofs of a range (generate measures a series with this before writing its messages). */
export async function proveRange(opts: BuildOptions & { tree: KernelTree; base: string; tip: string }): Promise<BuiltRange> {
  await assertCanBuild(opts);
  const commits = await readCommits(opts.tree, opts.base, opts.tip);
  const mails = await formatMails(opts.tree, opts.base, opts.tip);
  return buildRange({ ...opts, full: false }, commits, mails, () => {});
}
