import { formatHotness } from '../measure/hotness.js';
import { measure } from '../recipes/static-key/measure.js';
import { scanStaticKeys } from '../recipes/static-key/tree-scan/static-keys.js';
import type { FlagCandidate } from '../recipes/static-key/scan.js';
import type { Hits, MeasuredKinds } from '../recipes/static-key/measure.js';
import { openTree } from '../tree/tree.js';
import { printJson, progressReporter, type GlobalOptions, type Io } from './io.js';

export async function scan(io: Io, g: GlobalOptions, a: { paths: string[]; rev?: string; measure?: { config: string; workload: string; candidates: MeasuredKinds } }): Promise<number> {
  const tree = await openTree({ cwd: io.cwd, tree: g.tree, env: io.env });
  const candidates: (FlagCandidate & { hits?: Hits; notMeasured?: string })[] = await scanStaticKeys(tree, a.paths, a.rev, io.env);
  if (a.measure) {
    const m = await measure({ tree, ...a.measure, rev: a.rev, env: io.env, log: (l) => io.err(l), progress: progressReporter(io) });
    const byFlag = new Map(m.candidates.map((c) => [`${c.file}:${c.variable}`, c]));
    for (const c of candidates) {
      const found = byFlag.get(`${c.file}:${c.variable}`);
      if (found?.hits) c.hits = found.hits;
      else if (found) c.notMeasured = found.notMeasured;
    }
  }
  if (g.json) {
    printJson(io, { candidates });
    return 0;
  }
  const count = (v: string) => candidates.filter((c) => c.verdict === v).length;
  for (const c of candidates.filter((x) => x.verdict !== 'reject')) {
    const rate = c.hits ? `, ${formatHotness(c.hits)} in ${c.hits.workload}, ${c.hits.boot ?? '-'} at boot` : c.notMeasured ? `, not measured: ${c.notMeasured}` : '';
    io.out(`${c.verdict.padEnd(7)}${c.file}:${c.line} ${c.variable} (${c.reads.length} reads, ${c.writes.length} writes${rate})`);
    if (c.verdict === 'manual') for (const r of c.reasons) io.out(`         ${r}`);
  }
  io.out(`${candidates.length} flags: ${count('auto')} auto, ${count('manual')} manual, ${count('reject')} rejected (--json lists the reasons of all)`);
  return 0;
}
