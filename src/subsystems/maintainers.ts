// MAINTAINERS entries as get_maintainer.pl --sections prints them (or as the file holds them), and how closely an
// entry covers a file: by an F: pattern (the deeper the pattern, the more specific), or only by an N: name regex,
// which is a keyword match (ARM/Microchip's `N: atmel` names every file with "atmel" in its path). Pure.

/** One MAINTAINERS entry. */
export interface MaintainersEntry {
  name: string;
  /** Its `T:` lines ("git git://git.kernel.org/pub/scm/linux/kernel/git/tip/tip.git timers/core"). */
  trees: string[];
  /** Its `M:` lines. */
  maintainers: string[];
  /** Its `R:` lines. */
  reviewers?: string[];
  /** Its `L:` lines. */
  lists: string[];
  /** Its `F:` patterns. */
  files?: string[];
  /** Its `X:` patterns. */
  excluded?: string[];
  /** Its `N:` regular expressions. */
  names?: string[];
  /** Its `P:` line: the subsystem's profile (a Documentation/ file or a URL). */
  profile?: string;
  /** Its `S:` line: Supported, Maintained, Odd Fixes, Orphan, Obsolete, ... */
  status?: string;
}

/** The catch-all entry that covers every file (`F: *`): a file only it covers has no maintainer. */
export const THE_REST = 'THE REST';

/** Entries from get_maintainer.pl --sections output or the MAINTAINERS file: a name line, then its `X:\tvalue` lines. */
export function parseSections(output: string): MaintainersEntry[] {
  const entries: MaintainersEntry[] = [];
  let current: MaintainersEntry | undefined;
  for (const line of output.split('\n')) {
    const field = /^([A-Z]):\s*(.*)$/.exec(line);
    if (field && current) {
      const value = field[2]!.trim();
      const add = (key: 'trees' | 'maintainers' | 'reviewers' | 'lists' | 'files' | 'excluded' | 'names') => (current![key] ??= []).push(value);
      switch (field[1]) {
        case 'T': add('trees'); break;
        case 'M': add('maintainers'); break;
        case 'R': add('reviewers'); break;
        case 'L': add('lists'); break;
        case 'F': add('files'); break;
        case 'X': add('excluded'); break;
        case 'N': add('names'); break;
        case 'P': current.profile = value; break;
        case 'S': current.status = value; break;
      }
    } else if (line.trim() && !field) {
      current = { name: line.trim(), trees: [], maintainers: [], lists: [] };
      entries.push(current);
    } else if (!line.trim()) current = undefined;
  }
  return entries;
}

/** Each F:/X: pattern as a regex, made once: who-applies asks thousands of files of hundreds of entries. */
const PATTERNS = new Map<string, RegExp>();

/** Whether an F: (or X:) pattern covers `file`, as get_maintainer.pl matches: a trailing / or a directory covers what is under it; * and ? stay within a folder. */
export function patternCovers(pattern: string, file: string): boolean {
  const glob = /[*?]/.test(pattern);
  let re = PATTERNS.get(pattern);
  if (!re) PATTERNS.set(pattern, (re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}`)));
  if (pattern.endsWith('/')) return re.test(file);
  const m = re.exec(file);
  if (!m) return false;
  const rest = file.slice(m[0].length);
  return rest === '' || (!glob && rest.startsWith('/'));
}

/**
 * How specifically `entry` covers `file`: the depth of its deepest F: pattern that covers it (a pattern naming the
 * file itself one deeper than its folder), 0 when only an N: regex names it (a keyword match), undefined when neither
 * does or an X: pattern takes the file out.
 */
export function coverDepth(entry: MaintainersEntry, file: string): number | undefined {
  if (entry.excluded?.some((x) => patternCovers(x, file))) return undefined;
  let depth: number | undefined;
  for (const f of entry.files ?? []) {
    if (!patternCovers(f, file)) continue;
    // A bare * adds no depth: lib/* covers lib/ as a whole.
    const d = f.replace(/\/$/, '').split('/').filter((c) => c !== '*').length + (f === file ? 1 : 0);
    depth = Math.max(depth ?? 0, d);
  }
  if (depth !== undefined) return depth;
  return entry.names?.some((n) => safeRegex(n)?.test(file)) ? 0 : undefined;
}

function safeRegex(source: string): RegExp | undefined {
  try {
    return new RegExp(source);
  } catch {
    return undefined;
  }
}

/** The deepest F: pattern of `entry` that covers `file`, if one does. */
export function coveringPattern(entry: MaintainersEntry, file: string): string | undefined {
  const depth = (f: string) => f.replace(/\/$/, '').split('/').filter((c) => c !== '*').length;
  return (entry.files ?? []).filter((f) => patternCovers(f, file)).sort((a, b) => depth(b) - depth(a))[0];
}

/**
 * The entries that cover `file` by an F: pattern, the most specific first (get_maintainer.pl prints them in
 * MAINTAINERS order), without THE REST and without entries that name the file only by an N: keyword. An entry
 * that lists no F: at all (as a unit test may write it) keeps its place.
 */
export function specificEntries(file: string, entries: MaintainersEntry[]): MaintainersEntry[] {
  const ranked = entries
    .filter((e) => e.name !== THE_REST)
    .map((e, i) => ({ e, i, depth: e.files === undefined && e.names === undefined ? Number.MAX_SAFE_INTEGER - i : coverDepth(e, file) }))
    .filter((r) => r.depth !== undefined && r.depth > 0);
  return ranked.sort((a, b) => b.depth! - a.depth! || a.i - b.i).map((r) => r.e);
}

/** The git trees an entry names ("git://…/netdev/net-next.git"), its other T: kinds (quilt, hg) left out. */
export function gitTrees(entry: MaintainersEntry): string[] {
  return entry.trees.filter((t) => t.startsWith('git ')).map((t) => t.slice(4).trim());
}

/** A tree's repository without scheme and host ("netdev/net-next", "github.com/pkshih/rtw"), the branch left out. */
export function repoOf(tree: string): string {
  const url = tree.split(/\s+/)[0]!;
  return url.replace(/^.*\/scm\/linux\/kernel\/git\//, '').replace(/^[a-z+]+:\/\//, '').replace(/\.git$/, '').replace(/\/$/, '');
}
