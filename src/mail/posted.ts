// Has this patch been posted already? A patch of ours against the list archives given (mail/inbox.ts): an archived
// patch that touches the same files with the same change (`git patch-id --stable`, or the same lines added and
// removed) or carries the same summary for the same files, with its author, date, Message-Id, and whether a reply
// in its thread says it was applied.
import type { IndexedMail, InboxEpoch } from './inbox.js';
import { isReply, readIndexed, threadOf, withoutTags } from './inbox.js';
import { patchIds } from '../tools/git.js';

/** Beside an emitted series: what --inbox found posted already, for send to refuse (`{ tip, matches }`). */
export const POSTED = 'posted.json';

/** One of our patches: its subject's summary, the files it touches, its diff. */
export interface OurPatch {
  summary: string;
  files: string[];
  diff: string;
}

export interface PostedMatch {
  /** 1-based, in our series. */
  patch: number;
  /** How it matches: the same change by patch-id, the same lines added and removed, or the same summary and files. */
  by: 'patch-id' | 'lines' | 'subject';
  subject: string;
  from: string;
  date?: string;
  messageId: string;
  /** A reply in its thread says it was applied ("Applied, thanks", "applied to ..."): its author and Message-Id. */
  applied?: { by: string; messageId: string };
}

/** The archived patches ours were posted as already, best match each, and what their threads say. */
export async function alreadyPosted(cwd: string, epochs: InboxEpoch[], mails: IndexedMail[], ours: OurPatch[]): Promise<PostedMatch[]> {
  const mine = new Set(ours.flatMap((p) => p.files));
  // The archive's patches that touch one of our files: the only ones worth reading in full.
  const candidates = mails.filter((m) => m.diff && m.messageId && !isReply(m.subject) && m.files?.some((f) => mine.has(f)));
  if (candidates.length === 0) return [];
  const full = await readIndexed(epochs, candidates);
  const diffs = full.map((m) => diffPart(m.body));
  const [theirIds, ourIds] = await Promise.all([patchIds(cwd, diffs), patchIds(cwd, ours.map((p) => p.diff))]);
  const out: PostedMatch[] = [];
  for (const [i, p] of ours.entries()) {
    const sameFiles = (c: IndexedMail) => sameSet(c.files ?? [], p.files);
    const lines = changedLines(p.diff);
    const found = candidates
      .map((c, j) => ({ c, by: ourIds[i] && ourIds[i] === theirIds[j] ? ('patch-id' as const) : sameFiles(c) && lines && lines === changedLines(diffs[j]!) ? ('lines' as const) : sameFiles(c) && summaryOf(c.subject) === p.summary ? ('subject' as const) : undefined }))
      .filter((x): x is { c: IndexedMail; by: PostedMatch['by'] } => x.by !== undefined);
    // The earliest posting of the strongest kind of match.
    const rank = { 'patch-id': 0, lines: 1, subject: 2 };
    const best = found.sort((a, b) => rank[a.by] - rank[b.by] || (a.c.date?.getTime() ?? 0) - (b.c.date?.getTime() ?? 0))[0];
    if (!best) continue;
    out.push({ patch: i + 1, by: best.by, subject: best.c.subject, from: best.c.from, ...(best.c.date ? { date: best.c.date.toISOString().slice(0, 10) } : {}), messageId: best.c.messageId!, ...(await appliedReply(epochs, mails, best.c)) });
  }
  return out;
}

/** How a recipe says it left a patch out (cocci, split): where and by whom it was posted, and whether it was applied. */
export function leftOutLine(prefix: string, p: PostedMatch): string {
  return `${prefix}: left out, posted already${p.by === 'subject' ? ' (the same subject for the same files)' : ''}: "${p.subject}" by ${p.from}${p.date ? ` on ${p.date}` : ''}, <${p.messageId}>${p.applied ? `, applied (${p.applied.by})` : ''}`;
}

/** Words a maintainer applies a patch with, at the start of a line of a reply. */
const APPLIED = /^(?:>?\s*)?(applied|queued|pushed)\b[^\n]{0,80}(thanks|to|into|,)/im;

/** A reply in the patch's thread, or its series', that says it was applied. */
async function appliedReply(epochs: InboxEpoch[], mails: IndexedMail[], patch: IndexedMail): Promise<{ applied?: PostedMatch['applied'] }> {
  const replies = threadOf(mails, patch.messageId!).filter((m) => isReply(m.subject) && !m.diff);
  if (replies.length === 0) return {};
  const read = await readIndexed(epochs, replies);
  // Only the reply's own words, not the quoted patch; to the patch itself, or naming it (b4 ty's "[1/2] subject").
  const named = withoutTags(patch.subject);
  const said = read.find((m) => {
    const own = m.body.split('\n').filter((l) => !l.startsWith('>')).join('\n');
    return APPLIED.test(own) && (m.inReplyTo === patch.messageId || own.includes(named));
  });
  return said ? { applied: { by: said.from.name || said.from.address, messageId: said.messageId ?? '' } } : {};
}

/** A mail's diff: from its first `diff --git` line to the signature's `-- ` line (format-patch's "-- \n2.39.5"). */
export function diffPart(body: string): string {
  const at = body.search(/^diff --git /m);
  if (at < 0) return '';
  const rest = body.slice(at);
  const sig = rest.search(/^-- $/m);
  return sig < 0 ? rest : rest.slice(0, sig);
}

/** The lines a diff adds and removes, sorted, as one text; '' without any. */
function changedLines(diff: string): string {
  return diff
    .split('\n')
    // An #include added or not is how two authors of one conversion differ most (cocci's diff has none of its own).
    .filter((l) => /^[+-]/.test(l) && !/^(\+\+\+|---) /.test(l) && !/^[+-]\s*#\s*include\b/.test(l))
    .map((l) => l.replace(/\s+$/, ''))
    .sort()
    .join('\n');
}

/** A subject's summary: after its brackets and its prefix words ("[PATCH v2 1/3] wifi: rtw89: Use x" → "Use x"). */
export function summaryOf(subject: string): string {
  return withoutTags(subject).replace(/^([\w./-]+:\s+)+/, '').trim().toLowerCase();
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
