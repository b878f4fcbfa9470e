// `kseries watch`: a review bot over list archives, as NIPA and 0-day are over the lists they read. Each cycle reads
// the mail that came since the last (public-inbox epochs, mail/inbox.ts), forms threads, and reviews each complete
// series it has not reviewed, in the order they came. What it has read and reviewed is kept in a state folder after
// every step, so a killed bot picks up where it stopped and reviews nothing twice.
import fs from 'node:fs';
import path from 'node:path';
import { KseriesError, LockedError, MailboxError } from '../errors.js';
import { inboxEpochs, indexEpoch, readIndexed, threadsOf, type InboxEpoch, type IndexedMail } from '../mail/inbox.js';
import type { Message } from '../mail/mailbox.js';
import { gitRunRaw } from '../tools/git.js';
import { parseSubject } from './subject.js';

/** What became of a series the bot took up. */
export interface Watched {
  key: string;
  subject: string;
  version: number;
  verdict: 'clean' | 'findings' | 'not applicable';
  /** Why it was not applicable, or where its report went. */
  detail: string;
  /** How long its review took, in seconds. */
  seconds?: number;
}

/** The bot's memory, in `<state>/watch.json`: how far each epoch was read, and every series taken up. */
export interface WatchState {
  epochs: Record<string, string>;
  /** Series (thread root and version) already reviewed, by key. */
  reviewed: Record<string, Watched>;
  /** Threads begun before this are not the bot's (--since on its first cycle). */
  since?: string;
}

export interface WatchOptions {
  inboxes: string[];
  /** The folder that keeps watch.json and the index of every message read (index.jsonl). */
  stateDir: string;
  since?: Date;
  /** At most this many reviews in this cycle (the rest in the next). */
  limit?: number;
  /** Review one series: its thread's messages, the Message-Id of its root. */
  review: (messages: Message[], root: string) => Promise<Omit<Watched, 'key'>>;
  /** Each series as it is done, and what the bot skipped. */
  onSeries?: (w: Watched) => void;
  /** How often to look whether another kseries run has let go of the tree, in ms (default 5000). */
  lockPoll?: number;
  log?: (line: string) => void;
}

export interface CycleResult {
  read: number;
  series: Watched[];
}

/** One cycle: fetch and read new mail, then review every complete series not yet reviewed, oldest first. */
export async function watchCycle(opts: WatchOptions): Promise<CycleResult> {
  fs.mkdirSync(opts.stateDir, { recursive: true });
  const state = loadState(opts.stateDir);
  if (opts.since && !state.since) state.since = opts.since.toISOString();
  const epochs = opts.inboxes.flatMap((d) => inboxEpochs(d));
  const mails = loadIndex(opts.stateDir);
  let read = 0;
  for (const e of epochs) {
    await fetchEpoch(e, opts.log);
    const r = await indexEpoch(e, state.epochs[e.name]);
    for (const s of r.skipped) opts.log?.(`${s.epoch}: commit ${s.commit.slice(0, 12)} skipped: ${s.why}`);
    const known = new Set(mails.map((m) => `${m.epoch} ${m.commit}`));
    const fresh = r.mails.filter((m) => !known.has(`${m.epoch} ${m.commit}`));
    if (fresh.length) appendIndex(opts.stateDir, fresh);
    mails.push(...fresh);
    read += fresh.length;
    if (r.last) state.epochs[e.name] = r.last;
  }
  // The index first: a bot killed during its reviews has read this mail already and reviews what is left.
  saveState(opts.stateDir, state);
  const since = state.since ? new Date(state.since) : undefined;
  const done: Watched[] = [];
  for (const s of completeSeries(mails)) {
    if (state.reviewed[s.key] || (since && (s.root.date ?? new Date(0)) < since)) continue;
    if (opts.limit !== undefined && done.length >= opts.limit) break;
    const w = await reviewOnce(opts, s, await readIndexed(epochs, s.thread));
    state.reviewed[s.key] = w;
    saveState(opts.stateDir, state);
    opts.onSeries?.(w);
    done.push(w);
  }
  return { read, series: done };
}

/**
 * One series reviewed, however long another kseries run holds the tree (a bot outlives the commands run beside it);
 * a thread that is no series to review (a pull request, patches only in replies) is said so once.
 */
async function reviewOnce(opts: WatchOptions, s: ThreadSeries, messages: Message[]): Promise<Watched> {
  let waited = false;
  for (;;) {
    const started = process.hrtime.bigint();
    const seconds = () => Math.round(Number(process.hrtime.bigint() - started) / 1e8) / 10;
    try {
      return { key: s.key, ...(await opts.review(messages, s.root.messageId!)), seconds: seconds() };
    } catch (e) {
      if (e instanceof LockedError) {
        const poll = opts.lockPoll ?? 5000;
        if (!waited) opts.log?.(`${e.message}: waiting for it (looking every ${poll / 1000} s)`);
        waited = true;
        await new Promise((r) => setTimeout(r, poll));
        continue;
      }
      if (!(e instanceof MailboxError)) throw e;
      return { key: s.key, subject: s.subject, version: s.version, verdict: 'not applicable', detail: (e as KseriesError).message, seconds: seconds() };
    }
  }
}

/** A series as sent in one thread: its root, its newest version's parts all there. */
interface ThreadSeries {
  key: string;
  root: IndexedMail;
  thread: IndexedMail[];
  subject: string;
  version: number;
}

/**
 * The threads that hold a complete series, in the order their roots came: every part 1..n of the thread's newest
 * version present (a cover letter is not required). Keyed by root and version, so a v2 sent in its own thread, or
 * into the v1 thread, is a new series to review.
 */
export function completeSeries(mails: IndexedMail[]): ThreadSeries[] {
  const threads = threadsOf(mails);
  const out: ThreadSeries[] = [];
  for (const [root, thread] of threads) {
    const parts = thread.map((m) => ({ m, s: parseSubject(m.subject) })).filter(({ m, s }) => !s.reply && (s.patch || m.diff) && (m.diff || s.index === 0));
    const patches = parts.filter(({ m, s }) => m.diff && s.index > 0);
    if (patches.length === 0) continue;
    const version = Math.max(...patches.map(({ s }) => s.version));
    const mine = patches.filter(({ s }) => s.version === version);
    const total = Math.max(...mine.map(({ s }) => s.total));
    const have = new Set(mine.map(({ s }) => s.index));
    if (!Array.from({ length: total }, (_, i) => i + 1).every((i) => have.has(i))) continue;
    const cover = parts.find(({ s }) => s.index === 0 && s.version === version);
    out.push({ key: `${root.messageId ?? root.commit}#v${version}`, root, thread, subject: (cover ?? mine[0]!).s.summary, version });
  }
  return out;
}

/** `git fetch` where the epoch has a remote (a mirror of lore keeps one); a failed fetch is said and read as it is. */
async function fetchEpoch(e: InboxEpoch, log?: (line: string) => void): Promise<void> {
  const remote = await gitRunRaw(e.gitDir, ['config', '--get', 'remote.origin.url']);
  if (remote.code !== 0 || !remote.stdout.trim()) return;
  const r = await gitRunRaw(e.gitDir, ['fetch', '-q', 'origin']);
  if (r.code !== 0) log?.(`${e.name}: git fetch failed (${r.stderr.trim().split('\n').pop()}); reading what it has`);
}

const STATE = 'watch.json';
const INDEX = 'index.jsonl';

function loadState(dir: string): WatchState {
  const file = path.join(dir, STATE);
  if (!fs.existsSync(file)) return { epochs: {}, reviewed: {} };
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as WatchState;
  } catch {
    throw new MailboxError(`${file}: not the state a watch wrote`, 'remove it (the bot then starts over) or give another --state');
  }
}

/** Written whole and renamed into place: a kill leaves the old state or the new one, never half of one. */
function saveState(dir: string, state: WatchState): void {
  const tmp = path.join(dir, `${STATE}.tmp`);
  fs.writeFileSync(tmp, `${JSON.stringify(state, null, 1)}\n`);
  fs.renameSync(tmp, path.join(dir, STATE));
}

function loadIndex(dir: string): IndexedMail[] {
  const file = path.join(dir, INDEX);
  if (!fs.existsSync(file)) return [];
  // A line a kill cut short is the last; it is read again from git, as the state's epochs say, and kept once.
  const seen = new Set<string>();
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((l) => {
      try {
        const m = JSON.parse(l) as IndexedMail & { date?: string };
        if (seen.has(`${m.epoch} ${m.commit}`)) return [];
        seen.add(`${m.epoch} ${m.commit}`);
        return [{ ...m, ...(m.date ? { date: new Date(m.date) } : {}) } as IndexedMail];
      } catch {
        return [];
      }
    });
}

function appendIndex(dir: string, mails: IndexedMail[]): void {
  fs.appendFileSync(path.join(dir, INDEX), mails.map((m) => `${JSON.stringify(m)}\n`).join(''));
}
