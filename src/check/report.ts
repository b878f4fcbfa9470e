// What `kseries check` finds, in DESIGN's review contract (`patches`), plus series-level problems.
import { configLine, type ConfigAsBuilt } from '../build/config-line.js';
import type { ObjectSize } from '../object-code/sizes.js';
import type { ObjectProof } from './proofs/types.js';
import type { CheckpatchResult } from '../tools/kernel-scripts.js';
import { patchChecks, patchHasFindings, seriesResultsOf, type PatchFindings, type SeriesResults } from './plugins.js';
import type { Problem } from './rules.js';

export { patchFailed, patchHasFindings } from './plugins.js';

export interface BuildReport {
  status: 'ok' | 'failed' | 'skipped';
  objects: string[];
  errors: string[];
  /** New W=1 warnings, each as the compiler printed it. */
  newWarnings: string[];
  /** Objects the patch touches that this config cannot build, and why. */
  notBuilt: { object: string; reason: string }[];
  /**
   * Each object built, with the builds that made it, its own first ("x86_64 defconfig, ccache gcc + sparse",
   * "arm64 defconfig, ccache aarch64-linux-gnu-gcc" for an arch/arm64 file or a driver x86-64 cannot build), then the
   * bots' others (clang, --arches), and any of those that could not build it ("i386 defconfig, gcc: not built: ...").
   */
  builtOn?: Record<string, string[]>;
  /** Why the build was skipped, or how header dependents were sampled. */
  note?: string;
  /** The allocated sections and strings of each object the x86-64 gcc build made, before and after the patch. */
  sizes?: ObjectSize[];
}

export interface PatchReport {
  index: number;
  commit: string;
  subject: string;
  build: BuildReport;
  /** Object-code proofs of recipes (a flag → static key conversion: the jump labels and their NOPs). */
  proofs: ObjectProof[];
  checkpatch: CheckpatchResult;
  problems: Problem[];
  /** The rules of the tree the range goes to (its limit, column limit, subject tag), each citing where it is written. */
  tree: Problem[];
}

/** A build besides the x86-64 gcc one: another architecture, or clang. */
export interface OtherBuild {
  config: ConfigAsBuilt;
  compiler: string;
  /**
   * Why a build of the other side or of another machine exists: each flipped symbol with the line that depends on it
   * ("CONFIG_PM=n: drivers/bus/x.c:120 uses usage_count, declared only under #ifdef CONFIG_PM (include/linux/pm.h:698)").
   */
  why?: string[];
  /** The commands that make its .config and objects again in a clean tree (KernelBuild.reproduce). */
  reproduce?: string[];
}

/** The report of a range; each series check that ran adds its field (`kunit`, `boot`: SeriesResults). */
export interface CheckReport extends SeriesResults {
  series: { name: string | null; version: number | null; base: string; tip: string; patches: number };
  config: string;
  /** The .config the patches were built with, against its base (when anything was built). */
  configAsBuilt?: ConfigAsBuilt;
  /** The builds for other architectures that built some objects (BuildReport.builtOn names which). */
  otherBuilds?: OtherBuild[];
  /** The builds asked for (--compilers, --arches) that cannot run on this machine, each with why and its package. */
  buildsNotRun?: string[];
  compiler: string;
  /** When the same trees and configuration were built before (ISO time): those builds and proofs, kept. */
  buildsKeptFrom?: string;
  patches: PatchReport[];
  /** Problems of the series as a whole (cover letter, length, repeated subjects). */
  problems: Problem[];
  /**
   * Author and Signed-off-by addresses that are no person's (a reserved domain, noreply): findings (the verdict is
   * never clean with one) that fail nothing, since they are the user's own identity; `send --send` refuses them
   * without --force.
   */
  identity?: string[];
  verdict: 'clean' | 'findings';
  /** True when something fails the check: a build failure, a checkpatch ERROR or an error-level problem. */
  failed: boolean;
}

/** The final table and details, as text; findings of new warnings are shown the way the kernel test robot does. */
export function formatReport(r: CheckReport): string {
  const out: string[] = [];
  const columns = patchChecks().flatMap((c) => c.columns);
  out.push(`${pad('#', 4)}${columns.map((c) => pad(c.title, c.width)).join('')}subject`);
  for (const p of r.patches) out.push(`${pad(String(p.index), 4)}${columns.map((c) => pad(c.cell(p), c.width)).join('')}${p.subject}`);
  for (const p of r.patches) {
    if (!patchHasFindings(p) && !p.build.note && p.proofs.length === 0) continue;
    out.push('', `[${p.index}/${r.patches.length}] ${p.subject}`, ...patchDetails(p));
  }
  for (const x of r.problems) out.push(`series ${x.severity}: ${x.kind}: ${x.message}`);
  for (const w of r.identity ?? []) out.push(`warning: ${w}`);
  if (r.configAsBuilt) out.push('', `built with ${configLine(r.configAsBuilt)}${keptNote(r.buildsKeptFrom)}`);
  for (const o of r.otherBuilds ?? []) out.push(`and with ${configLine(o.config)}, ${o.compiler}`, ...sideDetails(o));
  for (const m of r.buildsNotRun ?? []) out.push(`not built with ${m}`);
  for (const { check, result } of seriesResultsOf(r)) out.push('', ...check.format(result as never));
  out.push('', `${r.failed ? 'FAILED' : r.verdict === 'clean' ? 'clean' : 'passed with findings'}: ${r.patches.length} patch${r.patches.length === 1 ? '' : 'es'} on ${r.series.base.slice(0, 12)}, ${r.config}, ${r.compiler}, W=1`);
  return out.join('\n');
}

/**
 * A build of the other side or of another machine as the robot words its reports: the configuration and compiler,
 * why it was built, and how to make it again.
 */
export function sideLines(o: OtherBuild): string[] {
  return [`config: ${configLine(o.config)}`, `compiler: ${o.compiler}`, ...sideDetails(o)];
}

/** Why a build of the other side exists and how to make it again, indented under its configuration. */
function sideDetails(o: OtherBuild): string[] {
  return [...(o.why ?? []).map((w) => `  because ${w}`), ...(o.reproduce ?? []).map((l, i) => `  ${i ? '          ' : 'reproduce:'} ${l}`)];
}

/** A cell of the text tables, padded to its column (check and review alike). */
export function pad(s: string, n: number): string {
  return s.length >= n ? `${s} ` : s + ' '.repeat(n - s.length);
}

/** A patch's findings, indented, as the report's detail section shows them (check and review alike). */
export function patchDetails(p: PatchFindings): string[] {
  return patchChecks().flatMap((c) => c.details(p));
}

/** A result read from kseries' cache says when it was made: the same trees, configuration and scripts then. */
export function keptNote(at: string | undefined): string {
  return at ? ` [kept: the same ran at ${at.replace('T', ' ').slice(0, 16)}]` : '';
}
