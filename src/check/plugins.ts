// Checks as plug-ins. A check is one module that declares what it is (id, severities, JSON field, text column, b4-CI
// status, the sentence emit states, how a reply quotes it) and how it runs; `kseries check`, review, `--b4-check` and
// emit iterate this registry and know no check by name. Patch checks give one result per patch (build, object-code
// proofs, checkpatch, message rules); series checks one result for the range (KUnit; the static-key recipe's boot).
// The registry imports no check: check/checks/index.ts registers the built-in ones, recipes register their own.
import type { BuildOptions } from '../build/builder.js';
import type { KernelNeed } from '../build/need.js';
import type { KunitSpec } from '../templates/manifest.js';
import type { CheckpatchResult } from '../tools/kernel-scripts.js';
import type { KernelTree } from '../tree/tree.js';
import type { BuiltRange, OnStep } from './builds.js';
import type { Commit } from './commits.js';
import type { ObjectProof } from './proofs/types.js';
import type { BuildReport, CheckReport } from './report.js';
import type { Problem, Severity } from './rules.js';

/** What a patch's checks found, each under its check's JSON field. */
export interface PatchFindings {
  build: BuildReport;
  proofs: ObjectProof[];
  checkpatch: CheckpatchResult;
  problems: Problem[];
  /** The problems with the rules of the tree the range goes to. */
  tree: Problem[];
}

/** b4's review-CI contract: one entry per check of one patch. */
export interface B4Check {
  tool: 'kseries';
  status: 'pass' | 'warn' | 'fail';
  summary: string;
  details: string;
}

/** A finding as a reply quotes it: under the hunk it points into (file and new line, or -N for hunk N), else loose. */
export interface Quoted {
  file?: string;
  line?: number;
  text: string[];
}

export interface RangeOptions extends BuildOptions {
  tree: KernelTree;
  base: string;
  tip: string;
  cover?: { subject: string; body: string };
  mailed?: boolean;
  mailedParts?: number;
  /** The mail of each patch as it was sent (index 1..n), whose To/Cc are checked. */
  mails?: Map<number, string>;
  build: boolean;
  full: boolean;
  strict: boolean;
  onStep?: OnStep;
  kunit?: KunitSpec;
  /** The boot config family of a series check that boots (minimal, defconfig or a .config file); false: no boot. */
  boot?: string | false;
  log?: (line: string) => void;
}

/** One run of the checks over a range: what every check reads, and what they share. */
export interface RangeRun {
  opts: RangeOptions;
  commits: Commit[];
  /** Each commit as git format-patch mails it. */
  mails: string[];
  /** Does the tree have history (git log of a file says something)? */
  history: boolean;
  /** The per-patch builds and proofs, made once for every check that reads them. */
  built(): Promise<Pick<BuiltRange, 'reports' | 'proofs' | 'compiler'> & Partial<BuiltRange>>;
  /** Problems of the series as a whole (a check adds them). */
  seriesProblems: Problem[];
  /** Author and Signed-off-by addresses that are no person's. */
  identity: Set<string>;
  step: OnStep;
}

/** What a series asks of its checks, as the plan sees it before the series exists (no range) or after (a range). */
export interface PlanContext {
  tree: KernelTree;
  /** The series' name, as purposes name it. */
  series: string;
  /** The recipe that makes it, if kseries does. */
  recipe?: string;
  /** The commits, once the series exists. */
  range?: { base: string; tip: string };
  config: string;
  compilers?: string[];
  arches?: string[];
  kunit?: KunitSpec;
  boot?: string | false;
  build: boolean;
  /** Someone else's code (review): built under bubblewrap, in folders of its own. */
  sandbox?: boolean;
  /** No builds of the other side of the symbols a patch's lines depend on (--no-sides). */
  noSides?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface PatchCheck<F extends keyof PatchFindings = keyof PatchFindings> {
  id: string;
  /** The field of a patch's JSON report that holds its result. */
  field: F;
  /** What its findings can be. */
  severities: readonly (Severity | 'check')[];
  /** Its columns in the text table. */
  columns: { title: string; width: number; cell(p: PatchFindings): string }[];
  /** Whether it needs the patch applied (a build does; checkpatch and the message rules read the mail). */
  needsApply: boolean;
  /** Whether check's live view shows it as a step of each patch; such a check reports through `RangeRun.step`. */
  live: boolean;
  run(r: RangeRun): Promise<PatchFindings[F][]>;
  /** Something that fails the patch (exit 1). */
  failed(p: PatchFindings): boolean;
  /** Anything worth a line in the report. */
  findings(p: PatchFindings): boolean;
  /** The report's detail lines for the patch, indented. */
  details(p: PatchFindings): string[];
  /** A few words for a one-line summary ("build failed"), or nothing when it found nothing. */
  headline(p: PatchFindings): string | undefined;
  /** What a reply to the author quotes: findings that are the author's to fix. */
  quote(p: PatchFindings): Quoted[];
  /** Its entry in b4's review-CI output, or none when it did not run. */
  b4(p: PatchFindings, config: string): B4Check | undefined;
  /** What emit's cover letter states of a clean check, or nothing. */
  statement(r: CheckReport): string | undefined;
  /** What emit states below one patch's `---` of what it found in that patch (built how, what it costs), or nothing. */
  patchStatement?(p: PatchFindings): string | undefined;
  /** The builds it needs, decided before any is made (the build plan). */
  kernels?(c: PlanContext): Promise<KernelNeed[]>;
}

/**
 * The results of series checks, by JSON field; each series check adds its own field to this interface (TypeScript
 * declaration merging), so reports keep their types without the registry knowing the checks.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface SeriesResults {}

export interface SeriesResult {
  ok: boolean;
}

export interface SeriesCheck<K extends keyof SeriesResults = keyof SeriesResults> {
  id: string;
  field: K;
  /** Whether the range asks for it (a kunitconfig was given; the series adds a static key). */
  wanted(r: RangeRun): Promise<boolean>;
  run(r: RangeRun): Promise<NonNullable<SeriesResults[K]>>;
  /** The report's lines. */
  format(result: NonNullable<SeriesResults[K]>): string[];
  /** A few words for a one-line summary. */
  headline(result: NonNullable<SeriesResults[K]>): string;
  /** What emit's cover letter states of it when it passed. */
  statement(result: NonNullable<SeriesResults[K]>): string;
  /** The builds it needs, decided before any is made (the build plan). */
  kernels?(c: PlanContext): Promise<KernelNeed[]>;
}

const PATCH_CHECKS: PatchCheck[] = [];
const SERIES_CHECKS: SeriesCheck[] = [];

/** Register a check; the same id again keeps the first. Patch checks keep their registration order (the table's). */
export function registerPatchCheck<F extends keyof PatchFindings>(c: PatchCheck<F>): void {
  if (!PATCH_CHECKS.some((x) => x.id === c.id)) PATCH_CHECKS.push(c as unknown as PatchCheck);
}

export function registerSeriesCheck<K extends keyof SeriesResults>(c: SeriesCheck<K>): void {
  if (!SERIES_CHECKS.some((x) => x.id === c.id)) SERIES_CHECKS.push(c as unknown as SeriesCheck);
}

export function patchChecks(): readonly PatchCheck[] {
  return PATCH_CHECKS;
}

export function seriesChecks(): readonly SeriesCheck[] {
  return SERIES_CHECKS;
}

/** The series checks' results a report holds, with their checks. */
export function seriesResultsOf(r: SeriesResults): { check: SeriesCheck; result: SeriesResult }[] {
  const out: { check: SeriesCheck; result: SeriesResult }[] = [];
  for (const check of SERIES_CHECKS) {
    const result = (r as Record<string, SeriesResult | undefined>)[check.field];
    if (result) out.push({ check, result });
  }
  return out;
}

export function patchFailed(p: PatchFindings): boolean {
  return PATCH_CHECKS.some((c) => c.failed(p));
}

export function patchHasFindings(p: PatchFindings): boolean {
  return PATCH_CHECKS.some((c) => c.findings(p));
}
