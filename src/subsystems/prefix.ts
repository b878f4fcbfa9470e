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
  if (named) return named.prefix;
  const s = strip.find((p) => driver.name.startsWith(p) && driver.name.length > p.length);
  return s ? driver.name.slice(s.length) : driver.name;
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
}

export function choosePrefix(i: PrefixInput): PrefixChoice {
  if (i.given) return { prefix: i.given, source: 'given', confirm: false };
  const own = historyPrefix(i.fileSubjects);
  if (own) return { prefix: own, source: 'file history', confirm: false };
  const convention = conventionFor(i.file);
  const form = folderForm(i.folderLog, i.folder);
  if (form) {
    const word = driverWord(i.driver, convention?.strip ?? []);
    return { prefix: form.includes('{driver}') ? fill(form, word) : form, source: 'folder history', confirm: false };
  }
  if (convention) return { prefix: fill(convention.prefix, driverWord(i.driver, convention.strip)), source: 'convention', confirm: true };
  if (i.entryPrefix) return { prefix: i.entryPrefix, source: 'MAINTAINERS', confirm: true };
  return { prefix: i.pathPrefix, source: 'path', confirm: true };
}

/** A form with the driver's word put in; a word that is itself a prefix ("net/mlx5") stands alone. */
function fill(form: string, word: string): string {
  if (word.includes('/') || word.includes(': ')) return word;
  return form.replace('{driver}', word);
}
