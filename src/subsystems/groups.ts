// Cutting a tree-wide change the way maintainers take it: one group per tree and set of maintainers (MAINTAINERS and
// get_maintainer.pl), one series per tree, and a subject prefix in the style of each file's history. Shared by every
// recipe that splits (static-keys, cocci) and by `kseries split`.
import path from 'node:path';
import { FAMILIES } from './conventions.js';
import type { Route } from './route.js';
import { driverOf, siblingObjects, type Driver } from './module-name.js';
import { choosePrefix, historyPrefix, withoutTag, type LoggedCommit, type PrefixChoice, type PrefixSource } from './prefix.js';

export { historyPrefix } from './prefix.js';

/** get_maintainer.pl runs at once for a context whose routes carry no maintainers (more only contend for two cores). */
const MAINTAINER_QUERIES = 4;

/** What grouping asks of the tree: get_maintainer.pl's answers, files, and history (recipes' context has them). */
export interface GroupServices {
  maintainersOf(file: string): Promise<string[]>;
  routeOf?(file: string): Promise<Route>;
  subjectsOf?(file: string): Promise<string[]>;
  /** The latest commits of a folder, newest first, with the files each changed (none without history). */
  folderLog?(folder: string): Promise<LoggedCommit[]>;
  /** A file of the tree at the base (Makefiles, to name a file's driver). */
  readFile?(file: string): Promise<string | undefined>;
}

/** What a group is cut by: the driver (module) a file builds into, or the set of maintainers it goes to. */
export type GroupBy = 'driver' | 'maintainers';

export interface GroupOptions<F> {
  by?: GroupBy;
  /** Keeps files apart that the caller wants apart (static-keys: RFC flags). */
  key?: (f: F) => string;
  /** The author's prefix for every group (--prefix). */
  prefix?: string;
}

export interface Group<F extends { file: string }> {
  /** The subject prefix: the files' history's, else their folder's, else the conventions', MAINTAINERS' or path's. */
  prefix: string;
  /** Where the prefix came from, and whether the author should confirm it (a guess on a tree without history). */
  prefixSource: PrefixSource;
  confirmPrefix: boolean;
  /** The other form a guessed prefix's subsystem writes as often, for the author to choose. */
  prefixAlso?: string;
  /** The driver's name at the start of the summary, where the subsystem writes it there ("xpad - "), else "". */
  named: string;
  /** The subject's first word is lower case in the files' history ("memcg: convert ..."). */
  lower: boolean;
  tree: string;
  route: Route;
  maintainers: string[];
  /** The driver the files build into (by: 'driver'). */
  driver?: Driver;
  files: F[];
}

/**
 * One group per tree and driver (the module a file builds into: one patch per driver, never a catch-all of
 * unrelated ones), or per tree and set of maintainers, in the order of `files`; files no maintainer covers are
 * grouped by folder.
 */
export async function groupFiles<F extends { file: string }>(ctx: GroupServices, files: F[], opts: GroupOptions<F> = {}): Promise<Group<F>[]> {
  const key = opts.key ?? (() => '');
  // All at once: the tree's routing reads many files in one get_maintainer.pl run.
  const routes = await Promise.all(files.map((f) => routeFor(ctx, f.file)));
  const maintainers: string[][] = [];
  for (let i = 0; i < files.length; i += MAINTAINER_QUERIES) {
    // The route read the maintainers from the same get_maintainer.pl run; a context without them asks again.
    maintainers.push(...(await Promise.all(files.slice(i, i + MAINTAINER_QUERIES).map((f, j) => routes[i + j]!.maintainers ?? ctx.maintainersOf(f.file)))));
  }
  const read = ctx.readFile;
  const drivers = opts.by === 'driver' && read ? await Promise.all(files.map(async (f) => familyOf(f.file) ?? (await driverOf(f.file, read)))) : undefined;
  const groups = new Map<string, { maintainers: string[]; route: Route; driver?: Driver; files: F[] }>();
  files.forEach((f, i) => {
    const m = maintainers[i]!;
    const route = routes[i]!;
    const driver = drivers?.[i];
    const who = driver ? `${driver.dir}/${driver.name}` : m.length ? [...m].sort().join('\n') : `no maintainer: ${path.posix.dirname(f.file)}`;
    const id = `${route.tree}\n${key(f)}\n${who}`;
    if (!groups.has(id)) groups.set(id, { maintainers: m, route, ...(driver ? { driver } : {}), files: [] });
    const g = groups.get(id)!;
    g.files.push(f);
    g.maintainers = [...new Set([...g.maintainers, ...m])];
  });
  const subjects = await Promise.all(files.map(async (f) => (await ctx.subjectsOf?.(f.file)) ?? []));
  const subjectsOf = new Map(files.map((f, i) => [f.file, subjects[i]!]));
  const out = await Promise.all(
    [...groups.values()].map(async (g) => {
      const choice = await prefixOf(ctx, g, subjectsOf, opts.prefix, opts.by === 'driver');
      return {
        prefix: choice.prefix,
        prefixSource: choice.source,
        named: choice.named ?? '',
        confirmPrefix: choice.confirm,
        ...(choice.also ? { prefixAlso: choice.also } : {}),
        // A driver's prefix names the driver ("i2c: sprd"), unless its history says otherwise.
        namesDriver: choice.source !== 'MAINTAINERS' || !g.files.every((f) => /^drivers\/.*\.[ch]$/.test(f.file)),
        lower: g.files.every((f) => historyCase(subjectsOf.get(f.file)!) === 'lower'),
        tree: g.route.tree,
        route: g.route,
        maintainers: g.maintainers,
        ...(g.driver ? { driver: g.driver } : {}),
        files: g.files,
      };
    }),
  );
  return distinctPrefixes(out);
}

/** @deprecated name: grouping by maintainers, as the static-keys recipe cuts its series. */
export function groupByMaintainers<F extends { file: string }>(ctx: GroupServices, files: F[], key?: (f: F) => string): Promise<Group<F>[]> {
  return groupFiles(ctx, files, { by: 'maintainers', ...(key ? { key } : {}) });
}

/** The prefix of a group: its files' history, else its driver's folder's, else a convention or a guess. */
async function prefixOf<F extends { file: string }>(ctx: GroupServices, g: { route: Route; driver?: Driver; files: F[] }, subjectsOf: Map<string, string[]>, given: string | undefined, conventions: boolean): Promise<PrefixChoice> {
  const names = g.files.map((f) => f.file);
  const told = [...new Set(names.map((f) => historyPrefix(subjectsOf.get(f)!)))];
  const fileSubjects = told.length === 1 && told[0] ? subjectsOf.get(names.find((f) => historyPrefix(subjectsOf.get(f)!))!)! : [];
  const driver = g.driver ?? { name: path.posix.basename(path.posix.dirname(names[0]!)), dir: path.posix.dirname(names[0]!) };
  // The siblings of a driver with a folder of its own are the folders beside it; of a driver file, the files beside it.
  const folder = g.driver && isOwnFolder(g.driver) ? path.posix.dirname(g.driver.dir) : driver.dir;
  const folderLog = fileSubjects.length || !ctx.folderLog ? [] : await ctx.folderLog(folder);
  // Files of one driver whose own forms differ (rtw89's chip files "wifi: rtw89: 8851b", its core "wifi: rtw89"; mlx5's
  // "net/mlx5e" and "net/mlx5") are the driver's patch: the form of its folder as a whole.
  const own = (file: string) => choosePrefix({ file, driver, fileSubjects: [], folderLog: [], folder, pathPrefix: '', conventions }).prefix;
  const whole = names.length > 1 && conventions && new Set(names.map(own)).size > 1;
  return choosePrefix({
    file: whole ? `${driver.dir}/` : names[0]!,
    driver,
    ...(given ? { given } : {}),
    fileSubjects,
    folderLog,
    folder,
    ...(g.route.prefix ? { entryPrefix: g.route.prefix } : {}),
    pathPrefix: groupPrefix(names),
    ...(ctx.readFile ? { siblings: await siblingObjects(names[0]!, ctx.readFile) } : {}),
    conventions,
  });
}

/** The family a file's driver is one of (conventions.ts' FAMILIES): the folder, as one driver. */
function familyOf(file: string): Driver | undefined {
  const dir = FAMILIES.find((f) => file.startsWith(f.under))?.under.replace(/\/$/, '');
  return dir ? { name: path.posix.basename(dir), dir } : undefined;
}

/** A driver with a folder of its own (drivers/net/can/spi/mcp251xfd/), not one file among many (drivers/gpio/gpio-mvebu.c). */
function isOwnFolder(d: Driver): boolean {
  return path.posix.basename(d.dir) === d.name || d.dir.split('/').length > 4;
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
 * Groups of one tree whose prefixes are the same ("i2c" for every I2C driver), and groups whose prefix came from a
 * MAINTAINERS entry's name, get the driver's name after it when their files say one ("i2c: mlxbf"): a series of
 * patches with the same subject is no series a maintainer can read.
 */
function distinctPrefixes<G extends { prefix: string; tree: string; namesDriver: boolean; files: { file: string }[] }>(groups: G[]): Omit<G, 'namesDriver'>[] {
  const seen = new Map<string, number>();
  for (const g of groups) seen.set(`${g.tree}\0${g.prefix}`, (seen.get(`${g.tree}\0${g.prefix}`) ?? 0) + 1);
  return groups.map(({ namesDriver, ...g }) => {
    if (namesDriver && seen.get(`${g.tree}\0${g.prefix}`)! < 2) return g;
    const word = g.prefix.split(/[:/ ]+/).pop()!;
    const stems = [...new Set(g.files.map((f) => withoutPrefix(path.posix.basename(f.file).replace(SOURCE_EXTENSION, ''), word)))];
    const dirs = [...new Set(g.files.map((f) => path.posix.basename(path.posix.dirname(f.file))))];
    // A driver with a folder of its own is named by the folder (ethernet/intel/ice/ice_main.c: "ice").
    const folder = dirs.length === 1 && dirs[0] !== word && !PLAIN_FOLDERS.has(dirs[0]!) ? dirs[0] : undefined;
    const name = folder ?? (stems.length === 1 ? stems[0] : undefined);
    return name && name !== word && !g.prefix.endsWith(`: ${name}`) ? { ...g, prefix: `${g.prefix}: ${name}` } : g;
  });
}

/**
 * What a series' patches' subject prefixes share, for its cover's subject: "wifi" of "wifi: ath11k" and "wifi:
 * at76c50x", the whole prefix of a series of one driver; empty where they share nothing (gemini, r8169).
 */
export function commonPrefix(prefixes: string[]): string {
  const parts = prefixes.map((p) => p.split(/:\s*/));
  const shared: string[] = [];
  for (let i = 0; parts.length && parts.every((p) => p[i] !== undefined && p[i] === parts[0]![i]); i++) shared.push(parts[0]![i]!);
  return shared.join(': ');
}

/**
 * The cover's one line on the other trees the script's changes went to (a maintainer reads of them, does not need
 * them listed): their names where they fit a line of 72, else how many; false without any.
 */
export function othersLine(trees: string[]): string | false {
  if (!trees.length) return false;
  const named = `Other trees get series of their own: ${trees.join(', ')}.`;
  return named.length <= 72 ? named : `${trees.length} other trees get series of their own.`;
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
  // A subsystem's core.c is the subsystem's own: "regulator", not "regulator: core".
  return stem === 'core' && dirs.length === 2 ? dir : `${dir}: ${withoutPrefix(stem, dir)}`;
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
    const m = /^(?:[\w.+/-]+: )+([a-zA-Z])/.exec(withoutTag(s));
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

