// What `kseries check` finds, in DESIGN's review contract (`patches`), plus series-level problems.
import { configLine, type ConfigAsBuilt } from '../build/config-line.js';
import { sizeLine, type ObjectSize } from '../object-code/sizes.js';
import type { ObjectProof } from './proofs/types.js';
import type { CheckpatchResult } from '../tools/kernel-scripts.js';
import { kunitKernelLabel } from '../boot/kunit.js';
import type { BootReport } from './boot.js';
import type { KunitReport } from './kunit.js';
import type { Problem } from './rules.js';

export interface BuildReport {
  status: 'ok' | 'failed' | 'skipped';
  objects: string[];
  errors: string[];
  /** New W=1 warnings, each as the compiler printed it. */
  newWarnings: string[];
  /** Objects the patch touches that this config cannot build, and why. */
  notBuilt: { object: string; reason: string }[];
  /** Why the build was skipped, or how header dependents were sampled. */
  note?: string;
  /** The allocated sections of each object a proof read, before and after the patch (same build, same config). */
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
}

export interface CheckReport {
  series: { name: string | null; version: number | null; base: string; tip: string; patches: number };
  config: string;
  /** The .config the patches were built with, against its base (when anything was built). */
  configAsBuilt?: ConfigAsBuilt;
  compiler: string;
  /** When the same trees and configuration were built before (ISO time): those builds and proofs, kept. */
  buildsKeptFrom?: string;
  patches: PatchReport[];
  /** Problems of the series as a whole (cover letter, length, repeated subjects). */
  problems: Problem[];
  /**
   * Author and Signed-off-by addresses that are no person's (a reserved domain, noreply): warned about, not a
   * finding, since they are the user's own identity; `send --send` refuses them without --force.
   */
  identity?: string[];
  /** KUnit on the base and on the series, when the recipe or --kunit asks for it. */
  kunit?: KunitReport;
  /** The boot of a static-key series under lockdep with its writers exercised. */
  boot?: BootReport;
  verdict: 'clean' | 'findings';
  /** True when something fails the check: a build failure, a checkpatch ERROR or an error-level problem. */
  failed: boolean;
}

/** What a finding is made of: a patch's build, proofs, checkpatch and problems. */
type Findings = Pick<PatchReport, 'build' | 'proofs' | 'checkpatch' | 'problems'>;

export function patchFailed(p: Findings): boolean {
  return p.build.status === 'failed' || p.proofs.some((x) => !x.ok) || p.checkpatch.errors > 0 || p.problems.some((x) => x.severity === 'error');
}

export function patchHasFindings(p: Findings): boolean {
  return patchFailed(p) || p.build.newWarnings.length > 0 || p.checkpatch.warnings + p.checkpatch.checks > 0 || p.problems.length > 0 || p.build.notBuilt.length > 0;
}

/** The final table and details, as text; findings of new warnings are shown the way the kernel test robot does. */
export function formatReport(r: CheckReport): string {
  const out: string[] = [];
  const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
  out.push(`${pad('#', 4)}${pad('build', 9)}${pad('warn', 6)}${pad('proof', 7)}${pad('checkpatch', 12)}${pad('rules', 7)}subject`);
  for (const p of r.patches) {
    const cp = `${p.checkpatch.errors}E ${p.checkpatch.warnings}W ${p.checkpatch.checks}C`;
    const proof = p.proofs.length === 0 ? '-' : p.proofs.every((x) => x.ok) ? 'ok' : 'FAIL';
    out.push(`${pad(String(p.index), 4)}${pad(p.build.status, 9)}${pad(String(p.build.newWarnings.length), 6)}${pad(proof, 7)}${pad(cp, 12)}${pad(String(p.problems.length), 7)}${p.subject}`);
  }
  for (const p of r.patches) {
    if (!patchHasFindings(p) && !p.build.note && p.proofs.length === 0) continue;
    out.push('', `[${p.index}/${r.patches.length}] ${p.subject}`, ...patchDetails(p));
  }
  for (const x of r.problems) out.push(`series ${x.severity}: ${x.kind}: ${x.message}`);
  for (const w of r.identity ?? []) out.push(`warning: ${w}`);
  if (r.configAsBuilt) out.push('', `built with ${configLine(r.configAsBuilt)}${kept(r.buildsKeptFrom)}`);
  if (r.kunit) out.push('', ...formatKunit(r.kunit));
  if (r.boot) out.push('', ...formatBoot(r.boot));
  out.push('', `${r.failed ? 'FAILED' : r.verdict === 'clean' ? 'clean' : 'passed with findings'}: ${r.patches.length} patch${r.patches.length === 1 ? '' : 'es'} on ${r.series.base.slice(0, 12)}, ${r.config}, ${r.compiler}, W=1`);
  return out.join('\n');
}

/** A patch's findings, indented, as the report's detail section shows them (check and review alike). */
export function patchDetails(p: Omit<PatchReport, 'commit'>): string[] {
  const out: string[] = [];
  if (p.build.note) out.push(`  note: ${p.build.note}`);
  if (p.build.errors.length) out.push('  build errors:', ...p.build.errors.map((e) => `    ${e}`));
  if (p.build.newWarnings.length) out.push('  All warnings (new ones prefixed by >>):', ...p.build.newWarnings.map((w) => `  >> ${w}`));
  for (const n of p.build.notBuilt) out.push(`  not build-tested: ${n.object}: ${n.reason}`);
  for (const x of p.proofs) {
    out.push(`  proof ${x.ok ? 'ok' : 'FAILED'}: ${x.object}: ${x.claim}`, ...x.sites.map((s) => `    ${s}`), ...x.errors.map((e) => `    error: ${e}`));
  }
  for (const z of p.build.sizes ?? []) out.push(`  size ${z.object}: ${sizeLine(z)}`);
  for (const f of p.checkpatch.findings) out.push(`  checkpatch ${f.level.toUpperCase()}:${f.type}: ${f.file ? `${f.file}:${f.line}: ` : ''}${f.message}${f.fromTree ? ` (from the tree, not the patch: ${f.fromTree})` : ''}`);
  for (const x of p.problems) out.push(`  ${x.severity}: ${x.kind}: ${x.message}`);
  return out;
}

/** A result read from kseries' cache says when it was made: the same trees, configuration and scripts then. */
function kept(at: string | undefined): string {
  return at ? ` [kept: the same ran at ${at.replace('T', ' ').slice(0, 16)}]` : '';
}

/** The boot of the series: the statement, what each writer is, and the console lines that failed it. */
export function formatBoot(b: BootReport): string[] {
  const out = [`boot ${b.ok ? 'ok' : 'FAILED'}: ${b.statement} (${b.seconds} s; ${b.accelWhy})${kept(b.keptFrom)}`];
  for (const w of b.writers) out.push(`  writer ${w.file}:${w.line} ${w.function}(): ${w.runs === 'param' ? `runs with ${w.param}` : w.runs === 'initcall' ? 'an initcall: runs on every boot' : 'not run by booting'}`);
  for (const t of b.toggles ?? []) out.push(`  interface ${t.path} (${t.where}): ${t.ok ? 'reads and takes what it did before' : 'differs from what it was'}`);
  for (const f of b.failures) out.push(`  | ${f}`);
  if (b.consoleLog) out.push(`  console log: ${b.consoleLog}`);
  return out;
}

/** KUnit on the base and the series, the accelerator and why, and the census of the series' test kernel. */
export function formatKunit(k: KunitReport): string[] {
  const run = (what: string, x: KunitReport['base']) =>
    `  ${what} ${x.commit.slice(0, 12)}: ${x.status === 'build-failed' ? 'the test kernel does not build' : `${x.passed}/${x.tests.length} passed${x.failed ? `, ${x.failed} failed` : ''}${x.skipped ? `, ${x.skipped} skipped` : ''}`} (build ${x.buildSeconds} s${x.compiler ? ` with ${x.compiler}` : ''}, run ${x.runSeconds} s)`;
  const out = [`KUnit ${k.ok ? 'ok' : 'FAILED'} (x86_64 ${kunitKernelLabel(k.kernel)} under QEMU with ${k.accel.toUpperCase()}: ${k.accelWhy}${k.kernel.why ? `; ${k.kernel.why}` : ''})${kept(k.keptFrom)}:`, run('base', k.base), run('series', k.series)];
  if (k.added.length) out.push(`  added by the series: ${k.added.join(', ')}`);
  for (const p of k.problems) out.push(`  error: ${p}`);
  for (const l of [...(k.base.log ?? []), ...(k.series.log ?? [])].slice(-10)) out.push(`    | ${l}`);
  const c = k.census;
  if (c) {
    out.push(`  census of the series' test kernel: ${c.sites} instructions in ${c.functions} functions of ${c.objects} objects (${c.seconds} s):`);
    out.push(`    a post_handler probe may move on ${c.move}, stays on ${c.stay}: ${Object.entries(c.stayBy).sort((a, b) => b[1]! - a[1]!).map(([r, n]) => `${r} ${n}`).join(', ')}`);
    out.push(`    the series' x86 rule moves ${c.x86.move}; of those the object code keeps ${c.x86.disagree}: ${Object.entries(c.x86.disagreeBy).map(([r, n]) => `${r} ${n}`).join(', ') || 'none'}`);
  }
  return out;
}
