// Where a patch to a file goes, read from the MAINTAINERS entries that cover it (get_maintainer.pl --sections): the
// git tree that applies it, the tag that tree asks for in the subject, and the entry's name for a subject prefix.
// Pure: the script's output in, a route out.
import path from 'node:path';

import { applyingEntry } from './applying-tree.js';
import { TREES, type TreeRules } from './conventions.js';
import { gitTrees, parseSections, repoOf, specificEntries, THE_REST, type MaintainersEntry } from './maintainers.js';

export { parseSections, THE_REST, type MaintainersEntry } from './maintainers.js';

export interface Route {
  /**
   * What applies the patch: the git tree of the most specific entry that names one ("akpm/mm", "netdev/net-next",
   * "tip/tip timers/core"), else that entry's name, else (only THE REST covers the file) "torvalds/linux".
   */
  tree: string;
  /** The tree as a series name part: "mm", "net-next", "tip-timers-core", "taskstats". */
  slug: string;
  /** The tree's tag in the subject ("[PATCH net-next]"), where its maintainers ask for one. */
  tag?: string;
  /** The entry whose tree applies the patch (a driver's own, or its subsystem's). */
  applyingEntry?: string;
  /** The P: profile of the applying tree's entries ("Documentation/process/maintainer-netdev.rst"). */
  profile?: string;
  /** The most specific entry; undefined when only THE REST covers the file. */
  entry?: string;
  /** That entry's `S:` status ("Orphan": nobody looks after the file). */
  status?: string;
  /** A subject prefix the entry's name gives for this file ("clocksource", "memcg"), if any. */
  prefix?: string;
  /** Its lists (for a file with no maintainer, the only recipients). */
  lists: string[];
  /**
   * The maintainers get_maintainer.pl names for the file (the M: lines of every entry but THE REST; none when only
   * THE REST covers it), without the notes after a name: read from the same run, so grouping asks once per file.
   */
  maintainers?: string[];
}

/**
 * get_maintainer.pl --sections for several files prints each file's entries in turn, every file's ending with THE
 * REST (its `F: *` covers every file and sorts last): the entries of each file, or undefined when the output does
 * not hold `files` such parts (a MAINTAINERS without THE REST), so that the caller asks file by file.
 */
export function entriesPerFile(output: string, files: number): MaintainersEntry[][] | undefined {
  const parts: MaintainersEntry[][] = [[]];
  for (const e of parseSections(output)) {
    parts[parts.length - 1]!.push(e);
    if (e.name === THE_REST) parts.push([]);
  }
  if (parts.pop()!.length) return undefined;
  return parts.length === files ? parts : undefined;
}

/**
 * The route of a patch to `file` from the entries that cover it (get_maintainer.pl --sections, in its order) and,
 * to tell a subsystem's drivers from a platform's, every MAINTAINERS entry (`all`). kseries' patches are new work:
 * a tree with a fixes and a next branch gets the next one, and its tag ("[PATCH net-next]") where the tree asks.
 */
export function routeOf(file: string, entries: MaintainersEntry[], all?: MaintainersEntry[]): Route {
  const specific = specificEntries(file, entries);
  const lists = [...new Set([...specific, ...entries.filter((e) => e.name === THE_REST)].flatMap((e) => e.lists))];
  const maintainers = [...new Set(specific.flatMap((e) => e.maintainers).map((m) => m.replace(/\s+\([^()]*\)$/, '')))];
  const status = specific[0]?.status;
  return { ...routeOfEntries(file, specific, all), lists, maintainers, ...(status ? { status } : {}) };
}

function routeOfEntries(file: string, specific: MaintainersEntry[], all: MaintainersEntry[] | undefined): Omit<Route, 'lists'> {
  const entry = specific[0]?.name;
  const prefix = entry ? entryPrefix(file, entry) : undefined;
  const applying = applyingEntry(file, specific, all);
  // An entry with several trees keeps one for fixes and one for new work (Intel's net-queue and next-queue): kseries'
  // patches are new work, so the tree that names "next" comes first, one that names "fixes" last.
  const rank = (t: string) => (/next/.test(t) ? 0 : /fixes|-rc\b|urgent/.test(t) ? 2 : 1);
  const git = applying ? gitTrees(applying).sort((a, b) => rank(a) - rank(b))[0] : undefined;
  if (applying && git) {
    const [, ...branch] = git.split(/\s+/);
    const repo = repoOf(git);
    const rules = treeRules(repo, applying.profile);
    const profile = applying.profile ?? specific.find((e) => e.profile && gitTrees(e).some((t) => repoOf(t) === repo))?.profile;
    const common = { entry, prefix, applyingEntry: applying.name, ...(profile ? { profile } : {}) };
    if (rules) return { tree: rules.repos[0]!, slug: rules.slug, ...(rules.tag ? { tag: rules.tag.next } : {}), ...common };
    const tree = [repo, ...branch].join(' ');
    // Many maintainers keep a "linux.git" of their own: "brgl/linux" is named by its owner too.
    const base = path.posix.basename(repo);
    const owner = repo.split('/').slice(-2, -1)[0];
    const name = /^linux$/.test(base) && owner ? `${owner}-linux` : base;
    return { tree, slug: slug([name, ...branch].join('-')), ...common };
  }
  if (entry) return { tree: entry, slug: slug(entry.split(/[^A-Za-z0-9]+/).find(Boolean) ?? entry), entry, prefix };
  return { tree: 'torvalds/linux', slug: 'linux' };
}

/**
 * A subject prefix from an entry's name: a word of it that names the file or one of its folders ("TIMEKEEPING,
 * CLOCKSOURCE CORE" for kernel/time/clocksource.c: "clocksource"), else its short name in brackets ("CONTROL GROUP -
 * MEMORY RESOURCE CONTROLLER (MEMCG)": "memcg", "NETWORKING [TCP]": "tcp").
 */
export function entryPrefix(file: string, entry: string): string | undefined {
  const lower = entry.toLowerCase();
  // "PER-CPU" names percpu.c too.
  const words = [...lower.split(/[^a-z0-9_]+/), ...(lower.match(/[a-z0-9_]+(?:-[a-z0-9_]+)+/g) ?? []).map((w) => w.replace(/-/g, ''))].filter(Boolean);
  // The file's stem and folders, the top one left out ("kernel", "drivers" name no subsystem).
  const parts = file.replace(/\.[ch]$/, '').split('/').slice(1).reverse();
  const named = parts.find((p) => words.includes(p.toLowerCase()));
  if (named) return named;
  const short = /[([]([A-Za-z0-9_-]+)[)\]]/.exec(entry)?.[1]?.toLowerCase();
  return short && !GENERIC.has(short) ? short : undefined;
}

/** Short names in brackets that name no subsystem ("NETWORKING [GENERAL]"). */
const GENERIC = new Set(['general', 'core', 'drivers', 'misc', 'other', 'common']);

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
}

/** The rules table's entry for a repository (or for the profile its entry names), if the table has one. */
export function treeRules(repo: string, profile?: string): TreeRules | undefined {
  return TREES.find((t) => t.repos.includes(repo)) ?? (profile ? TREES.find((t) => t.profile === profile) : undefined);
}
