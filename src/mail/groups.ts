// Cutting a tree-wide change the way maintainers take it: one group per tree and set of maintainers (MAINTAINERS and
// get_maintainer.pl), one series per tree, and a subject prefix in the style of each file's history. Shared by every
// recipe that splits (static-keys, cocci) and by `kseries split`.
import path from 'node:path';
import type { Route } from './route.js';

/** get_maintainer.pl runs at once for a context whose routes carry no maintainers (more only contend for two cores). */
const MAINTAINER_QUERIES = 4;

/** What grouping asks of the tree: get_maintainer.pl's answers and a file's history (recipes' context has them). */
export interface GroupServices {
  maintainersOf(file: string): Promise<string[]>;
  routeOf?(file: string): Promise<Route>;
  subjectsOf?(file: string): Promise<string[]>;
}

export interface Group<F extends { file: string }> {
  /** The subject prefix: the files' history's, else their MAINTAINERS entry's, else one made from their paths. */
  prefix: string;
  /** The subject's first word is lower case in the files' history ("memcg: convert ..."). */
  lower: boolean;
  tree: string;
  route: Route;
  maintainers: string[];
  files: F[];
}

/**
 * One group per tree and set of maintainers (and `key`, when given: static-keys keeps RFC flags apart), in the order
 * of `files`; files no maintainer covers are grouped by folder.
 */
export async function groupByMaintainers<F extends { file: string }>(ctx: GroupServices, files: F[], key: (f: F) => string = () => ''): Promise<Group<F>[]> {
  // All at once: the tree's routing reads many files in one get_maintainer.pl run.
  const routes = await Promise.all(files.map((f) => routeFor(ctx, f.file)));
  const maintainers: string[][] = [];
  for (let i = 0; i < files.length; i += MAINTAINER_QUERIES) {
    // The route read the maintainers from the same get_maintainer.pl run; a context without them asks again.
    maintainers.push(...(await Promise.all(files.slice(i, i + MAINTAINER_QUERIES).map((f, j) => routes[i + j]!.maintainers ?? ctx.maintainersOf(f.file)))));
  }
  const groups = new Map<string, { maintainers: string[]; route: Route; files: F[] }>();
  files.forEach((f, i) => {
    const m = maintainers[i]!;
    const route = routes[i]!;
    const id = `${route.tree}\n${key(f)}\n${m.length ? [...m].sort().join('\n') : `no maintainer: ${path.posix.dirname(f.file)}`}`;
    if (!groups.has(id)) groups.set(id, { maintainers: m, route, files: [] });
    groups.get(id)!.files.push(f);
  });
  const entryPrefix = new Map(files.map((f, i) => [f.file, routes[i]!.prefix]));
  const subjects = await Promise.all(files.map(async (f) => (await ctx.subjectsOf?.(f.file)) ?? []));
  const usual = new Map(files.map((f, i) => [f.file, historyPrefix(subjects[i]!)]));
  const cases = new Map(files.map((f, i) => [f.file, historyCase(subjects[i]!)]));
  return distinctPrefixes([...groups.values()].map((g) => {
    const told = [...new Set(g.files.map((f) => usual.get(f.file)))];
    const entry = [...new Set(g.files.map((f) => entryPrefix.get(f.file)))];
    return {
      prefix: told.length === 1 && told[0] ? told[0] : entry.length === 1 && entry[0] ? entry[0] : groupPrefix(g.files.map((f) => f.file)),
      // A driver's prefix names the driver ("i2c: sprd"), unless its history says otherwise.
      driver: !(told.length === 1 && told[0]) && entry.length === 1 && !!entry[0] && g.files.every((f) => /^drivers\/.*\.[ch]$/.test(f.file)),
      lower: g.files.every((f) => cases.get(f.file) === 'lower'),
      tree: g.route.tree,
      route: g.route,
      maintainers: g.maintainers,
      files: g.files,
    };
  }));
}

/** The extensions a subject leaves out ("macro_checker.py": "macro_checker"); Kconfig.debug keeps its name. */
const SOURCE_EXTENSION = /\.(c|h|S|py|sh|pl|rs|awk)$/;

/** Folders that hold many drivers and name none ("i2c/busses/i2c-st.c" is the driver st). */
const PLAIN_FOLDERS = new Set(['busses', 'algos', 'host', 'core', 'common', 'lib', 'drivers', 'devices', 'misc', 'controllers', 'chips']);

/** A file's stem without the word its prefix already says: gpio-wm831x under gpio is "wm831x". */
function withoutPrefix(stem: string, word: string): string {
  const rest = stem.slice(word.length + 1);
  return stem.length > word.length + 1 && stem.startsWith(word) && /[-_]/.test(stem[word.length]!) ? rest : stem;
}

/**
 * Groups of one tree whose prefixes are the same ("i2c" for every I2C driver), and drivers without a history to
 * follow, get the driver's name after it when their files say one ("i2c: mlxbf"): a series of patches with the
 * same subject is no series a maintainer can read.
 */
function distinctPrefixes<G extends { prefix: string; tree: string; driver: boolean; files: { file: string }[] }>(groups: G[]): Omit<G, 'driver'>[] {
  const seen = new Map<string, number>();
  for (const g of groups) seen.set(`${g.tree}\0${g.prefix}`, (seen.get(`${g.tree}\0${g.prefix}`) ?? 0) + 1);
  return groups.map(({ driver, ...g }) => {
    if (!driver && seen.get(`${g.tree}\0${g.prefix}`)! < 2) return g;
    const word = g.prefix.split(/[:/ ]+/).pop()!;
    const stems = [...new Set(g.files.map((f) => withoutPrefix(path.posix.basename(f.file).replace(SOURCE_EXTENSION, ''), word)))];
    const dirs = [...new Set(g.files.map((f) => path.posix.basename(path.posix.dirname(f.file))))];
    // A driver with a folder of its own is named by the folder (ethernet/intel/ice/ice_main.c: "ice").
    const folder = dirs.length === 1 && dirs[0] !== word && !PLAIN_FOLDERS.has(dirs[0]!) ? dirs[0] : undefined;
    const name = folder ?? (stems.length === 1 ? stems[0] : undefined);
    return name && name !== word && !g.prefix.endsWith(`: ${name}`) ? { ...g, prefix: `${g.prefix}: ${name}` } : g;
  });
}

/** The groups by the tree that applies them (and `key`), in the order their first group comes: one series each. */
export function byTree<G extends { route: Route }>(groups: G[], key: (g: G) => string = () => ''): G[][] {
  const trees = new Map<string, G[]>();
  for (const g of groups) {
    const id = `${g.route.tree}\0${key(g)}`;
    trees.set(id, [...(trees.get(id) ?? []), g]);
  }
  return [...trees.values()];
}

/** The file's route, or (a context without MAINTAINERS routing, as in unit tests) one tree for all. */
export async function routeFor(ctx: Pick<GroupServices, 'routeOf'>, file: string): Promise<Route> {
  return ctx.routeOf ? ctx.routeOf(file) : { tree: '', slug: '', lists: [], entry: 'unknown' };
}

/** arch/x86/kernel/cpu → x86/cpu: the architecture and its subfolders, without "kernel". */
export function archPath(dirs: string[]): string[] {
  return [dirs[1]!, ...dirs.slice(2).filter((d) => d !== 'kernel')];
}

/** A subject prefix in the kernel's usual style: lib/vsprintf.c → "vsprintf", kernel/sched/core.c → "sched/core", kernel/printk/printk.c → "printk", mm/memcontrol.c → "mm: memcontrol", arch/x86/kernel/tsc.c → "x86/tsc". */
export function subjectPrefix(file: string): string {
  const stem = path.posix.basename(file).replace(SOURCE_EXTENSION, '');
  const dirs = path.posix.dirname(file).split('/').filter((d) => d !== '.');
  // Tools go by the tool ("perf", "selftests/rseq"), as their histories write it.
  if (dirs[0] === 'tools' && dirs.length > 1) {
    if (dirs[1] === 'testing' && dirs[2] === 'selftests' && dirs[3]) return `selftests/${dirs[3]}`;
    return dirs[1] === 'perf' ? 'perf' : `tools/${dirs[1]}`;
  }
  if (dirs.length === 0 || (dirs.length === 1 && ['kernel', 'lib', 'init'].includes(dirs[0]!))) return stem;
  if (dirs[0] === 'arch' && dirs.length > 1) return [...archPath(dirs), stem].filter((d, i, all) => i === 0 || d !== all[i - 1]).join('/');
  if (dirs[dirs.length - 1] === stem) return dirs[0] === 'kernel' ? dirs.slice(1).join('/') : stem;
  if (dirs[0] === 'kernel') return `${dirs.slice(1).join('/')}/${stem}`;
  // A driver is named by its subsystem: drivers/i2c/busses/i2c-st.c is "i2c: st".
  const dir = dirs[0] === 'drivers' && dirs.length > 1 ? dirs[1]! : dirs[dirs.length - 1]!;
  return `${dir}: ${withoutPrefix(stem, dir)}`;
}

/**
 * The prefix a file's own history uses most ("mm/memcontrol" from "mm/memcontrol: Fix ..."), the newest first among
 * equals; undefined without history. Reverts, merges and bracketed tags are skipped.
 */
export function historyPrefix(subjects: string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const s of subjects) {
    if (/^(Revert|Merge|Reapply)\b/.test(s)) continue;
    const m = /^((?:[\w.+/-]+: )*[\w.+/-]+): \S/.exec(s.replace(/^\[[^\]]*\]\s*/, ''));
    if (m) counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + 1);
  }
  let best: string | undefined;
  for (const [p, n] of counts) if (best === undefined || n > counts.get(best)!) best = p;
  return best;
}

/**
 * How the file's history starts a subject after its prefix: 'lower' when most do with a lower-case word (mm writes
 * "memcg: convert ..."), 'upper' when most do with a capital, undefined without history.
 */
export function historyCase(subjects: string[]): 'lower' | 'upper' | undefined {
  let lower = 0;
  let upper = 0;
  for (const s of subjects) {
    if (/^(Revert|Merge|Reapply)\b/.test(s)) continue;
    const m = /^(?:[\w.+/-]+: )+([a-zA-Z])/.exec(s.replace(/^\[[^\]]*\]\s*/, ''));
    if (m) m[1]! === m[1]!.toLowerCase() ? lower++ : upper++;
  }
  return lower + upper === 0 ? undefined : lower > upper ? 'lower' : 'upper';
}

/** The subject prefix of a group: the file's own for one file, else the files' common folder in the same style. */
export function groupPrefix(files: string[]): string {
  if (files.length === 1) return subjectPrefix(files[0]!);
  const dirs = files.map((f) => path.posix.dirname(f).split('/'));
  const common: string[] = [];
  for (let i = 0; dirs.every((d) => d[i] !== undefined && d[i] === dirs[0]![i]); i++) common.push(dirs[0]![i]!);
  if (common.length === 0) return 'treewide';
  if (common[0] === 'arch' && common.length > 1) return archPath(common).join('/');
  if (common[0] === 'kernel' && common.length > 1) return common.slice(1).join('/');
  return common[common.length - 1]!;
}

