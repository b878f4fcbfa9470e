// List archives as public-inbox keeps them (v2: one git repository per epoch, each message a commit whose tree holds
// it as the blob `m`), read straight from git without a checkout: `git log` names the commits, one `git cat-file
// --batch` streams their messages. Indexing reads only each message's headers (and whether it holds a diff), so a
// whole epoch costs little more than reading it once; the messages of a series are then parsed in full.
import fs from 'node:fs';
import path from 'node:path';
import libmime from 'libmime';
import { MailboxError } from '../errors.js';
import { gitCatFileStream, gitRunRaw } from '../tools/git.js';
import { parseMessage, type Message } from './mailbox.js';

/** One epoch of one list's archive: a git directory. */
export interface InboxEpoch {
  gitDir: string;
  /** "linux-wpan/0": the archive's folder name and the epoch's number. */
  name: string;
}

/** What the index keeps of a message: enough to thread it and tell patches from replies. */
export interface IndexedMail {
  epoch: string;
  commit: string;
  messageId?: string;
  inReplyTo?: string;
  references: string[];
  subject: string;
  from: string;
  date?: Date;
  /** The raw message holds a diff (`diff --git`, or a ---/+++ pair), as a patch does. */
  diff: boolean;
  /** The files its `diff --git` lines name (a patch's), in order. */
  files?: string[];
  /** A line of its own (not quoted) says it applied what it answers: "Applied to wpan-next, thanks!", "Thanks, applied". */
  applied?: true;
  /** A pull request (git request-pull's "are available in the Git repository at:"): the repository, as repoKey() gives it. */
  pulls?: string;
}

/** A commit whose tree holds no message (public-inbox writes `d` for a deleted one), or one that is not mail. */
export interface SkippedMail {
  epoch: string;
  commit: string;
  why: string;
}

/**
 * The epochs of an archive folder, oldest first: the folder itself when it is a git directory (a `git clone
 * --mirror` of one epoch), else its `N.git` folders, or `git/N.git` as public-inbox lays out a v2 inbox.
 */
export function inboxEpochs(dir: string): InboxEpoch[] {
  const list = path.basename(dir).replace(/\.git$/, '');
  if (isGitDir(dir)) return [{ gitDir: dir, name: `${list}/0` }];
  const holder = fs.existsSync(path.join(dir, 'git')) ? path.join(dir, 'git') : dir;
  const epochs = (fs.existsSync(holder) && fs.statSync(holder).isDirectory() ? fs.readdirSync(holder) : [])
    .map((f) => /^(\d+)\.git$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null && isGitDir(path.join(holder, m[0])))
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => ({ gitDir: path.join(holder, m[0]), name: `${list}/${m[1]}` }));
  if (epochs.length === 0) throw new MailboxError(`--inbox ${dir}: not a public-inbox archive (no git directory, no N.git epochs)`, 'give a git clone --mirror of https://lore.kernel.org/<list>/0, or a folder of such epochs');
  return epochs;
}

/**
 * The list an epoch archives, as MAINTAINERS' L: lines name it ("linux-wireless"): its newest message's List-Id, or
 * X-Mailing-List (a mirror's folder is often named otherwise), else the archive's folder name.
 */
export async function epochList(epoch: InboxEpoch): Promise<string> {
  const newest = await gitRunRaw(epoch.gitDir, ['cat-file', 'blob', 'HEAD:m']);
  const head = newest.code === 0 ? newest.stdout.slice(0, Math.max(0, newest.stdout.search(/\r?\n\r?\n/))) : '';
  const id = /^list-id:[^<\n]*<([^.>@\s]+)[.@]/im.exec(head)?.[1] ?? /^x-mailing-list:\s*<?([^@>\s]+)@/im.exec(head)?.[1];
  return (id ?? epoch.name.split('/')[0]!).toLowerCase();
}

function isGitDir(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'objects')) && fs.existsSync(path.join(dir, 'HEAD'));
}

/**
 * Each message of an epoch as raw bytes, in arrival order, handed to `each` with its commit: those of `commits`, or
 * every commit after `since` (all without it), `git log` piped straight into one `git cat-file --batch` so the two
 * run side by side (an epoch is hundreds of megabytes). A commit without an `m` blob goes to `missing`.
 */
export async function catMessages(epoch: InboxEpoch, which: { commits: string[] } | { since?: string }, each: (commit: string, raw: Buffer) => void, missing: (commit: string) => void): Promise<void> {
  // Each request names the blob and, after it, its commit, which cat-file prints back (%(rest)).
  const requests = 'commits' in which ? { lines: which.commits.map((c) => `${c}:m ${c}\n`).join('') } : { log: ['--reverse', '--format=%H:m %H', which.since ? `${which.since}..HEAD` : 'HEAD'] };
  // Read in place: a message inside one chunk is handed on as a view of it, never copied; one that spans chunks
  // (a large patch) is joined once. `each` must copy what it keeps.
  const head: Buffer[] = [];
  const parts: Buffer[] = [];
  let commit = '';
  let got = 0;
  let want = -1;
  await gitCatFileStream(epoch.gitDir, '%(objectsize) %(rest)', requests, (chunk) => {
    let at = 0;
    while (at < chunk.length) {
      if (want < 0) {
        const nl = chunk.indexOf(10, at);
        if (nl < 0) {
          head.push(chunk.subarray(at));
          return;
        }
        head.push(chunk.subarray(at, nl));
        const header = Buffer.concat(head.splice(0)).toString('latin1');
        at = nl + 1;
        const [size, rest] = header.split(' ');
        // "<commit>:m missing": a commit whose tree holds no message.
        if (rest === 'missing') missing(size!.replace(/:m$/, ''));
        else {
          commit = rest!;
          // The content, and the LF after it.
          want = Number(size) + 1;
        }
        continue;
      }
      const take = Math.min(want - got, chunk.length - at);
      const whole = got === 0 && take === want;
      if (whole) each(commit, chunk.subarray(at, at + want - 1));
      else {
        parts.push(chunk.subarray(at, at + take));
        got += take;
        if (got === want) each(commit, Buffer.concat(parts.splice(0)).subarray(0, want - 1));
      }
      at += take;
      if (whole || got === want) {
        want = -1;
        got = 0;
      }
    }
  });
}

/** Index an epoch's messages after `since`: headers only. */
export async function indexEpoch(epoch: InboxEpoch, since?: string): Promise<{ mails: IndexedMail[]; skipped: SkippedMail[]; last?: string }> {
  const mails: IndexedMail[] = [];
  const skipped: SkippedMail[] = [];
  let last: string | undefined;
  await catMessages(
    epoch,
    since ? { since } : {},
    (commit, raw) => {
      last = commit;
      const m = indexMessage(raw);
      if (m) mails.push({ epoch: epoch.name, commit, ...m });
      else skipped.push({ epoch: epoch.name, commit, why: 'no mail headers (no Message-Id, From or Subject)' });
    },
    (commit) => {
      last = commit;
      skipped.push({ epoch: epoch.name, commit, why: 'no message in its tree (a deletion)' });
    },
  );
  return { mails, skipped, ...(last ? { last } : {}) };
}

const KEPT = /^(message-id|in-reply-to|references|subject|from|date):[ \t]*([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)/gim;

/** The headers the index keeps, read from the header block alone; undefined for text that is no mail. */
export function indexMessage(raw: Buffer): Omit<IndexedMail, 'epoch' | 'commit'> | undefined {
  // Buffer searches, not a decoded string: an epoch is hundreds of megabytes, its headers a small part.
  const lf = raw.indexOf('\n\n');
  // A CRLF mail has no \n\n before its body: its blank line is looked for only up to where \n\n is.
  const crlf = raw.subarray(0, lf < 0 ? raw.length : lf).indexOf('\r\n\r\n');
  const end = crlf >= 0 ? crlf : lf;
  const head = raw.subarray(0, end < 0 ? raw.length : end).toString('latin1');
  // Only the fields the index keeps, each with its folded lines; the first of each name counts.
  const fields = new Map<string, string>();
  for (const m of head.matchAll(KEPT)) {
    const name = m[1]!.toLowerCase();
    if (!fields.has(name)) fields.set(name, m[2]!.replace(/\r?\n[ \t]+/g, ' ').trim());
  }
  const id = ids(fields.get('message-id'))[0];
  const from = fields.get('from');
  if (!id && !from && !fields.has('subject')) return undefined;
  const date = fields.get('date') ? new Date(fields.get('date')!) : undefined;
  return {
    ...(id ? { messageId: id } : {}),
    ...(ids(fields.get('in-reply-to'))[0] ? { inReplyTo: ids(fields.get('in-reply-to'))[0] } : {}),
    references: ids(fields.get('references')),
    subject: decoded(fields.get('subject') ?? '').replace(/\s+/g, ' ').trim(),
    from: decoded(from ?? ''),
    ...(date && !Number.isNaN(date.getTime()) ? { date } : {}),
    diff: end >= 0 && hasDiffAfter(raw, end),
    ...(end >= 0 ? filesOf(raw, end) : {}),
    ...(end >= 0 && saysApplied(raw, end) ? { applied: true as const } : {}),
    ...(end >= 0 ? pullOf(raw, end) : {}),
  };
}

const REQUEST_PULL = 'are available in the Git repository at';

/** The repository a pull request asks to pull from: the first word of the line after git request-pull's words. */
function pullOf(raw: Buffer, from: number): { pulls?: string } {
  const at = raw.indexOf(REQUEST_PULL, from);
  // At a line's start, not quoted: the request itself, not a reply to it.
  if (at < 0 || raw[at - 1] !== 10) return {};
  const rest = raw.subarray(at, Math.min(raw.length, at + 400)).toString('latin1').split('\n').slice(1);
  const url = rest.find((l) => l.trim())?.trim().split(/\s+/)[0];
  return url && /[:/]/.test(url) ? { pulls: repoKey(url) } : {};
}

/** A repository as one key, however it is written: git://, https:// and ssh forms alike, without .git. */
export function repoKey(url: string): string {
  return url.toLowerCase().replace(/^[a-z+]+:\/\//, '').replace(/^[^@/]+@/, '').replace(/^([^/:]+):/, '$1/').replace(/\/+$/, '').replace(/\.git$/, '');
}

/** A diff in the body, as threads.ts' hasDiff finds one: `diff --git`, a `---`/`+++` pair, a hunk header. */
function hasDiffAfter(raw: Buffer, from: number): boolean {
  if (raw.indexOf('\ndiff --git ', from) >= 0 || raw.indexOf('\n@@ -', from) >= 0) return true;
  const minus = raw.indexOf('\n--- ', from);
  return minus >= 0 && raw.indexOf('\n+++ ', minus) >= 0;
}

/** The files of the `diff --git a/X b/X` lines after `from`, read with Buffer searches; none without such lines. */
function filesOf(raw: Buffer, from: number): { files?: string[] } {
  const files: string[] = [];
  for (let at = raw.indexOf('\ndiff --git a/', from); at >= 0; at = raw.indexOf('\ndiff --git a/', at + 1)) {
    const eol = raw.indexOf('\n', at + 1);
    const line = raw.subarray(at + 14, eol < 0 ? raw.length : eol).toString('utf8');
    const file = line.split(' b/')[0];
    if (file && !files.includes(file)) files.push(file);
  }
  return files.length ? { files } : {};
}

// "Applied, thanks", "Thanks, applied", and the counted forms of the wireless trees ("1 patch(es) applied to rtw-next
// branch of rtw.git, thanks.", "Patch applied to ath-next branch of ath.git, thanks.").
const APPLIED_LINE = /^(?:thanks,?\s+)?(?:(?:\d+\s+)?patch(?:\(es\)|es)?\s+)?(?:applied|queued)\b/i;

/** A line of the body, not a quoted one, that starts by saying it applied: found from each "pplied" or "ueued". */
function saysApplied(raw: Buffer, from: number): boolean {
  for (const word of ['pplied', 'ueued']) {
    for (let at = raw.indexOf(word, from); at >= 0; at = raw.indexOf(word, at + 1)) {
      const start = raw.lastIndexOf(10, at) + 1;
      if (start <= from) continue;
      const eol = raw.indexOf(10, at);
      if (APPLIED_LINE.test(raw.subarray(start, eol < 0 ? raw.length : eol).toString('latin1'))) return true;
    }
  }
  return false;
}

/**
 * Message-Ids of a header value, without angle brackets. Each a string of its own: a match is a slice that would
 * keep the message's whole header block alive in the index (7 KB a message instead of a few hundred bytes).
 */
function ids(value: string | undefined): string[] {
  return [...(value ?? '').matchAll(/<([^<>\s]+)>/g)].map((m) => Buffer.from(m[1]!, 'latin1').toString('latin1'));
}

/** An RFC 2047 header value in UTF-8 ("=?utf-8?q?...?=" decoded); the raw bytes read as UTF-8 otherwise. */
function decoded(value: string): string {
  const utf8 = Buffer.from(value, 'latin1').toString('utf8');
  if (!utf8.includes('=?')) return utf8;
  try {
    return libmime.decodeWords(utf8);
  } catch {
    return utf8;
  }
}

/** The indexed messages parsed in full (bodies decoded), in the order given: for a series to review. */
export async function readIndexed(epochs: InboxEpoch[], mails: IndexedMail[]): Promise<Message[]> {
  const raws = new Map<string, Buffer>();
  for (const e of epochs) {
    const commits = mails.filter((m) => m.epoch === e.name).map((m) => m.commit);
    if (commits.length) await catMessages(e, { commits }, (c, raw) => raws.set(c, Buffer.from(raw)), () => undefined);
  }
  return Promise.all(mails.filter((m) => raws.has(m.commit)).map((m) => parseMessage(raws.get(m.commit)!)));
}

/** Every epoch of the archives given (`--inbox`, repeatable), indexed in full, oldest message first in each. */
export async function indexInboxes(dirs: string[]): Promise<{ epochs: InboxEpoch[]; mails: IndexedMail[]; skipped: SkippedMail[] }> {
  const epochs = dirs.flatMap((d) => inboxEpochs(d));
  const mails: IndexedMail[] = [];
  const skipped: SkippedMail[] = [];
  for (const e of epochs) {
    const r = await indexEpoch(e);
    mails.push(...r.mails);
    skipped.push(...r.skipped);
  }
  return { epochs, mails, skipped };
}

/**
 * Every thread of the archives, as a mail reader shows them: each message under the parent the archives hold (its
 * In-Reply-To, else the last of its References that is there), each thread keyed by its root (the oldest ancestor
 * held), its messages in arrival order.
 */
export function threadsOf(mails: IndexedMail[]): Map<IndexedMail, IndexedMail[]> {
  const byId = new Map<string, IndexedMail>();
  for (const m of mails) if (m.messageId && !byId.has(m.messageId)) byId.set(m.messageId, m);
  const parentOf = (m: IndexedMail) => [m.inReplyTo, ...[...m.references].reverse()].find((p) => p !== undefined && p !== m.messageId && byId.has(p));
  const roots = new Map<IndexedMail, IndexedMail>();
  const rootOf = (m: IndexedMail): IndexedMail => {
    let root = m;
    // A loop of References (a client that got them wrong) ends where it closes.
    for (const seen = new Set<IndexedMail>(); !seen.has(root) && !roots.has(root); ) {
      seen.add(root);
      const p = parentOf(root);
      if (!p) break;
      root = byId.get(p)!;
    }
    const found = roots.get(root) ?? root;
    roots.set(m, found);
    return found;
  };
  const out = new Map<IndexedMail, IndexedMail[]>();
  for (const m of mails) {
    const root = rootOf(m);
    out.set(root, [...(out.get(root) ?? []), m]);
  }
  return out;
}

/** The thread `id` is in (threadsOf), in arrival order; empty when no message has that Message-Id. */
export function threadOf(mails: IndexedMail[], id: string): IndexedMail[] {
  const bare = id.replace(/^<|>$/g, '');
  const start = mails.find((m) => m.messageId === bare);
  if (!start) return [];
  return [...threadsOf(mails).values()].find((t) => t.includes(start)) ?? [];
}

/** A reply's subject (Re:, Aw:, Sv:), as mail tools tell replies from patches. */
export function isReply(subject: string): boolean {
  return /^(re|aw|sv)\s*:/i.test(subject);
}

/** A subject without its bracketed tags: "[PATCH net v2 1/3] x: y" is "x: y". */
export function withoutTags(subject: string): string {
  return subject.replace(/^(\s*\[[^\]]*\]\s*)+/, '').trim();
}
