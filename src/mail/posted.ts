// Has this patch been posted already? A patch of ours against the list archives given (mail/inbox.ts): an archived
// patch that touches the same files with the same change (`git patch-id --stable`, or the same lines added and
// removed) or carries the same summary for the same files, with its author, date, Message-Id, and whether a reply
// in its thread says it was applied.
import type { IndexedMail, InboxEpoch } from './inbox.js';
import { isReply, readIndexed, threadOf, withoutTags } from './inbox.js';
import { diffArrays, parsePatch } from 'diff';
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
  /**
   * How it matches: the same change by patch-id; the same lines added and removed, however spaced and wrapped; or
   * the same summary and files.
   */
  by: 'patch-id' | 'lines' | 'subject';
  /** Only these files of our patch were posted so (the rest of it was not); absent when the whole patch was. */
  files?: string[];
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
  const theirs = diffs.map((d) => lazyChanges(d));
  const earliest = (a: { c: IndexedMail }, b: { c: IndexedMail }) => (a.c.date?.getTime() ?? 0) - (b.c.date?.getTime() ?? 0);
  const out: PostedMatch[] = [];
  for (const [i, p] of ours.entries()) {
    const changes = changesOf(p.diff);
    // The same change of a file: the same token edits (an #include alone is none).
    const same = (j: number, f: string) => changes.has(f) && theirs[j]!(f, changes.get(f)!.lines) === changes.get(f)!.edits;
    const real = (f: string) => !!changes.get(f)?.edits;
    const sameFiles = (c: IndexedMail) => sameSet(c.files ?? [], p.files);
    const found = candidates
      .map((c, j) => ({ c, by: ourIds[i] && ourIds[i] === theirIds[j] ? ('patch-id' as const) : sameFiles(c) && p.files.some(real) && p.files.every((f) => same(j, f)) ? ('lines' as const) : sameFiles(c) && summaryOf(c.subject) === p.summary ? ('subject' as const) : undefined }))
      .filter((x): x is { c: IndexedMail; by: PostedMatch['by'] } => x.by !== undefined);
    // The earliest posting of the strongest kind of match.
    const rank = { 'patch-id': 0, lines: 1, subject: 2 };
    const best = found.sort((a, b) => rank[a.by] - rank[b.by] || earliest(a, b))[0];
    if (best) {
      out.push(await matchOf(epochs, mails, i + 1, best.c, best.by));
      continue;
    }
    // Part of it: the files a posted patch changed the same way, each named once, by its earliest posting.
    const left = new Set(p.files);
    for (const part of candidates.map((c, j) => ({ c, j })).sort(earliest)) {
      const files = [...left].filter((f) => real(f) && same(part.j, f));
      if (files.length === 0) continue;
      files.forEach((f) => left.delete(f));
      out.push({ ...(await matchOf(epochs, mails, i + 1, part.c, 'lines')), files });
    }
  }
  return out;
}

/** A posting named, and whether it was applied: it, or a later version of it (the same summary for the same files). */
async function matchOf(epochs: InboxEpoch[], mails: IndexedMail[], patch: number, c: IndexedMail, by: PostedMatch['by']): Promise<PostedMatch> {
  const summary = summaryOf(c.subject);
  const later = mails.filter((m) => m !== c && m.diff && m.messageId && (m.date?.getTime() ?? 0) >= (c.date?.getTime() ?? 0) && sameSet(m.files ?? [], c.files ?? []) && summaryOf(m.subject) === summary);
  let applied: { applied?: PostedMatch['applied'] } = {};
  for (const m of [c, ...later]) if (!applied.applied) applied = await appliedReply(epochs, mails, m);
  return { patch, by, subject: c.subject, from: c.from, ...(c.date ? { date: c.date.toISOString().slice(0, 10) } : {}), messageId: c.messageId!, ...applied };
}

/** How a recipe says it left a patch, or files of it, out (cocci, split): where and by whom it was posted, and whether it was applied. */
export function leftOutLine(prefix: string, p: PostedMatch): string {
  return `${prefix}: ${p.files ? `${p.files.join(', ')} ` : ''}left out, posted already${p.by === 'subject' ? ' (the same subject for the same files)' : ''}: "${p.subject}" by ${p.from}${p.date ? ` on ${p.date}` : ''}, <${p.messageId}>${p.applied ? `, applied (${p.applied.by})` : ''}`;
}

/** A group of files without what was posted of it: none when the whole patch was, else without the files that were. */
export function withoutPosted<G extends { files: { file: string }[] }>(g: G, matches: PostedMatch[]): G[] {
  if (matches.some((m) => !m.files)) return [];
  const files = g.files.filter((f) => !matches.some((m) => m.files!.includes(f.file)));
  return files.length ? [{ ...g, files }] : [];
}

/** What of a patch was posted: "patch 2", or "patch 2's change of drivers/x.c". */
export function postedPart(p: PostedMatch): string {
  return `patch ${p.patch}${p.files ? `'s change of ${p.files.join(', ')}` : ''}`;
}

/** Words a maintainer applies a patch with, at the start of a line of a reply. */
const APPLIED = /^(?:>?\s*)?(?:(?:\d+\s+)?patch(?:\(es\)|es)?\s+)?(applied|queued|pushed)\b[^\n]{0,80}(thanks|to|into|,)/im;

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

/** A C token: a word, a number, a string or character literal, or one character of punctuation. */
const TOKEN = /[A-Za-z_]\w*|\d[\w.]*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\S/g;

/**
 * What a diff changes in each file, token by token: the tokens its removed lines lose and its added lines gain,
 * blind to spacing and to where lines break (two authors wrap one conversion differently), and to #include lines
 * (whether an author added one is how two authors of one conversion differ most). With the count of changed lines.
 */
export function changesOf(diff: string): Map<string, { edits: string; lines: number }> {
  return new Map([...changedLinesByFile(diff)].map(([file, changed]) => [file, { edits: editsOf(changed), lines: changed.length }]));
}

/** One file's changed lines as token edits (changesOf). */
function editsOf(changed: string[]): string {
  const code = changed.filter((l) => !/^[+-]\s*#\s*include\b/.test(l));
  const tokens = (sign: string) => code.filter((l) => l[0] === sign).flatMap((l) => l.slice(1).match(TOKEN) ?? []);
  return diffArrays(tokens('-'), tokens('+'))
    .filter((c) => c.added || c.removed)
    .map((c) => `${c.added ? '+' : '-'}${c.value.join(' ')}`)
    .join('\n');
}

/** Each file's added and removed lines (git's `diff --git` or diff -u's `---`/`+++` headers), read as git apply would. */
function changedLinesByFile(diff: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let patches: ReturnType<typeof parsePatch>;
  try {
    patches = parsePatch(diff);
  } catch {
    return out;
  }
  for (const p of patches) {
    const name = p.newFileName && p.newFileName !== '/dev/null' ? p.newFileName : p.oldFileName;
    if (!name) continue;
    const file = name.replace(/^[ab]\//, '');
    out.set(file, [...(out.get(file) ?? []), ...p.hunks.flatMap((h) => h.lines.filter((l) => l[0] === '+' || l[0] === '-'))]);
  }
  return out;
}

/**
 * A posted diff's change of one file, made only when asked and only for a file it changes in about as many lines as
 * ours does (a token diff of a thousand-line patch against our three lines would cost much and match nothing).
 */
function lazyChanges(diff: string): (file: string, ourLines: number) => string | undefined {
  let lines: Map<string, string[]> | undefined;
  const edits = new Map<string, string>();
  return (file, ourLines) => {
    lines ??= changedLinesByFile(diff);
    const changed = lines.get(file);
    if (!changed || changed.length > 3 * ourLines + 10) return undefined;
    if (!edits.has(file)) edits.set(file, editsOf(changed));
    return edits.get(file);
  };
}

/** A subject's summary: after its brackets and its prefix words ("[PATCH v2 1/3] wifi: rtw89: Use x" → "Use x"). */
export function summaryOf(subject: string): string {
  return withoutTags(subject).replace(/^([\w./-]+:\s+)+/, '').trim().toLowerCase();
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
