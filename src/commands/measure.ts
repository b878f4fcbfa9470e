// `kseries measure`: boot the tree and count how often each static-key candidate's test runs, per event and per second.
import { byHotness, formatPerEvent, PATH_WORDS } from '../measure/hotness.js';
import { measure, type MeasuredKinds, type MeasureReport } from '../recipes/static-key/measure.js';
import { openTree } from '../tree/tree.js';
import { printJson, progressReporter, type GlobalOptions, type Io } from './io.js';

export interface MeasureArgs {
  config: string;
  workload: string;
  rev?: string;
  fresh: boolean;
  candidates: MeasuredKinds;
}

export async function measureCommand(io: Io, g: GlobalOptions, a: MeasureArgs): Promise<number> {
  const tree = await openTree({ cwd: io.cwd, tree: g.tree, env: io.env });
  const report = await measure({ tree, ...a, env: io.env, log: (l) => io.err(l), progress: progressReporter(io) });
  if (g.json) printJson(io, report);
  else io.out(formatMeasure(report));
  return report.problems.length > 0 ? 1 : 0;
}

/** The hottest first; what was not measured counted by reason. */
export function formatMeasure(r: MeasureReport): string {
  const out: string[] = [];
  const ws = r.boot.workloadSeconds;
  out.push(`${r.config} kernel at ${r.commit.slice(0, 12)}, booted under ${r.accel.toUpperCase()} in ${r.boot.seconds} s (${r.accelWhy})${r.cached ? ', cached' : ''}`);
  out.push(`workload ${r.workload}${ws !== undefined ? `: ${ws} s` : ''}; console log: ${r.boot.consoleLog}`);
  for (const p of r.problems) out.push(`problem: ${p}`);
  const phases = r.boot.phases.map((p) => `${p.name} ${p.seconds} s${p.status ? ` (exit ${p.status})` : ''}`).join(', ');
  if (phases) out.push(`phases: ${phases}`);
  const refs = r.references.map((x) => (x.phases ? `${x.name} ${Object.values(x.phases).reduce((a, b) => a + b, 0)} (${x.symbol})` : `${x.name}: not counted, ${x.notMeasured}`));
  if (refs.length) out.push(`reference events over the workload: ${refs.join(', ')}`);
  const measured = r.candidates.filter((c) => c.hits).sort((x, y) => byHotness(x.hits, y.hits) || (y.hits!.boot ?? -1) - (x.hits!.boot ?? -1));
  out.push('');
  out.push(`${'path'.padEnd(19)} ${'per event'.padEnd(32)} ${'per s'.padStart(9)} ${'boot'.padStart(7)}  verdict flag (sites)`);
  for (const c of measured) {
    const h = c.hits!;
    const n = (x: number | null) => (x === null ? '-' : String(x));
    const path = h.path ? PATH_WORDS[h.path] : '-';
    out.push(`${path.padEnd(19)} ${(h.perEvent ? formatPerEvent(h.perEvent) : '-').padEnd(32)} ${n(h.perSecond).padStart(9)} ${n(h.boot).padStart(7)}  ${c.verdict.padEnd(7)} ${c.file}:${c.line} ${c.variable} (${c.sites.filter((s) => !s.notMeasured).map((s) => s.site).join(', ')})`);
  }
  const why = new Map<string, number>();
  for (const c of r.candidates.filter((x) => !x.hits)) {
    const reason = c.notMeasured!.replace(/^\S+\.o not built in \S+.*$/, 'object not built in this config').replace(/^no test of .*$/, 'no conditional-jump test in the object code').replace(/^the kernel refused a kprobe.*$/, 'the kernel refused the kprobe');
    why.set(reason, (why.get(reason) ?? 0) + 1);
  }
  out.push('');
  out.push(`${measured.length} of ${r.candidates.length} ${r.candidatesMeasured === 'auto' ? 'auto' : 'auto/manual'} candidates measured; not measured (--json names each):`);
  for (const [reason, n] of [...why].sort((a, b) => b[1] - a[1])) out.push(`  ${String(n).padStart(5)}  ${reason}`);
  return out.join('\n');
}
