// Who applies a MAINTAINERS entry's patches today, as the lists show it: the people whose replies say they applied
// patches to the entry's files, and who send the pull requests of its trees (T:), how often and when last; and when
// each of the entry's listed maintainers last wrote to the lists. MAINTAINERS lags (a maintainer who stepped down is
// still listed); the archive does not. Pure: an index in.
import { repoKey, type IndexedMail } from './inbox.js';
import { coverDepth, patternCovers, type MaintainersEntry } from '../subsystems/maintainers.js';

/** A person's mail, the latest: its date and Message-Id. */
export interface Evidence {
  date: string;
  messageId: string;
}

export interface EntryAppliers {
  entry: string;
  /** Listed maintainers (M:) silent for more than a year, or never seen in the archives, with their last message. */
  silent: { who: string; last?: Evidence }[];
  /**
   * Who applies the entry's patches: replies saying they applied patches to its files (`count`), pull requests of its
   * trees sent (`pulls`). Those active in the year before the archives' newest message first, then by how much.
   */
  appliers: { who: string; address: string; count: number; pulls: number; last: Evidence; active: boolean }[];
}

const YEAR = 365 * 24 * 3600 * 1000;

/**
 * For each entry whose list (L:) is among the archives' (`lists`: "linux-wpan"), its silent maintainers and who
 * applies its files' patches, from the archives' index as of `asOf` (the newest message: a mirror is as old as its
 * last fetch). An entry of another list is not judged: its people write there (netdev's are rarely on linux-wpan).
 */
export function whoApplies(mails: IndexedMail[], all: MaintainersEntry[], asOf: Date, lists: string[], only?: (e: MaintainersEntry) => boolean): EntryAppliers[] {
  const listed = all.filter((e) => e.lists.some((l) => lists.includes(l.replace(/[\s@].*$/, '').toLowerCase())));
  const entries = only ? listed.filter(only) : listed;
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
  const pulls = mails.filter((m) => m.pulls && !m.inReplyTo);
  const latest = (who: string) => {
    const { name, address } = person(who);
    const own = mails.filter((m) => {
      const p = person(m.from);
      return (address && p.address === address) || (name && p.name === name);
    });
    const last = own.reduce<IndexedMail | undefined>((a, b) => (!a || (b.date?.getTime() ?? 0) > (a.date?.getTime() ?? 0) ? b : a), undefined);
    return last?.date ? { date: last.date.toISOString().slice(0, 10), messageId: last.messageId ?? '', at: last.date } : undefined;
  };
  // An entry without a tree of its own is applied through the deepest entry with one above its files (a driver's
  // through its subsystem's): that entry's trees' pull requests speak for it.
  const treesOf = (e: MaintainersEntry): string[] => {
    if (e.trees.length) return e.trees;
    const above = (e.files ?? []).flatMap((f) => listed.flatMap((x) => (x !== e && x.trees.length && !(x.files ?? []).includes(f) ? [{ x, depth: coverDepth(x, f) ?? 0 }] : [])).filter((a) => a.depth > 0));
    const deepest = Math.max(0, ...above.map((a) => a.depth));
    return [...new Set(above.filter((a) => a.depth === deepest).flatMap((a) => a.x.trees))];
  };
  return entries.map((e) => {
    const covers = (f: string) => (e.files ?? []).some((p) => patternCovers(p, f)) && !(e.excluded ?? []).some((x) => patternCovers(x, f));
    const trees = new Set(treesOf(e).map((t) => repoKey(t.split(/\s+/)[1] ?? t)));
    // One person under every address they wrote from (a maintainer who changed employer): by name where there is one.
    const by = new Map<string, { who: string; address: string; count: number; pulls: number; last: Evidence; at: number }>();
    const add = (m: IndexedMail, kind: 'count' | 'pulls') => {
      const p = person(m.from);
      const key = p.name.toLowerCase() || p.address;
      const at = m.date?.getTime() ?? 0;
      const had = by.get(key) ?? { who: m.from, address: p.address, count: 0, pulls: 0, last: { date: '', messageId: '' }, at: -1 };
      const newer = at > had.at;
      by.set(key, { ...had, ...(newer ? { who: m.from, address: p.address, last: { date: m.date?.toISOString().slice(0, 10) ?? '', messageId: m.messageId ?? '' }, at } : {}), [kind]: had[kind] + 1 });
    };
    for (const a of applied.filter((x) => x.files.some(covers))) add(a.reply, 'count');
    for (const m of pulls.filter((x) => trees.has(x.pulls!))) add(m, 'pulls');
    const silent = e.maintainers.flatMap((m) => {
      const last = latest(m);
      if (last && asOf.getTime() - last.at.getTime() <= YEAR) return [];
      return [{ who: m.replace(/\s+\([^()]*\)$/, ''), ...(last ? { last: { date: last.date, messageId: last.messageId } } : {}) }];
    });
    const active = (x: { at: number }) => asOf.getTime() - x.at <= YEAR;
    // Active in the year first; then who sends the tree's pull requests (the tree is theirs), then the most.
    const appliers = [...by.values()]
      .sort((a, b) => Number(active(b)) - Number(active(a)) || Number(b.pulls > 0) - Number(a.pulls > 0) || b.count + b.pulls - (a.count + a.pulls) || b.at - a.at)
      .map(({ at, ...x }) => ({ ...x, active: active({ at }) }));
    return { entry: e.name, silent, appliers };
  });
}

/** "Name <address>" as its name and lower-case address. */
function person(who: string): { name: string; address: string } {
  const m = /^\s*"?([^"<]*?)"?\s*<([^>]+)>/.exec(who);
  return m ? { name: m[1]!.trim(), address: m[2]!.trim().toLowerCase() } : { name: '', address: who.trim().toLowerCase() };
}

/** How a person's applying is said: "Stefan Schmidt <...> (19 applied, last 2026-06-19 <id>)", pull requests too. */
export function applierLine(a: EntryAppliers['appliers'][number]): string {
  const what = [a.count ? `${a.count} applied` : '', a.pulls ? `${a.pulls} pull request${a.pulls === 1 ? '' : 's'}` : ''].filter(Boolean).join(', ');
  return `${a.who} (${what}, last ${a.last.date} <${a.last.messageId}>)`;
}
