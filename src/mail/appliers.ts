// Who applies a MAINTAINERS entry's patches today, as the lists show it: the people whose replies say they applied
// patches to the entry's files, how often and when last; and when each of the entry's listed maintainers last wrote to
// the lists. MAINTAINERS lags (a maintainer who stepped down is still listed); the archive does not. Pure: an index in.
import type { IndexedMail } from './inbox.js';
import { patternCovers, type MaintainersEntry } from '../subsystems/maintainers.js';

/** A person's mail, the latest: its date and Message-Id. */
export interface Evidence {
  date: string;
  messageId: string;
}

export interface EntryAppliers {
  entry: string;
  /** Listed maintainers (M:) silent for more than a year, or never seen in the archives, with their last message. */
  silent: { who: string; last?: Evidence }[];
  /** Who applied patches to the entry's files, the most often first. */
  appliers: { who: string; address: string; count: number; last: Evidence }[];
}

const YEAR = 365 * 24 * 3600 * 1000;

/**
 * For each entry whose list (L:) is among the archives' (`lists`: "linux-wpan"), its silent maintainers and who
 * applies its files' patches, from the archives' index at `now`. An entry of another list is not judged: its people
 * write there (netdev's maintainers are rarely on linux-wpan).
 */
export function whoApplies(mails: IndexedMail[], all: MaintainersEntry[], now: Date, lists: string[]): EntryAppliers[] {
  const entries = all.filter((e) => e.lists.some((l) => lists.includes(l.replace(/[\s@].*$/, '').toLowerCase())));
  const byId = new Map(mails.filter((m) => m.messageId).map((m) => [m.messageId!, m]));
  // Each "applied" reply with the files of the patches it answers: the patch itself, or those under a cover letter.
  const applied = mails
    .filter((m) => m.applied && !m.diff && m.inReplyTo)
    .map((m) => {
      const target = byId.get(m.inReplyTo!);
      const patches = !target ? [] : target.diff ? [target] : mails.filter((p) => p.diff && p.inReplyTo === target.messageId);
      return { reply: m, files: [...new Set(patches.flatMap((p) => p.files ?? []))] };
    })
    .filter((a) => a.files.length > 0);
  const latest = (who: string) => {
    const { name, address } = person(who);
    const own = mails.filter((m) => {
      const p = person(m.from);
      return (address && p.address === address) || (name && p.name === name);
    });
    const last = own.reduce<IndexedMail | undefined>((a, b) => (!a || (b.date?.getTime() ?? 0) > (a.date?.getTime() ?? 0) ? b : a), undefined);
    return last?.date ? { date: last.date.toISOString().slice(0, 10), messageId: last.messageId ?? '', at: last.date } : undefined;
  };
  return entries.map((e) => {
    const covers = (f: string) => (e.files ?? []).some((p) => patternCovers(p, f)) && !(e.excluded ?? []).some((x) => patternCovers(x, f));
    const by = new Map<string, { who: string; address: string; count: number; last: Evidence; at: number }>();
    for (const a of applied.filter((x) => x.files.some(covers))) {
      const p = person(a.reply.from);
      const key = p.address || p.name;
      const at = a.reply.date?.getTime() ?? 0;
      const had = by.get(key);
      const last = { date: a.reply.date?.toISOString().slice(0, 10) ?? '', messageId: a.reply.messageId ?? '' };
      by.set(key, { who: a.reply.from, address: p.address, count: (had?.count ?? 0) + 1, last: had && had.at > at ? had.last : last, at: Math.max(had?.at ?? 0, at) });
    }
    const silent = e.maintainers.flatMap((m) => {
      const last = latest(m);
      if (last && now.getTime() - last.at.getTime() <= YEAR) return [];
      return [{ who: m.replace(/\s+\([^()]*\)$/, ''), ...(last ? { last: { date: last.date, messageId: last.messageId } } : {}) }];
    });
    const appliers = [...by.values()].sort((a, b) => b.count - a.count || b.at - a.at).map(({ at: _at, ...x }) => x);
    return { entry: e.name, silent, appliers };
  });
}

/** "Name <address>" as its name and lower-case address. */
function person(who: string): { name: string; address: string } {
  const m = /^\s*"?([^"<]*?)"?\s*<([^>]+)>/.exec(who);
  return m ? { name: m[1]!.trim(), address: m[2]!.trim().toLowerCase() } : { name: '', address: who.trim().toLowerCase() };
}
