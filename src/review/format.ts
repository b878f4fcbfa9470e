// The review as text for the terminal: the series, a table per patch, then what each finding is. Pure.
import { patchChecks, seriesResultsOf } from '../check/plugins.js';
import { pad, patchDetails, sideLines } from '../check/report.js';
import { isFinding } from '../check/rules.js';
import { reviewFindings, type ReviewReport } from './review.js';

export function formatReview(r: ReviewReport): string {
  const s = r.series;
  const tags = [s.rfc ? 'RFC' : '', s.resend ? 'RESEND' : '', ...s.prefixes].filter(Boolean).join(' ');
  const out = [
    `series: ${s.subject} (v${s.version}${tags ? `, ${tags}` : ''}), ${s.patches} patch${s.patches === 1 ? '' : 'es'}${s.announced > s.patches ? ` of ${s.announced}` : ''}${s.cover ? ' and a cover letter' : ', no cover letter'}${s.replies ? `, ${s.replies} repl${s.replies === 1 ? 'y' : 'ies'}` : ''}`,
    `base:   ${s.base.slice(0, 12)} (${s.baseFrom === 'base-commit' ? 'its base-commit' : s.baseFrom === '--base' ? 'from --base' : "the tree's HEAD: the series names no base it has"}); ${r.patches.some((p) => p.applied) ? `applied as ${s.branch}` : 'nothing applied'}`,
    `builds: ${r.compiler === 'none' ? 'none (--no-build)' : `${r.config}, ${r.compiler}, W=1, ${r.sandbox}`}`,
    '',
  ];
  // A check that needs the patch applied has nothing to show for one that did not apply.
  const columns = patchChecks().flatMap((c) => c.columns.map((col) => ({ ...col, needsApply: c.needsApply })));
  out.push(`${pad('#', 4)}${pad('applied', 9)}${columns.map((c) => pad(c.title, c.width)).join('')}subject`);
  for (const p of r.patches) {
    out.push(`${pad(String(p.index), 4)}${pad(p.applied ? 'yes' : 'NO', 9)}${columns.map((c) => pad(!p.applied && c.needsApply ? '-' : c.cell(p), c.width)).join('')}${p.subject}`);
  }
  // Patches after one that failed often say the same (not applied, and why): one block for a run of them.
  const blocks: { first: number; last: number; subject: string; lines: string[] }[] = [];
  for (const p of r.patches) {
    const lines = patchDetails(p);
    for (const f of p.failures) {
      lines.push(`  ${f.file}${f.header ? ` ${f.header}` : ''}: ${f.kind}`, ...(f.differs ?? []).map((d) => `    line ${d.line}: expected "${d.expected}", found "${d.found}"`));
    }
    for (const t of p.trailers) lines.push(`  trailer from a reply: ${t}`);
    if (lines.length === 0 || (lines.length === 1 && /^  note:/.test(lines[0]!) && p.applied)) continue;
    const prev = blocks.at(-1);
    if (prev && prev.last === p.index - 1 && !p.applied && prev.lines.join('\n') === lines.join('\n')) prev.last = p.index;
    else blocks.push({ first: p.index, last: p.index, subject: p.subject, lines });
  }
  for (const b of blocks) {
    const head = b.first === b.last ? `[${b.first}/${r.patches.length}] ${b.subject}` : `[${b.first}-${b.last}/${r.patches.length}] ${b.last - b.first + 1} patches, each:`;
    out.push('', head, ...b.lines);
  }
  for (const x of r.problems) out.push(`series ${x.severity}: ${x.kind}: ${x.message}`);
  for (const o of (r.otherBuilds ?? []).filter((b) => b.why)) out.push('', ...sideLines(o));
  for (const { check, result } of seriesResultsOf(r)) out.push('', ...check.format(result as never));
  const flagged = r.patches.filter(reviewFindings).length;
  const problems = r.problems.filter(isFinding).length;
  out.push('', r.verdict === 'clean' ? `clean: ${r.patches.length} patches applied and checked` : `findings: ${flagged} of ${r.patches.length} patches, ${problems} series problem${problems === 1 ? '' : 's'}`);
  return out.join('\n');
}
