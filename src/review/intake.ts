// Which series a mailbox holds: its cover letter, its numbered patches, the replies and the trailers they give, where
// parts are missing or doubled, how it is threaded, and the base it names. Pure over parsed messages.
import type { Message } from '../mail/mailbox.js';
import type { Problem } from '../check/rules.js';
import { parseSubject, type PatchSubject } from './subject.js';
import { trailersOf } from './trailers.js';

export interface IncomingPatch {
  index: number;
  message: Message;
  subject: PatchSubject;
  /** Trailers given in replies to this patch or to the cover letter, not yet in the patch. */
  trailers: string[];
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
  /** The patches present, by index; a missing index is absent here and named in `problems`. */
  patches: IncomingPatch[];
  /** `base-commit:` of the cover letter (or of a patch, as format-patch --base writes it without a cover). */
  baseCommit?: string;
  replies: number;
  problems: Problem[];
}

const DIFF = /^diff --git |^--- \S.*\n\+\+\+ \S|^@@ -\d/m;

export function identifySeries(messages: Message[]): Intake {
  const problems: Problem[] = [];
  const parsed = messages.map((message) => ({ message, subject: parseSubject(message.subject), diff: DIFF.test(message.body) }));
  const candidates = parsed.filter((p) => !p.subject.reply && (p.diff || (p.subject.patch && p.subject.index === 0)));
  if (candidates.length === 0) return { subject: '', version: 1, rfc: false, resend: false, prefixes: [], total: 0, patches: [], replies: 0, problems };

  const version = Math.max(...candidates.map((c) => c.subject.version));
  const older = [...new Set(candidates.filter((c) => c.subject.version !== version).map((c) => c.subject.version))].sort();
  if (older.length) problems.push({ kind: 'older-version', severity: 'warning', message: `the mailbox also holds ${older.map((v) => `v${v}`).join(', ')}; reviewing v${version}` });
  const mine = candidates.filter((c) => c.subject.version === version);

  const covers = mine.filter((c) => c.subject.index === 0);
  const cover = covers.at(-1);
  if (covers.length > 1) problems.push({ kind: 'part-duplicate', severity: 'error', message: `${covers.length} cover letters (0/${cover!.subject.total}); the last one is used` });
  const total = Math.max(...mine.map((c) => c.subject.total));
  const byIndex = new Map<number, (typeof mine)[number]>();
  for (const c of mine.filter((x) => x.subject.index > 0)) {
    if (byIndex.has(c.subject.index)) problems.push({ kind: 'part-duplicate', severity: 'error', message: `patch ${c.subject.index}/${total} is in the mailbox twice; the last copy is used` });
    byIndex.set(c.subject.index, c);
  }
  for (let i = 1; i <= total; i++) {
    if (!byIndex.has(i)) problems.push({ kind: 'part-missing', severity: 'error', message: `patch ${i}/${total} is not in the mailbox` });
  }
  for (const c of mine) {
    if (c.subject.total !== total) problems.push({ kind: 'numbering', severity: 'error', message: `"${c.message.subject}" is numbered out of ${c.subject.total}, the others out of ${total}` });
  }
  const patches: IncomingPatch[] = [...byIndex.values()].sort((a, b) => a.subject.index - b.subject.index).map((c) => ({ index: c.subject.index, message: c.message, subject: c.subject, trailers: [] }));

  // Threading: every patch answers the cover letter (or, without one, the first patch), shallow or deep.
  const root = cover?.message.messageId ?? patches[0]?.message.messageId;
  const loose = patches.filter((p) => p.message.messageId !== root && !threadOf(p.message).includes(root!));
  if (root && loose.length) {
    problems.push({ kind: 'not-threaded', severity: 'warning', message: `patch${loose.length > 1 ? 'es' : ''} ${loose.map((p) => p.index).join(', ')} ${loose.length > 1 ? 'do' : 'does'} not answer ${cover ? 'the cover letter' : 'the first patch'} (In-Reply-To/References); reviewers see a broken thread` });
  }

  // Replies: trailers go onto the patch they answer; an answer to the cover letter counts for every patch.
  const byId = new Map(patches.map((p) => [p.message.messageId, p]));
  const replies = parsed.filter((p) => !candidates.includes(p) && (p.subject.reply || p.message.inReplyTo));
  let counted = 0;
  for (const r of replies) {
    const up = threadOf(r.message).reverse();
    const target = up.find((id) => byId.has(id) || id === cover?.message.messageId);
    if (!target) continue;
    counted++;
    const given = trailersOf(r.message.body);
    for (const p of target === cover?.message.messageId ? patches : [byId.get(target)!]) {
      for (const t of given) if (!p.trailers.includes(t) && !p.message.body.includes(t)) p.trailers.push(t);
    }
  }

  const head = cover ?? patches[0] ?? mine[0]!;
  const baseCommit = [cover, ...patches].map((x) => (x ? /^base-commit: ([0-9a-f]{7,40})\s*$/m.exec(x.message.body)?.[1] : undefined)).find(Boolean);
  return {
    subject: head.subject.summary,
    version,
    rfc: head.subject.rfc,
    resend: head.subject.resend,
    prefixes: head.subject.prefixes,
    total,
    cover: cover?.message,
    patches,
    baseCommit,
    replies: counted,
    problems,
  };
}

/** The ids a message answers, oldest first (References, then In-Reply-To). */
function threadOf(m: Message): string[] {
  return [...m.references, ...(m.inReplyTo && !m.references.includes(m.inReplyTo) ? [m.inReplyTo] : [])];
}

/** One patch reviewed on its own (b4's per-patch check): its numbering in a series is ignored. */
export function identifyOne(messages: Message[]): Intake {
  const m = messages.find((x) => DIFF.test(x.body));
  const whole = identifySeries(m ? [m] : []);
  if (!m) return whole;
  const subject = parseSubject(m.subject);
  return { ...whole, total: 1, cover: undefined, patches: [{ index: 1, message: m, subject, trailers: [] }], problems: [] };
}
