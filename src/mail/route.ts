// Where a patch to a file goes, read from the MAINTAINERS entries that cover it (get_maintainer.pl --sections): the
// git tree that applies it, the tag that tree asks for in the subject, and the entry's name for a subject prefix.
// Pure: the script's output in, a route out.
import path from 'node:path';

/** One MAINTAINERS entry as get_maintainer.pl --sections prints it, the most specific first. */
export interface MaintainersEntry {
  name: string;
  /** Its `T:` lines ("git git://git.kernel.org/pub/scm/linux/kernel/git/tip/tip.git timers/core"). */
  trees: string[];
  /** Its `M:` lines. */
  maintainers: string[];
  /** Its `L:` lines. */
  lists: string[];
}

/** The catch-all entry that covers every file (`F: *`): a file only it covers has no maintainer. */
export const THE_REST = 'THE REST';

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
  /** The most specific entry; undefined when only THE REST covers the file. */
  entry?: string;
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

export function parseSections(output: string): MaintainersEntry[] {
  const entries: MaintainersEntry[] = [];
  let current: MaintainersEntry | undefined;
  for (const line of output.split('\n')) {
    const field = /^([A-Z]):\s*(.*)$/.exec(line);
    if (field && current) {
      const [, key, value] = field;
      if (key === 'T') current.trees.push(value!.trim());
      else if (key === 'M') current.maintainers.push(value!.trim());
      else if (key === 'L') current.lists.push(value!.trim());
    } else if (line.trim() && !field) {
      current = { name: line.trim(), trees: [], maintainers: [], lists: [] };
      entries.push(current);
    } else if (!line.trim()) current = undefined;
  }
  return entries;
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
 * The route of a patch to `file` from the entries that cover it. A networking tree is net-next (kseries' patches
 * are no fixes), tagged in the subject as Documentation/process/maintainer-netdev.rst asks.
 */
export function routeOf(file: string, entries: MaintainersEntry[]): Route {
  const specific = entries.filter((e) => e.name !== THE_REST);
  const lists = [...new Set(entries.flatMap((e) => e.lists))];
  const maintainers = [...new Set(specific.flatMap((e) => e.maintainers).map((m) => m.replace(/\s+\([^()]*\)$/, '')))];
  return { ...routeOfEntries(file, specific, lists), maintainers };
}

function routeOfEntries(file: string, specific: MaintainersEntry[], lists: string[]): Route {
  const entry = specific[0]?.name;
  const prefix = entry ? entryPrefix(file, entry) : undefined;
  const withTree = specific.find((e) => e.trees.some((t) => t.startsWith('git ')));
  // An entry with several trees keeps one for fixes and one for new work (Intel's net-queue and next-queue): kseries'
  // patches are new work, so the tree that names "next" comes first, one that names "fixes" last.
  const rank = (t: string) => (/next/.test(t) ? 0 : /fixes|-rc\b|urgent/.test(t) ? 2 : 1);
  const git = withTree?.trees.filter((t) => t.startsWith('git ')).sort((a, b) => rank(a) - rank(b))[0];
  if (git) {
    const [url, ...branch] = git.slice(4).trim().split(/\s+/);
    const repo = url!.replace(/^.*\/scm\/linux\/kernel\/git\//, '').replace(/\.git$/, '');
    // Networking subjects name the protocol or driver, else "net" (maintainer-netdev.rst's own examples).
    if (/^netdev\/net(-next)?$/.test(repo)) return { tree: 'netdev/net-next', slug: 'net-next', tag: 'net-next', entry, prefix: prefix ?? 'net', lists };
    const tree = [repo, ...branch].join(' ');
    // Many maintainers keep a "linux.git" of their own: "brgl/linux" is named by its owner too.
    const name = /^linux(\.git)?$/.test(path.posix.basename(repo)) ? repo.replace(/\//g, '-') : path.posix.basename(repo);
    return { tree, slug: slug([name, ...branch].join('-')), entry, prefix, lists };
  }
  if (entry) return { tree: entry, slug: slug(entry.split(/[^A-Za-z0-9]+/).find(Boolean) ?? entry), entry, prefix, lists };
  return { tree: 'torvalds/linux', slug: 'linux', lists };
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
