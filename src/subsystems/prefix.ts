// The subject prefix a subsystem writes for a patch to a driver, and where it came from. The order:
//   1. --prefix (the author's word);
//   2. the file's own history weighed against what the tree guesses: each recent subject counts by how closely its
//      prefix names the file (its stem, its driver, a group of drivers, nothing: tree-wide subjects), the guess as one
//      and a half subjects that name it; a prefix its history gives wins as "file history";
//   3. the guess: its folder's history (the form its siblings' subjects take, "gpio: {driver}" from "gpio: pca953x:
//      ..." on gpio-pca953x.c, with this driver's name put in); on a tree without history the conventions table
//      (subsystems/conventions.ts) with the driver's module name; else the MAINTAINERS entry's name, or the path.
// From the conventions table on, the prefix is a guess the author is asked to confirm. Pure: subjects and names in.
import path from 'node:path';
import { DRIVER_NAMES, PREFIXES, type PrefixConvention } from './conventions.js';
import type { Driver } from './module-name.js';

export type PrefixSource = 'given' | 'file history' | 'folder history' | 'convention' | 'MAINTAINERS' | 'path';

export interface PrefixChoice {
  prefix: string;
  source: PrefixSource;
  /** A guess: the report asks the author to confirm it. */
  confirm: boolean;
  /** Where the subsystem names the driver at the start of the summary, not in the prefix: "xpad - ", "(k10temp) ". */
  named?: string;
  /** A guess's other form, which the subsystem writes about as often ("net: r8169" beside "r8169"). */
  also?: string;
}

/** A commit of a folder's history: its subject and the files it changed. */
export interface LoggedCommit {
  subject: string;
  files: string[];
}

/** How many of the newest subjects say which form is used "lately". */
const LATELY = 12;

/** A subject without its mail tag: "net: fix x" of "[PATCH net-next 2/3] net: fix x". */
export function withoutTag(subject: string): string {
  return subject.replace(/^\[[^\]]*\]\s*/, '');
}

/** The prefix of a subject ("net: dsa: mv88e6xxx" of "net: dsa: mv88e6xxx: fix ..."); undefined for reverts, merges and subjects without one. */
export function prefixOfSubject(subject: string): string | undefined {
  const s = withoutTag(subject);
  if (/^(Revert|Merge|Reapply)\b/.test(s)) return undefined;
  return /^((?:[\w.+/,-]+: )*[\w.+/,-]+): \S/.exec(s)?.[1];
}

/** The value given most often among the newest ones, the newest first among equals. */
function mostUsed(values: (string | undefined)[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values.slice(0, LATELY)) if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | undefined;
  for (const [v, n] of counts) if (best === undefined || n > counts.get(best)!) best = v;
  return best;
}

/** The prefix a file's own history uses most lately; undefined without history. */
export function historyPrefix(subjects: string[]): string | undefined {
  return mostUsed(subjects.map(prefixOfSubject));
}

/** Folders that name no driver or subsystem of their own ("drivers/net/ethernet/", "core/"). */
const PLAIN_DIRS = new Set(['drivers', 'ethernet', 'wireless', 'busses', 'host', 'core', 'common', 'lib', 'misc', 'devices', 'controllers', 'chips', 'hw']);

/**
 * How much a subject that touched `file` says of the file's prefix, by the names it gives (its prefix's words, or the
 * driver its summary starts by naming, "Input: xpad - ..."): a run of the words of the file's stem ("gic-v3-its" of
 * irq-gic-v3-its.c, "8852c" of rtw8852c.c, "hyper-v" of hyperv_timer.c) says most; the driver (its module or a
 * folder from the driver's own down) less; a folder above the driver that groups drivers ("dsa", "ieee802154"), or
 * the subsystem's own word, the start of `guess` ("pwm" of "pwm: core"), little; a tree-wide subject
 * ("rtnetlink: Pack newlink() params", "treewide: ...") nothing. A folder that names no driver ("core/") is no name.
 */
const SAYS = { stem: 1, driver: 0.6, group: 1 / 3, other: 1 / 3 } as const;

function aboutFile(file: string, driver: Driver | undefined, guess: string | undefined, siblings: string[] | undefined): (prefix: string, names: string[]) => number {
  const parts = file.toLowerCase().split('/');
  const stem = parts.pop()!.replace(/\.[a-z]+$/, '');
  const plain = (w: string) => w.replace(/[-_]/g, '');
  const top = parts[0] === 'drivers' || parts[0] === 'arch' ? 2 : 1;
  // The driver's own folder and those below it name the driver; the folders between the subsystem and it, a group.
  const own = Math.max(top, (driver?.dir.split('/').length ?? parts.length) - 1);
  const named = (ds: string[]) => new Set(ds.filter((d) => !PLAIN_DIRS.has(d)).map(plain));
  const drivers = named([...parts.slice(own), ...(driver ? [driver.name.toLowerCase()] : [])]);
  const groups = named(parts.slice(top, own));
  const words = stem.split(/[-_]/);
  const others = new Set((siblings ?? []).map((o) => plain(o.toLowerCase())));
  const ofStem = (name: string) => {
    if (plain(name) === plain(stem)) return words.length;
    const run = name.split(/[-_]/);
    // The subsystem's word in the file's name ("gpio" of drivers/gpio/gpio-mvebu.c) names the subsystem, not the file;
    // a word that names no driver ("core" of team_core.c: "net: core" is the networking core) names nothing.
    if (run.length === 1 && (parts.includes(name) || PLAIN_DIRS.has(name))) return 0;
    if (run.length === 1 && words.some((w) => w !== name && w.endsWith(name) && name.length >= 3 && /\d/.test(name))) return 1;
    const at = words.findIndex((_, i) => run.every((w, k) => words[i + k] === w));
    return at >= 0 ? run.length : words.some((w) => w === plain(name)) ? 1 : 0;
  };
  return (prefix, names) => {
    // The longer the run of the stem a name gives, the closer: "logitech-hidpp" before "logitech".
    const run = Math.max(...names.map(ofStem));
    if (run > 0) return SAYS.stem + run / 100;
    if (names.some((n) => drivers.has(plain(n)))) return SAYS.driver;
    if (names.some((n) => groups.has(plain(n)))) return SAYS.group;
    if (guess && (guess === prefix || guess.startsWith(`${prefix}: `) || guess.startsWith(`${prefix}/`))) return SAYS.group;
    // A name of none of the tree's files ("memcg" on memcontrol.c) may be the subsystem's word for it; one that is
    // another object of the folder ("x86/paravirt" on tsc.c) was a series that also touched this file, and a folder
    // above the file ("net" of drivers/net/) is a tree-wide subject's.
    if (siblings && !names.some((n) => others.has(plain(n)) || parts.includes(n))) return SAYS.other;
    return 0;
  };
}

/** The prefix and the names a subject gives: its prefix's words, and the driver its summary starts by naming ("Input: xpad - ...", "hwmon: (nct6775) ..."). */
function prefixAndNames(subject: string): { prefix: string; names: string[] } | undefined {
  const p = prefixOfSubject(subject);
  if (!p) return undefined;
  const rest = withoutTag(subject).slice(p.length + 2);
  const named = /^(?:\(([\w.,/-]+)\)\s|([\w.-]+) - )/.exec(rest);
  const summary = named?.[1] ?? named?.[2];
  return { prefix: p, names: [...(summary ? [summary] : []), ...p.split(/: |\//)].map((n) => n.toLowerCase()) };
}

/**
 * How much a guess from the tree weighs against subjects that name the file: the folder's form or the conventions
 * table one and a half; a word made of the MAINTAINERS entry or the path, or a convention whose subsystem writes
 * another form as often, one (a subject of the file's own wins a tie).
 */
const GUESS_WEIGHT = { strong: 1.5, weak: 1 } as const;

function guessWeight(g: PrefixChoice, convention: PrefixConvention | undefined): number {
  const weak = g.source === 'MAINTAINERS' || g.source === 'path' || (g.source === 'convention' && convention?.also);
  return weak ? GUESS_WEIGHT.weak : GUESS_WEIGHT.strong;
}

/**
 * The prefix a file's history and a guess agree on best: each of its newest subjects adds what it says of the file
 * (see SAYS; the newest first among equals), the guess weighs GUESS_WEIGHT subjects. So two subjects that name the
 * file outweigh a guess from the tree's conventions, one does not, and a history of tree-wide subjects leaves the guess. Undefined when neither
 * says anything.
 */
export function ownHistoryPrefix(subjects: string[], file: string, driver?: Driver, guess?: { prefix: string; weight: number }, lead?: (p: string) => string, siblings?: string[]): { prefix: string; fromHistory: boolean } | undefined {
  const about = aboutFile(file, driver, guess?.prefix, siblings);
  const led = lead ?? ((p: string) => p);
  const weights = new Map<string, number>();
  const add = (p: string, w: number) => weights.set(p, (weights.get(p) ?? 0) + w);
  subjects.slice(0, LATELY).forEach((s, i) => {
    const x = prefixAndNames(s);
    const says = x ? about(x.prefix, x.names) : 0;
    if (x && says > 0) add(led(x.prefix), says + (LATELY - i) / 10000);
  });
  const told = new Set(weights.keys());
  if (guess) add(guess.prefix, guess.weight);
  const best = [...weights].sort((a, b) => b[1] - a[1])[0]?.[0];
  return best === undefined ? undefined : { prefix: best, fromHistory: told.has(best) };
}

/**
 * The names a driver's file goes by in a subject: the driver's folder below `top` when it is in one, else its stem
 * and the stem without a leading word ("pca953x" of gpio-pca953x). Only the driver's: a part below it names a part of
 * the driver ("wifi: rtw89: coex" of realtek/rtw89/coex.c), and is no form for its siblings.
 */
function namesOf(file: string, top: string): string[] {
  const rel = file.startsWith(`${top}/`) ? file.slice(top.length + 1) : path.posix.basename(file);
  const parts = rel.split('/');
  if (parts.length > 1) return [parts[0]!];
  const stem = parts[0]!.replace(/\.[a-zA-Z]+$/, '');
  const bare = /^[a-z0-9]+[-_](.+)$/.exec(stem)?.[1];
  return [stem, ...(bare ? [bare] : [])];
}

/**
 * The form a folder's subjects give a driver's prefix, `{driver}` for the driver's name: from each commit that
 * changed files of one name, the prefix with that name made a placeholder ("wifi: {driver}"). The form used most
 * lately; undefined when none is found.
 */
export function folderForm(log: LoggedCommit[], top: string): string | undefined {
  return mostUsed(
    log.map((c) => {
      const p = prefixOfSubject(c.subject);
      if (!p) return undefined;
      const last = p.split(/: |\//).pop()!;
      const names = c.files.map((f) => namesOf(f, top));
      if (!names.length || !names.every((n) => n.includes(last))) return undefined;
      return `${p.slice(0, p.length - last.length)}{driver}`;
    }),
  );
}

/** The convention of the longest folder that holds `file`. */
export function conventionFor(file: string): PrefixConvention | undefined {
  return PREFIXES.filter((c) => file.startsWith(c.under)).sort((a, b) => b.under.length - a.under.length)[0];
}

/** A driver's name in a subject: the name its folder's subjects use where the table says, else its module's. */
export function driverWord(driver: Driver, strip: string[] = []): string {
  const named = DRIVER_NAMES.find((d) => `${driver.dir}/`.startsWith(d.under));
  return named ? named.prefix : stripped(driver.name, strip);
}

/** A word without the first of `strip` it starts with ("gpio-mvebu": "mvebu") or ends with ("amd64_edac": "amd64"). */
function stripped(word: string, strip: string[]): string {
  for (const p of strip) {
    if (p.startsWith('-') || p.startsWith('_') ? word.endsWith(p) && word.length > p.length : false) return word.slice(0, -p.length);
    if (word.startsWith(p) && word.length > p.length) return word.slice(p.length);
  }
  return word;
}

export interface PrefixInput {
  file: string;
  driver: Driver;
  given?: string;
  /** The file's latest subjects, newest first (none in a tree without history). */
  fileSubjects: string[];
  /** The latest commits of the folder that holds the driver's folder, newest first. */
  folderLog: LoggedCommit[];
  /** The folder `folderLog` is of. */
  folder: string;
  /** What the MAINTAINERS entry's name gives (route.prefix), if anything. */
  entryPrefix?: string;
  /** The other objects of the file's folder (its Makefile's), whose names in a subject are not this file's. */
  siblings?: string[];
  /** The prefix made from the path alone. */
  pathPrefix: string;
  /**
   * Whether the conventions table applies: for a driver's patch (cocci, split). The static-keys recipe, which cuts
   * by maintainers, keeps its MAINTAINERS and path prefixes.
   */
  conventions?: boolean;
}

export function choosePrefix(i: PrefixInput): PrefixChoice {
  if (i.given) return { prefix: i.given, source: 'given', confirm: false };
  const convention = i.conventions === false ? undefined : conventionFor(i.file);
  // A subsystem that now asks every subject to start with its word (wireless' "wifi:", since 2022) has older
  // history without it.
  const led = (p: string) => (convention?.lead && !p.startsWith(convention.lead) ? `${convention.lead}${p}` : p);
  const guess = treeGuess(i, convention, led);
  const own = ownHistoryPrefix(i.fileSubjects, i.file, i.driver, guess && { prefix: guess.prefix, weight: guessWeight(guess, convention) }, led, i.siblings);
  if (own?.fromHistory) return { prefix: own.prefix, source: 'file history', confirm: false };
  if (guess) return guess;
  const most = historyPrefix(i.fileSubjects);
  if (most) return { prefix: led(most), source: 'file history', confirm: false };
  return { prefix: i.pathPrefix, source: 'path', confirm: true };
}

/**
 * What the tree says without the file's own history: its folder's form, else the conventions table, else the
 * MAINTAINERS entry's name or the path (from the table on, a guess to confirm).
 */
function treeGuess(i: PrefixInput, convention: PrefixConvention | undefined, led: (p: string) => string): PrefixChoice | undefined {
  const form = folderForm(i.folderLog, i.folder);
  if (form) {
    // A driver in a folder of its own goes by its folder's name in the form, as its siblings did (iwlwifi's "mvm", not
    // its module's "iwlmvm").
    const inFolder = i.driver.dir.startsWith(`${i.folder}/`);
    const word = inFolder ? driverWord({ name: i.driver.dir.slice(i.folder.length + 1).split('/')[0]!, dir: i.driver.dir }) : driverWord(i.driver, convention?.strip ?? []);
    return { prefix: led(form.includes('{driver}') ? fill({ under: '', prefix: form, source: { url: '', says: '' } }, i.file, word) : form), source: 'folder history', confirm: false };
  }
  if (!convention) {
    if (i.entryPrefix) return { prefix: i.entryPrefix, source: 'MAINTAINERS', confirm: true };
    return i.pathPrefix ? { prefix: i.pathPrefix, source: 'path', confirm: true } : undefined;
  }
  const word = driverWord(i.driver, convention.strip);
  const named = convention.named?.replace('{driver}', word);
  const also = convention.also ? fill({ ...convention, prefix: convention.also }, i.file, word) : undefined;
  const prefix = fill(convention, i.file, word);
  return { prefix, source: 'convention', confirm: true, ...(named ? { named } : {}), ...(also && also !== prefix ? { also } : {}) };
}

/**
 * A convention's prefix for a file: `{driver}` the driver's word (one that is itself a prefix, "net/mlx5", stands
 * alone), `{stem}` the file's name without extension and `strip`, `{dir}` the folder below `under` that holds it
 * ("intel" of arch/x86/events/intel/core.c under arch/x86/events/), `{dir|driver}` that folder, else the driver.
 * A part left empty or "main" goes, a part that repeats the one before it goes ("spi: spi" of spi.c is "spi"), and a part
 * that starts with the one before it loses it ("soc: qcom: qcom_aoss" is "soc: qcom: aoss").
 */
function fill(c: PrefixConvention, file: string, word: string): string {
  if (c.prefix.includes('{driver}') && !c.prefix.includes('|driver}') && (word.includes('/') || word.includes(': '))) return word;
  const rest = c.under && file.startsWith(c.under) ? file.slice(c.under.length).split('/') : [];
  const dir = rest.length > 1 ? rest[0]! : '';
  const name = path.posix.basename(file).replace(/\.[a-zA-Z]+$/, '');
  const stem = (c.stemPart && c.stemPart.exec(name)?.[1]) || stripped(name, c.strip ?? []);
  const text = c.prefix.replace('{dir|driver}', dir || word).replace('{driver}', word).replace('{stem}', stem).replace('{dir}', dir);
  // Parts split at ": " and "/", each with the separator before it.
  const parts = [...text.matchAll(/(^|: |\/)([^:/]*)/g)].map((m) => ({ sep: m[1]!, word: m[2]! })).filter((x, k) => x.word || k === 0);
  const out: { sep: string; word: string }[] = [];
  for (const x of parts) {
    const before = out[out.length - 1]?.word;
    // "main" of stmmac_main.c, or a core.c's "core", says no more than the driver or subsystem does.
    if (!x.word || x.word === 'main' || (x.word === 'core' && stem === 'core' && x.sep !== '/') || (before !== undefined && x.word.toLowerCase() === before.toLowerCase())) continue;
    const w = before && new RegExp(`^${before}[-_].`, 'i').test(x.word) ? x.word.slice(before.length + 1) : x.word;
    out.push({ sep: out.length ? x.sep || ': ' : '', word: w });
  }
  return out.map((x) => `${x.sep}${x.word}`).join('');
}
