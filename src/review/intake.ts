// Which series a mailbox holds and which of them is reviewed: its cover letter, its patches, the revisions beside
// it, the parts missing or extra, how it is threaded, the trailers its replies give, and the base it names. The
// mailbox is read as the mail tools read it (threads.ts). Pure over parsed messages.
import { prerequisitesOf, type Prerequisites } from './prerequisites.js';
import type { Message } from '../mail/mailbox.js';
import { formatAddress } from '../mail/mailbox.js';
import type { Problem } from '../check/rules.js';
import { MailboxError } from '../errors.js';
import type { PatchSubject } from './subject.js';
import { diffIdentity } from './diagnose.js';
import { readThreads, sentSeries, type Mail, type SentSeries } from './threads.js';
import { givenBy, trailersOf } from './trailers.js';

export interface IncomingPatch {
  index: number;
  message: Message;
  subject: PatchSubject;
  /** Trailers given in replies to this patch or to the cover letter, not yet in the patch. */
  trailers: string[];
  /** Taken from this earlier version: the reviewed one resent only some parts (a partial reroll). */
  from?: number;
}

export interface Intake {
  /** The cover letter's summary, else the first patch's. */
  subject: string;
  version: number;
  rfc: boolean;
  resend: boolean;
  prefixes: string[];
  /** How many patches the numbering announces. */
  total: number;
  cover?: Message;
  /** The patches present, by number; the numbers missing are named once in `problems`. */
  patches: IncomingPatch[];
  /** `base-commit:` of the cover letter (or of a patch, as format-patch --base writes it without a cover). */
  baseCommit?: string;
  /** The patches of another series this one stands on, named below its base-commit. */
  prerequisites?: Prerequisites;
  /** Replies to the reviewed series. */
  replies: number;
  /** Every series the mailbox holds, as "v2 (3 patches)", the reviewed one first. */
  revisions: string[];
  problems: Problem[];
}

export interface IntakeOptions {
  /** Review this version (`-v N`), else the newest. */
  version?: number;
  /** Of a version sent more than once, review this copy (`--copy N`, 1 the oldest), else the newest. */
  copy?: number;
}

const BASE_COMMIT = /^base-commit: ([0-9a-f]{7,40})\s*$/m;

export function identifySeries(messages: Message[], opts: IntakeOptions = {}): Intake {
  const mails = readThreads(messages);
  const sent = sentSeries(mails).filter((s) => s.parts.size > 0);
  if (sent.length === 0) return empty();
  const problems: Problem[] = [];
  // An unnumbered patch sent into the thread of a series of the same version (patchwork's "orphaned patch") is no
  // part of it and not what a reviewer asked for: named, not reviewed, unless the mailbox holds nothing else.
  const orphans = sent.filter((s) => orphanOf(s, sent));
  const all = orphans.length < sent.length ? sent.filter((s) => !orphans.includes(s)) : sent;
  for (const o of all === sent ? [] : orphans) {
    const m = [...o.parts.values()][0]!;
    problems.push({ kind: 'orphan-patch', severity: 'note', message: `"${m.message.subject}" answers the series' thread but is no numbered part of it (patchwork keeps it apart too); not reviewed with the series: save it on its own to review it` });
  }
  const { chosen, copies } = choose(all, opts.version, opts.copy);
  const others = all.filter((s) => s !== chosen);
  if (copies.length > 1) problems.push({ kind: 'resent', severity: 'note', message: resentWords(chosen, copies) });
  const versions = others.filter((s) => !copies.includes(s));
  if (versions.length) {
    problems.push({ kind: 'other-versions', severity: 'note', message: `the mailbox also holds ${versions.map(nameOf).join(', ')}; reviewing ${nameOf(chosen)} (-v N picks another)` });
  }
  const parts = new Map([...chosen.parts].map(([n, m]) => [n, { mail: m, from: undefined as number | undefined }]));
  let cover = chosen.cover;
  const earlier = reroll(chosen, others);
  if (earlier) {
    const filled: string[] = [];
    for (let n = 1; n <= chosen.total; n++) {
      const m = earlier.parts.get(n);
      if (!parts.has(n) && m) (parts.set(n, { mail: m, from: earlier.version }), filled.push(`${n}/${chosen.total}`));
    }
    if (!cover && earlier.cover) (cover = earlier.cover), filled.unshift('the cover letter');
    const from = earlier.version === chosen.version ? `the copy of v${earlier.version} sent ${whenSent(earlier)}` : `v${earlier.version}`;
    if (filled.length) problems.push({ kind: 'partial-reroll', severity: 'note', message: `v${chosen.version}${copies.length > 1 ? ` as sent ${whenSent(chosen)}` : ''} resends only ${[...chosen.parts.keys()].map((n) => `${n}/${chosen.total}`).join(', ')}: ${filled.join(', ')} taken from ${from}, as b4 does` });
  }
  for (const n of chosen.doubled) problems.push({ kind: 'part-duplicate', severity: 'warning', message: `patch ${n}/${chosen.total} is in the mailbox twice; the later copy is used` });
  const missing = range(chosen.total).filter((n) => !parts.has(n));
  if (missing.length) {
    problems.push({ kind: 'part-missing', severity: 'warning', message: `${missing.length} of ${chosen.total} parts ${missing.length > 1 ? 'are' : 'is'} not in the mailbox (${missing.map((n) => `${n}/${chosen.total}`).join(', ')}); the others are reviewed` });
  }
  const extra = [...parts.keys()].filter((n) => n > chosen.total).sort((a, b) => a - b);
  if (extra.length) problems.push({ kind: 'part-extra', severity: 'note', message: `${extra.map((n) => `patch ${n}/${chosen.total}`).join(', ')} go${extra.length > 1 ? '' : 'es'} beyond the ${chosen.total} parts announced; reviewed as part of the series` });
  for (const [n, { mail }] of parts) {
    if (mail.subject.numbered && mail.subject.total !== chosen.total && n <= chosen.total) problems.push({ kind: 'numbering', severity: 'warning', message: `"${mail.message.subject}" is numbered out of ${mail.subject.total}, the others out of ${chosen.total}` });
  }

  const patches: IncomingPatch[] = [...parts].sort(([a], [b]) => a - b).map(([index, { mail, from }]) => ({ index, message: mail.message, subject: mail.subject, trailers: [], ...(from ? { from } : {}) }));
  const threading = notThreaded(cover, patches, mails);
  if (threading) problems.push(threading);
  const replies = collectTrailers(mails, cover, patches, parts, problems);
  const headSubject = cover ? cover.subject : patches[0]!.subject;
  const baseMail = [cover?.message, ...patches.map((p) => p.message)].find((m) => m && BASE_COMMIT.test(m.body));
  const baseCommit = baseMail ? BASE_COMMIT.exec(baseMail.body)![1] : undefined;
  const prerequisites = baseMail ? prerequisitesOf(baseMail.body) : undefined;
  return {
    subject: headSubject.summary || (cover ?? parts.get(patches[0]!.index)!.mail).message.subject,
    version: chosen.version,
    rfc: headSubject.rfc,
    resend: headSubject.resend,
    prefixes: headSubject.prefixes,
    total: Math.max(chosen.total, ...parts.keys()),
    cover: cover?.message,
    patches,
    baseCommit,
    ...(prerequisites ? { prerequisites } : {}),
    replies,
    revisions: [chosen, ...others].map(nameOf),
    problems,
  };
}

function empty(): Intake {
  return { subject: '', version: 1, rfc: false, resend: false, prefixes: [], total: 0, patches: [], replies: 0, revisions: [], problems: [] };
}

/**
 * The asked version, else the newest; of a version sent more than once (a resend, an unlabelled second revision),
 * the asked copy, else the one sent last, as b4 takes it. `copies`: every copy of that version, the oldest first.
 */
function choose(all: SentSeries[], version: number | undefined, copy: number | undefined): { chosen: SentSeries; copies: SentSeries[] } {
  const order = [...all].sort((a, b) => b.version - a.version || sentAt(b) - sentAt(a) || b.first - a.first);
  const newest = version === undefined ? order[0] : order.find((s) => s.version === version);
  if (!newest) throw new MailboxError(`-v ${version}: the mailbox holds ${order.map(nameOf).join(', ')}`, 'pick one of the versions it holds, or leave -v out for the newest');
  const copies = order.filter((s) => s.version === newest.version).reverse();
  if (copy === undefined) return { chosen: newest, copies };
  const asked = copies[copy - 1];
  if (!asked) throw new MailboxError(`--copy ${copy}: v${newest.version} was sent ${copies.length === 1 ? 'once' : `${copies.length} times`}`, `pick a copy from 1 (the oldest) to ${copies.length}, or leave --copy out for the newest`);
  return { chosen: asked, copies };
}

/** A single unnumbered patch without a cover letter that answers a cover letter or numbered part of a series of its version. */
function orphanOf(s: SentSeries, all: SentSeries[]): boolean {
  const [m] = [...s.parts.values()];
  if (s.parts.size !== 1 || s.cover || m!.subject.numbered) return false;
  return s.answers.some((a) => all.some((o) => o !== s && o.version === s.version && (o.cover === a || [...o.parts.values()].includes(a)) && (o.cover !== undefined || o.total > 1)));
}

/** When a copy was sent, to the minute (UTC), for telling copies apart. */
function whenSent(s: SentSeries): string {
  return s.latest ? s.latest.toISOString().slice(0, 16).replace('T', ' ') : 'undated';
}

function sentAt(s: SentSeries): number {
  return s.latest?.getTime() ?? 0;
}

/** "v1 (2 patches) was sent 3 times (2026-01-01 10:00, ...); reviewing the newest, copy 3 of 3 (--copy N picks another)" */
function resentWords(chosen: SentSeries, copies: SentSeries[]): string {
  const n = copies.indexOf(chosen) + 1;
  const which = n === copies.length ? 'the newest' : n === 1 ? 'the oldest' : `copy ${n}`;
  return `v${chosen.version} was sent ${copies.length} times (${copies.map((c) => `${whenSent(c)}: ${c.parts.size} patch${c.parts.size === 1 ? '' : 'es'}${c.cover ? ' and a cover letter' : ''}`).join('; ')}); reviewing ${which}, copy ${n} of ${copies.length}${copies.some((c) => !c.latest) ? ' in mailbox order' : ''} (--copy N picks another, 1 the oldest)`;
}

/** The series a partial reroll resends parts of: an earlier one of as many parts, the newest first. */
function reroll(chosen: SentSeries, others: SentSeries[]): SentSeries | undefined {
  if (range(chosen.total).every((n) => chosen.parts.has(n))) return undefined;
  return others.filter((s) => s.total === chosen.total && (s.version < chosen.version || (s.version === chosen.version && s.first < chosen.first))).sort((a, b) => b.version - a.version || b.first - a.first)[0];
}

function nameOf(s: SentSeries): string {
  const n = s.parts.size;
  return `v${s.version} (${n} patch${n === 1 ? '' : 'es'}${s.cover ? ' and a cover letter' : ''})`;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}

/**
 * Patches that do not answer the cover letter (or, without one, the first patch). Only mail that was sent has a
 * thread: a folder `git format-patch` wrote (no To or Cc) has none to break.
 */
function notThreaded(cover: Mail | undefined, patches: IncomingPatch[], mails: Mail[]): Problem | undefined {
  if (!patches.some((p) => p.message.to.length || p.message.cc.length)) return undefined;
  const root = cover?.message ?? patches[0]!.message;
  const answers = (m: Message) => {
    for (let cur = mails.find((x) => x.message === m)?.parent; cur; cur = cur.parent) if (cur.message === root) return true;
    return [m.inReplyTo, ...m.references].includes(root.messageId) && root.messageId !== undefined;
  };
  const loose = patches.filter((p) => p.message !== root && !p.from && !answers(p.message));
  if (!loose.length) return undefined;
  return { kind: 'not-threaded', severity: 'warning', message: `patch${loose.length > 1 ? 'es' : ''} ${loose.map((p) => p.index).join(', ')} ${loose.length > 1 ? 'do' : 'does'} not answer ${cover ? 'the cover letter' : 'the first patch'} (In-Reply-To/References); reviewers see a broken thread` };
}

/**
 * Trailers of the replies to the reviewed series: a reply to a patch gives them to that patch, a reply to the cover
 * letter to every patch. A trailer naming someone other than the reply's sender is named, not added (b4's rule);
 * one the patch already carries is neither.
 * Returns how many replies answer the series.
 */
function collectTrailers(mails: Mail[], cover: Mail | undefined, patches: IncomingPatch[], parts: Map<number, { mail: Mail }>, problems: Problem[]): number {
  const byMail = new Map([...parts].map(([n, { mail }]) => [mail, patches.find((p) => p.index === n)!]));
  // A reply to a patch of another version counts for the patch of this one with the same diff (b4, by patch-id).
  const byIdentity = new Map(patches.map((p) => [diffIdentity(p.message.body), p]));
  let counted = 0;
  for (const r of mails.filter((m) => m.kind === 'reply')) {
    let target = r.parent;
    while (target && target.kind === 'reply') target = target.parent;
    if (!target) continue;
    const to = target === cover ? patches : byMail.has(target) ? [byMail.get(target)!] : target.kind === 'patch' ? [byIdentity.get(diffIdentity(target.message.body))].filter((p) => p !== undefined) : [];
    if (to.length === 0) continue;
    counted++;
    for (const t of trailersOf(r.message.body)) {
      // A reply restating a trailer the patch already carries tells nothing new, whoever it names (b4).
      if (to.every((p) => onPatch(p, t))) continue;
      if (!givenBy(t, r.message.from)) {
        problems.push({ kind: 'trailer-not-sender', severity: 'note', message: `"${t}" in a reply from ${formatAddress(r.message.from)} names someone else; not added (b4 am does the same)` });
        continue;
      }
      for (const p of to) if (!onPatch(p, t)) p.trailers.push(t);
    }
  }
  return counted;
}

function onPatch(p: IncomingPatch, trailer: string): boolean {
  return p.trailers.includes(trailer) || p.message.body.split('\n').some((l) => l.trim() === trailer);
}

/** One patch reviewed on its own (b4's per-patch check): its numbering in a series is ignored. */
export function identifyOne(messages: Message[]): Intake {
  const m = readThreads(messages).find((x) => x.kind === 'patch');
  if (!m) return empty();
  return { ...empty(), subject: m.subject.summary, version: m.subject.version, rfc: m.subject.rfc, resend: m.subject.resend, prefixes: m.subject.prefixes, total: 1, patches: [{ index: 1, message: m.message, subject: m.subject, trailers: [] }], revisions: [`v${m.subject.version} (1 patch)`] };
}
