// The review mails: one reply per patch with findings, quoting only the hunks concerned, and a one-line summary reply
// to the cover letter. What maintainers ask of review bots: to the author only unless --reply-all, no mail for a
// clean patch, never a Reviewed-by/Acked-by/Tested-by on the tool's behalf. Pure.
import { sideLines } from '../check/report.js';
import { parsePatch, type StructuredPatch } from 'diff';
import type { Address, Message } from '../mail/mailbox.js';
import { attribution, quote, writeReply } from '../mail/reply.js';
import { patchChecks, seriesResultsOf, type Quoted } from '../check/plugins.js';
import { isFinding } from '../check/rules.js';
import { diffPart } from './diagnose.js';
import type { Intake } from './intake.js';
import { reviewFindings, type ReviewPatch, type ReviewReport } from './review.js';

export interface ReplyMail {
  /** File name in out/review/<series>/v<N>/. */
  name: string;
  /** The patch it answers; 0 for the cover letter. */
  index: number;
  text: string;
}

export interface RepliesOptions {
  from: Address;
  replyAll: boolean;
  date: Date;
}

const SIGNATURE = '-- \nkseries review: an automated check (build, W=1 warnings, checkpatch.pl, commit-message rules,\nget_maintainer.pl). It gives no Reviewed-by, Acked-by or Tested-by; a person does that.';

export function writeReplies(report: ReviewReport, intake: Intake, opts: RepliesOptions): ReplyMail[] {
  const out: ReplyMail[] = [];
  const flagged = report.patches.filter(reviewFindings);
  for (const p of flagged) {
    const mail = intake.patches.find((x) => x.index === p.index);
    // Not applied only because an earlier patch failed, and nothing of its own to fix: the cover reply says it.
    if (!mail || (!p.applied && p.failures.length === 0 && p.problems[0]?.kind === 'not-applied' && findingsOf(p).length === 0)) continue;
    out.push({ name: `${String(p.index).padStart(4, '0')}-reply.eml`, index: p.index, text: writeReply(mail.message, patchReplyBody(p, report, mail.message), opts) });
  }
  if (intake.cover) {
    out.unshift({ name: '0000-cover-reply.eml', index: 0, text: writeReply(intake.cover, `Hi ${firstName(intake.cover.from)},\n\n${summaryLine(report)}\n\n${SIGNATURE}`, opts) });
  }
  return out;
}

/** "kseries: 2 of 5 patches have findings (2/5: build failed; 4/5: 1 checkpatch error); base 0123456789ab." */
export function summaryLine(r: ReviewReport): string {
  const flagged = r.patches.filter(reviewFindings);
  const n = r.series.announced;
  const checks = r.compiler === 'none' ? 'passed checkpatch, the message rules and the recipients check (not built)' : 'built with no new warning and passed checkpatch, the message rules and the recipients check';
  const problems = r.problems.filter(isFinding);
  const failedChecks = seriesResultsOf(r).filter((x) => !x.result.ok).map(({ check, result }) => check.headline(result as never));
  if (flagged.length === 0 && problems.length === 0 && failedChecks.length === 0) return `kseries: all ${n} patch${n === 1 ? '' : 'es'} applied on ${r.series.base.slice(0, 12)}, ${checks}.`;
  const what = flagged.map((p) => `${p.index}/${n}: ${headline(p)}`).join('; ');
  const seriesFindings = [...problems.map((x) => x.kind), ...failedChecks];
  const series = seriesFindings.length ? `${flagged.length ? '; ' : ''}series: ${seriesFindings.join(', ')}` : '';
  return `kseries: ${flagged.length} of ${n} patches have findings (${what}${series}); base ${r.series.base.slice(0, 12)}.`;
}

function headline(p: ReviewPatch): string {
  if (!p.applied) return p.problems[0]?.message.split(':')[0] ?? 'not applied';
  return patchChecks().map((c) => c.headline(p)).filter(Boolean).join(', ');
}

/**
 * Each finding with where it points (file and new line), so it can stand under the hunk it is about: why the patch
 * did not apply, then what each check quotes.
 */
function findingsOf(p: ReviewPatch): Quoted[] {
  const out: Quoted[] = [];
  for (const f of p.failures) {
    const lines = [`The patch does not apply: ${f.message}`];
    for (const d of f.differs ?? []) lines.push(`  line ${d.line}: the patch expects: ${d.expected}`, `  ${' '.repeat(String(d.line).length + 5)}the tree has:      ${d.found}`);
    out.push({ file: f.file, line: f.hunk > 0 ? -f.hunk : undefined, text: lines });
  }
  // The fate is the reply's first line (fateOf); here only what the author is to fix.
  for (const c of patchChecks()) out.push(...c.quote(p));
  return out;
}

/** What happened to the patch, first: applied and checked, already in the tree, or why it did not apply. */
function fateOf(p: ReviewPatch, r: ReviewReport, findings: number): string {
  const base = r.series.base.slice(0, 12);
  if (p.applied) return `kseries applied this patch on ${base}${r.series.patches > 1 ? ` with the ones before it` : ''} and checked it; it found:`;
  const why = p.problems[0]?.message ?? 'it did not apply';
  return `kseries did not apply this patch on ${base}: ${why.replace(/^not applied: /, '')}.${findings ? ' In detail:' : ''}`;
}

function patchReplyBody(p: ReviewPatch, r: ReviewReport, mail: Message): string {
  const findings = findingsOf(p);
  let files: StructuredPatch[] = [];
  try {
    files = parsePatch(diffPart(mail.body));
  } catch {
    files = []; // a mangled diff is quoted as nothing: the finding says what is wrong with it
  }
  const placed = new Map<string, Quoted[]>();
  const loose: Quoted[] = [];
  for (const f of findings) {
    const at = f.file ? locate(files, f.file, f.line) : undefined;
    if (at) placed.set(at, [...(placed.get(at) ?? []), f]);
    else loose.push(f);
  }
  const out = [`Hi ${firstName(mail.from)},`, '', fateOf(p, r, findings.length), ''];
  for (const f of loose) out.push(...f.text, '');
  if (placed.size) {
    out.push(attribution(mail), '');
    for (const file of files) {
      const name = file.newFileName?.replace(/^b\//, '') ?? '';
      file.hunks.forEach((h, i) => {
        const here = placed.get(`${name}#${i}`);
        if (!here) return;
        out.push(...quote([`--- ${file.oldFileName}`, `+++ ${file.newFileName}`, `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines]), '');
        for (const f of here) out.push(...f.text, '');
      });
    }
  }
  // A finding of a build of the other side: the configuration, the compiler and how to make it, as the robot says them.
  const shown = [...p.build.errors, ...p.build.newWarnings].join('\n');
  for (const o of (r.otherBuilds ?? []).filter((b) => b.why && shown.includes(`[${b.config.base}, ${b.compiler}]`))) out.push(...sideLines(o), '');
  out.push(SIGNATURE);
  return out.join('\n');
}

/** "file#hunk" of the hunk a finding points into: a new-file line inside it, or -N for hunk N itself. */
function locate(files: StructuredPatch[], file: string, line: number | undefined): string | undefined {
  const f = files.find((x) => x.newFileName?.replace(/^b\//, '') === file || x.oldFileName?.replace(/^a\//, '') === file);
  if (!f || line === undefined) return undefined;
  if (line < 0) return f.hunks[-line - 1] ? `${file}#${-line - 1}` : undefined;
  const i = f.hunks.findIndex((h) => line >= h.newStart && line < h.newStart + Math.max(h.newLines, 1));
  return i >= 0 ? `${file}#${i}` : undefined;
}

function firstName(a: Address): string {
  return (a.name || a.address.split('@')[0] || 'there').split(/\s+/)[0]!;
}
