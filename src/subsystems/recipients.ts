// Who a patch goes to. Recipients without keyword-only matches: get_maintainer.pl names the people of an entry whose N: regex matches a
// path (ARM/Microchip (AT91)'s `N: atmel` on drivers/net/wireless/atmel/at76c50x-usb.c) as if the entry covered
// the file. Such an entry covers none of the patch's files by an F: pattern; its people and lists are left out.
// And To: the people who apply the patch and those whose driver it is; everyone else Cc.
import { applyingEntry } from './applying-tree.js';
import { coverDepth, gitTrees, specificEntries, type MaintainersEntry } from './maintainers.js';

export interface Addressed {
  to: string[];
  cc: string[];
  /** Per address, the entries it was named for ('' for a reason that names no entry: "open list", git statistics). */
  entries?: Record<string, string[]>;
}

/** The addresses named only for entries that cover none of `files` by an F: pattern. */
export function keywordOnly(r: Addressed, files: string[], all: MaintainersEntry[]): string[] {
  const byName = new Map(all.map((e) => [e.name, e]));
  const covers = (name: string) => {
    const e = byName.get(name);
    // An entry kseries cannot find in MAINTAINERS (a name get_maintainer.pl shortened) is kept.
    return !e || files.some((f) => (coverDepth(e, f) ?? 0) > 0);
  };
  return Object.entries(r.entries ?? {})
    .filter(([, names]) => names.length > 0 && names.every((n) => n !== '' && !covers(n)))
    .map(([address]) => address);
}

/** The recipients without the keyword-only ones. */
export function withoutKeywordOnly<R extends Addressed>(r: R, files: string[], all: MaintainersEntry[]): R {
  const out = new Set(keywordOnly(r, files, all));
  return { ...r, to: r.to.filter((a) => !out.has(a)), cc: r.cc.filter((a) => !out.has(a)) };
}

/**
 * The entries whose maintainers a patch to `files` goes To: the entry whose tree applies it (subsystems/
 * applying-tree.ts) and the entries more specific than it (the driver's own maintainers, whose ack it waits for).
 * Broader entries (the subsystem above an own tree) and entries of other trees are Cc'd. `sections`: each file's
 * entries as get_maintainer.pl --sections gives them; `all`: every MAINTAINERS entry.
 */
export function toEntries(files: string[], sections: MaintainersEntry[][], all: MaintainersEntry[], appliersOnly = false): Set<string> {
  const out = new Set<string>();
  files.forEach((file, i) => {
    const specific = specificEntries(file, sections[i] ?? []);
    const applying = applyingEntry(file, specific, all);
    if (!applying) return;
    out.add(applying.name);
    // A folder's tree (applying-tree.ts, step 5) applies it from outside the file's entries: those above the first
    // with a tree of its own are the driver's.
    const at = specific.includes(applying) ? specific.indexOf(applying) : specific.findIndex((e) => gitTrees(e).length > 0);
    if (!appliersOnly) for (const e of specific.slice(0, at < 0 ? specific.length : at)) out.add(e.name);
  });
  return out;
}

/** The recipients with only the maintainers of `to` entries in To (the rest of To to Cc); as they were when none is. */
export function addressedTo<R extends Addressed>(r: R, to: Set<string>): R {
  const keep = r.to.filter((a) => (r.entries?.[a] ?? []).some((e) => to.has(e)));
  if (keep.length === 0) return r;
  return { ...r, to: keep, cc: [...r.to.filter((a) => !keep.includes(a)), ...r.cc] };
}
