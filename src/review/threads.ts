// How mail tools read a mailbox into series (b4 am, patchwork's parser): which message is a patch, a cover letter or
// a reply, which message each answers, and which patches and cover letter make one series. Pure over parsed messages.
import type { Message } from '../mail/mailbox.js';
import { parseSubject, type PatchSubject } from './subject.js';
import { trailersOf } from './trailers.js';

export type Kind = 'patch' | 'cover' | 'reply' | 'other';

export interface Mail {
  /** Position in the mailbox. */
  at: number;
  message: Message;
  subject: PatchSubject;
  kind: Kind;
  /** The message it answers, when that message is in the mailbox. */
  parent?: Mail;
}

/** One series as sent: a cover letter (maybe), patches by number, and the version its subjects name. */
export interface SentSeries {
  version: number;
  /** The largest `n` of `i/n` among its parts (an unnumbered stack: how many patches). */
  total: number;
  cover?: Mail;
  /** Number → patch. An unnumbered stack is numbered in thread and mailbox order. */
  parts: Map<number, Mail>;
  /** Parts that came twice: the later copy is in `parts`. */
  doubled: number[];
  /** Mailbox order of its first message, for telling resends apart. */
  first: number;
  latest?: Date;
  /** Patches and cover letters of other series that its messages answer (a fix-up sent into a series' thread). */
  answers: Mail[];
}

const DIFF = /^diff --git |^--- \S.*\n\+\+\+ \S|^@@ -\d|^GIT binary patch$/m;

/** Whether a text holds a diff (git's: `diff --git`, a `---`/`+++` pair, a hunk, a binary patch). */
export function hasDiff(text: string): boolean {
  return DIFF.test(text);
}
const DIFFSTAT = /^\s*\d+ files? changed\b/m;

/** Every message of the mailbox, classified and linked to the one it answers. Duplicate Message-IDs count once. */
export function readThreads(messages: Message[]): Mail[] {
  const seen = new Set<string>();
  const mails: Mail[] = [];
  for (const message of messages) {
    if (message.messageId && seen.has(message.messageId)) continue;
    if (message.messageId) seen.add(message.messageId);
    const subject = parseSubject(message.subject);
    mails.push({ at: mails.length, message, subject, kind: kindOf(message, subject) });
  }
  const byId = new Map(mails.filter((m) => m.message.messageId).map((m) => [m.message.messageId!, m]));
  for (const m of mails) {
    // In-Reply-To names the parent; References only when that message is absent (its order is not reliable).
    const known = [m.message.inReplyTo, ...[...m.message.references].reverse()].filter((id): id is string => !!id && id !== m.message.messageId);
    m.parent = known.map((id) => byId.get(id)).find(Boolean);
  }
  // A naked cover letter (no 0/n): what a patch answers that has no diff, when it has a diffstat, or starts the
  // thread and comes from the patch's author (b4's rule).
  for (const p of mails.filter((m) => m.kind === 'patch' && m.parent?.kind === 'other')) {
    const q = p.parent!;
    if (DIFFSTAT.test(q.message.body) || (!q.parent && q.message.from.address.toLowerCase() === p.message.from.address.toLowerCase())) q.kind = 'cover';
  }
  return mails;
}

function kindOf(m: Message, s: PatchSubject): Kind {
  if (s.reply) return 'reply';
  if (DIFF.test(m.body)) return 'patch';
  if (s.numbered && s.index === 0) return 'cover';
  // A reply that kept the patch's subject: it answers something and gives trailers.
  if ((m.inReplyTo || m.references.length) && trailersOf(m.body).length) return 'reply';
  return 'other';
}

/**
 * The series the mailbox holds, in mailbox order. A part joins the one it answers when they can be one series
 * (a patch answers its cover letter or an earlier part); unthreaded parts join by their numbering (same version and
 * count, a part not yet taken) or, unnumbered, as one stack in mailbox order. A part already present starts a
 * resend of its own.
 */
export function sentSeries(mails: Mail[]): SentSeries[] {
  const parts = mails.filter((m) => m.kind === 'patch' || m.kind === 'cover');
  const rootOf = (m: Mail): Mail => {
    let cur = m;
    while (cur.parent && parts.includes(cur.parent) && sameSeries(cur, cur.parent)) cur = cur.parent;
    return cur;
  };
  const groups = new Map<Mail, Mail[]>();
  for (const m of parts) {
    const r = rootOf(m);
    groups.set(r, [...(groups.get(r) ?? []), m]);
  }
  const merged: Mail[][] = [];
  for (const g of groups.values()) {
    const into = merged.find((h) => canMerge(h, g));
    if (into) into.push(...g);
    else merged.push([...g]);
  }
  return merged.map((g) => ({ ...seriesOf(g), answers: g.flatMap((m) => (m.parent && parts.includes(m.parent) && !g.includes(m.parent) ? [m.parent] : [])) }));
}

/** Whether `child`, answering `up`, belongs to `up`'s series. */
function sameSeries(child: Mail, up: Mail): boolean {
  const [c, u] = [child.subject, up.subject];
  if (child.kind === 'cover') return false;
  if (c.versioned && u.versioned && c.version !== u.version) return false;
  if (up.kind === 'cover') return c.numbered || !u.numbered;
  if (c.numbered !== u.numbered) return false;
  return c.numbered ? c.index > u.index : c.summary !== u.summary;
}

function canMerge(into: Mail[], g: Mail[]): boolean {
  const numbered = (x: Mail[]) => x.some((m) => m.subject.numbered);
  if (numbered(into) !== numbered(g) || versionOf(into) !== versionOf(g)) return false;
  if (!numbered(g)) {
    const summaries = new Set(into.map((m) => m.subject.summary));
    return g.every((m) => !summaries.has(m.subject.summary));
  }
  const totals = (x: Mail[]) => new Set(x.filter((m) => m.subject.numbered).map((m) => m.subject.total));
  const [a, b] = [totals(into), totals(g)];
  const taken = new Set(into.map(indexOf));
  return [...b].some((t) => a.has(t)) && g.every((m) => !taken.has(indexOf(m)));
}

function indexOf(m: Mail): number {
  return m.kind === 'cover' ? 0 : m.subject.index;
}

/** A series' version: the one its subjects name (a cover letter's, when its patches name none). */
function versionOf(g: Mail[]): number {
  return Math.max(1, ...g.filter((m) => m.subject.versioned).map((m) => m.subject.version));
}

function seriesOf(g: Mail[]): Omit<SentSeries, 'answers'> {
  const sorted = [...g].sort((a, b) => a.at - b.at);
  const cover = sorted.filter((m) => m.kind === 'cover').at(-1);
  const parts = new Map<number, Mail>();
  const doubled: number[] = [];
  const patches = sorted.filter((m) => m.kind === 'patch');
  patches.forEach((m, i) => {
    const n = m.subject.numbered ? m.subject.index : i + 1;
    if (parts.has(n)) doubled.push(n);
    parts.set(n, m);
  });
  const announced = [cover, ...patches].filter((m) => m?.subject.numbered).map((m) => m!.subject.total);
  const dates = sorted.map((m) => m.message.date?.getTime()).filter((t): t is number => t !== undefined && !Number.isNaN(t));
  return {
    version: versionOf(g),
    total: announced.length ? Math.max(...announced) : patches.length,
    cover,
    parts,
    doubled,
    first: sorted[0]!.at,
    latest: dates.length ? new Date(Math.max(...dates)) : undefined,
  };
}
