// b4's review-CI contract: one patch in, an array of { tool, status: pass|warn|fail, summary, details } out. Pure.
import type { ReviewReport } from './review.js';

export interface B4Check {
  tool: 'kseries';
  status: 'pass' | 'warn' | 'fail';
  summary: string;
  details: string;
}

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
  const cp = p.checkpatch;
  out.push({
    tool: 'kseries',
    status: cp.errors ? 'fail' : cp.warnings + cp.checks ? 'warn' : 'pass',
    summary: `checkpatch.pl: ${cp.errors} errors, ${cp.warnings} warnings, ${cp.checks} checks`,
    details: cp.findings.map((f) => `${f.level.toUpperCase()}:${f.type}: ${f.file ? `${f.file}:${f.line}: ` : ''}${f.message}`).join('\n'),
  });
  const rules = p.problems.filter((x) => x.kind !== 'not-applied');
  out.push({
    tool: 'kseries',
    status: rules.some((x) => x.severity === 'error') ? 'fail' : rules.length ? 'warn' : 'pass',
    summary: rules.length ? `commit message and recipients: ${rules.length} problem${rules.length > 1 ? 's' : ''}` : 'commit message and recipients: ok',
    details: rules.map((x) => `${x.severity}: ${x.kind}: ${x.message}`).join('\n'),
  });
  if (p.build.status !== 'skipped' || p.build.objects.length) {
    const b = p.build;
    out.push({
      tool: 'kseries',
      status: b.status === 'failed' ? 'fail' : b.newWarnings.length ? 'warn' : 'pass',
      summary: `build (${r.config}, W=1): ${b.status}${b.newWarnings.length ? `, ${b.newWarnings.length} new warnings` : ''}`,
      details: [...b.errors, ...b.newWarnings.map((w) => `>> ${w}`)].join('\n'),
    });
  }
  return out;
}
