// The subject prefix a subsystem writes for a patch to a driver, and where it came from. The order:
//   1. --prefix (the author's word);
//   2. the file's own history: the prefix its latest subjects use most;
//   3. its folder's history: the form its siblings' subjects take ("gpio: {driver}" from "gpio: pca953x: ..." on
//      gpio-pca953x.c), with this driver's name put in;
//   4. on a tree without history, the conventions table (subsystems/conventions.ts) with the driver's module name;
//   5. the MAINTAINERS entry's name, or the path, as a last guess.
// From 4 on the prefix is a guess the author is asked to confirm. Pure: subjects and names in.
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
}

/** A commit of a folder's history: its subject and the files it changed. */
export interface LoggedCommit {
  subject: string;
  files: string[];
}

/** How many of the newest subjects say which form is used "lately". */
const LATELY = 12;

/** The prefix of a subject ("net: dsa: mv88e6xxx" of "net: dsa: mv88e6xxx: fix ..."); undefined for reverts, merges and subjects without one. */
export function prefixOfSubject(subject: string): string | undefined {
  const s = subject.replace(/^\[[^\]]*\]\s*/, '');
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
 * Whether a name a subject gives is about `file`: one of its folders below the top or its driver, or a run of the
 * words of its stem ("gic-v3-its" of irq-gic-v3-its.c, "cdev" of gpiolib-cdev.c, "core" of thermal_core.c, "8852c"
 * of rtw8852c.c, "hyper-v" of hyperv_timer.c). A folder that names no driver ("core/", "common/") does not count.
 */
function aboutFile(file: string, driver?: Driver): (name: string) => boolean {
  const parts = file.toLowerCase().split('/');
  const stem = parts.pop()!.replace(/\.[a-z]+$/, '');
  const plain = (w: string) => w.replace(/[-_]/g, '');
  const dirs = new Set([...parts.slice(parts[0] === 'drivers' || parts[0] === 'arch' ? 2 : 1).filter((d) => !PLAIN_DIRS.has(d)), ...(driver ? [driver.name.toLowerCase()] : [])].map(plain));
  const words = stem.split(/[-_]/);
  return (name) => {
    if (dirs.has(plain(name)) || plain(name) === plain(stem)) return true;
    const run = name.split(/[-_]/);
    if (run.length === 1 && words.some((w) => w !== name && w.endsWith(name) && name.length >= 3 && /\d/.test(name))) return true;
    return words.some((_, i) => run.every((w, k) => words[i + k] === w)) || words.some((w) => w === plain(name));
  };
}

/** The prefix and the name a subject gives: its prefix's last word, or the driver its summary starts by naming ("Input: xpad - ...", "hwmon: (nct6775) ..."). */
function prefixAndName(subject: string): { prefix: string; name: string } | undefined {
  const p = prefixOfSubject(subject);
  if (!p) return undefined;
  const rest = subject.replace(/^\[[^\]]*\]\s*/, '').slice(p.length + 2);
  const named = /^(?:\(([\w.,/-]+)\)\s|([\w.-]+) - )/.exec(rest);
  return { prefix: p, name: (named?.[1] ?? named?.[2] ?? p.split(/: |\//).pop()!).toLowerCase() };
}

/**
 * The prefix of a file's history that is about the file: among its newest subjects, those whose prefix ends with a
 * word of the file (its folder, stem or driver: "net: qede" for qede_main.c), or whose summary starts by naming it
 * ("Input: goodix - ..."), the newest weighing most; a tree-wide subject that touched it ("rtnetlink: Pack newlink()
 * params", "treewide: ...") says nothing of its prefix. When none names it, the subsystem's own word ("regulator:
 * ..." for regulator/core.c), else nothing.
 */
export function ownHistoryPrefix(subjects: string[], file: string, driver?: Driver): string | undefined {
  const said = subjects.slice(0, LATELY).map(prefixAndName);
  const about = aboutFile(file, driver);
  const weigh = (ok: (name: string) => boolean) => {
    const weights = new Map<string, number>();
    said.forEach((x, i) => {
      if (x && ok(x.name)) weights.set(x.prefix, (weights.get(x.prefix) ?? 0) + 1 + (LATELY - i) / 1000);
    });
    return [...weights].sort((a, b) => b[1] - a[1])[0]?.[0];
  };
  return weigh(about) ?? historyPrefix(subjects);
}

/** The names a driver's file goes by in a subject: its folders below `top`, its stem, the stem without a leading word ("pca953x" of gpio-pca953x). */
function namesOf(file: string, top: string): string[] {
  const rel = file.startsWith(`${top}/`) ? file.slice(top.length + 1) : path.posix.basename(file);
  const parts = rel.split('/');
  const stem = parts.pop()!.replace(/\.[a-zA-Z]+$/, '');
  const bare = /^[a-z0-9]+[-_](.+)$/.exec(stem)?.[1];
  return [...parts, stem, ...(bare ? [bare] : [])];
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
  const own = ownHistoryPrefix(i.fileSubjects, i.file, i.driver);
  if (own) return { prefix: led(own), source: 'file history', confirm: false };
  const form = folderForm(i.folderLog, i.folder);
  if (form) {
    const word = driverWord(i.driver, convention?.strip ?? []);
    return { prefix: led(form.includes('{driver}') ? fill({ under: '', prefix: form, source: { url: '', says: '' } }, i.file, word) : form), source: 'folder history', confirm: false };
  }
  if (convention) {
    const word = driverWord(i.driver, convention.strip);
    const named = convention.named?.replace('{driver}', word);
    return { prefix: fill(convention, i.file, word), source: 'convention', confirm: true, ...(named ? { named } : {}) };
  }
  if (i.entryPrefix) return { prefix: i.entryPrefix, source: 'MAINTAINERS', confirm: true };
  return { prefix: i.pathPrefix, source: 'path', confirm: true };
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
  const stem = stripped(path.posix.basename(file).replace(/\.[a-zA-Z]+$/, ''), c.strip ?? []);
  const text = c.prefix.replace('{dir|driver}', dir || word).replace('{driver}', word).replace('{stem}', stem).replace('{dir}', dir);
  // Parts split at ": " and "/", each with the separator before it.
  const parts = [...text.matchAll(/(^|: |\/)([^:/]*)/g)].map((m) => ({ sep: m[1]!, word: m[2]! })).filter((x, k) => x.word || k === 0);
  const out: { sep: string; word: string }[] = [];
  for (const x of parts) {
    const before = out[out.length - 1]?.word;
    // "main" of stmmac_main.c says no more than the driver does.
    if (!x.word || x.word === 'main' || (before !== undefined && x.word.toLowerCase() === before.toLowerCase())) continue;
    const w = before && new RegExp(`^${before}[-_].`, 'i').test(x.word) ? x.word.slice(before.length + 1) : x.word;
    out.push({ sep: out.length ? x.sep || ': ' : '', word: w });
  }
  return out.map((x) => `${x.sep}${x.word}`).join('');
}
