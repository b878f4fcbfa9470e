// b4's review-CI contract: one patch in, an array of { tool, status: pass|warn|fail, summary, details } out: whether
// it applies, then each registered check's entry. Pure.
import { patchChecks, type B4Check } from '../check/plugins.js';
import type { ReviewReport } from './review.js';

export type { B4Check } from '../check/plugins.js';

export function b4Checks(r: ReviewReport): B4Check[] {
  const p = r.patches[0];
  if (!p) return [{ tool: 'kseries', status: 'fail', summary: 'no patch in the message', details: '' }];
  const out: B4Check[] = [];
  // Alone, a later patch of a series may need the ones before it: not applying is a warning here, not a failure.
  out.push(
    p.applied
      ? { tool: 'kseries', status: 'pass', summary: `applies on ${r.series.base.slice(0, 12)}`, details: '' }
      : { tool: 'kseries', status: 'warn', summary: `does not apply on ${r.series.base.slice(0, 12)} on its own`, details: [p.problems[0]?.message ?? '', ...p.failures.map((f) => `${f.file} ${f.header}: ${f.kind}`)].join('\n').trim() },
  );
  for (const c of patchChecks()) {
    const entry = c.b4(p, r.config);
    if (entry) out.push(entry);
  }
  return out;
}
