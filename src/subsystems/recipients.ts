// Recipients without keyword-only matches: get_maintainer.pl names the people of an entry whose N: regex matches a
// path (ARM/Microchip (AT91)'s `N: atmel` on drivers/net/wireless/atmel/at76c50x-usb.c) as if the entry covered
// the file. Such an entry covers none of the patch's files by an F: pattern; its people and lists are left out.
import { coverDepth, type MaintainersEntry } from './maintainers.js';

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
