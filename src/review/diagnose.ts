// Why a patch does not apply, hunk by hunk: "wrong base" (its context is nowhere in the file), "conflict" (the
// context is there but lines of it differ: changed by an earlier patch or upstream) or "mangled mail" (whitespace or
// line-wrap damage, hunk line counts that no longer match). Pure: the patch text and file texts in, findings out.
import { createHash } from 'node:crypto';
import { diffArrays, parsePatch, type StructuredPatch } from 'diff';

export type FailureKind = 'wrong-base' | 'conflict' | 'mangled';

export interface HunkFailure {
  kind: FailureKind;
  file: string;
  /** 1-based hunk number within the file; 0 when the file as a whole is the problem. */
  hunk: number;
  /** The hunk's `@@ ... @@` line. */
  header: string;
  message: string;
  /** For a conflict: the patch's expected lines beside the file's lines where they differ. */
  differs?: { line: number; expected: string; found: string }[];
}

export interface FileSources {
  /** The file now, after the patches before this one (undefined: absent). */
  now(file: string): string | undefined;
  /** The file at the series' base, before any of its patches. */
  atBase(file: string): string | undefined;
  /** Earlier patches of the series that touch the file (their numbers). */
  touchedBy(file: string): number[];
}

/** The `diff --git` part of a mail body, as git apply reads it (see trimDiff). */
export function diffPart(body: string): string {
  const start = body.search(/^(diff --git |--- (a\/|\/dev\/null))/m);
  return start < 0 ? '' : trimDiff(body.slice(start));
}

/**
 * A diff without what git apply skips: a hunk ends when its line counts are used up, and lines after it up to the
 * next hunk or file header are not part of the patch (format-patch's `-- ` signature, a `--` without its space, a
 * list footer). A hunk cut short is left as it is, for the parser to call it damaged.
 */
export function trimDiff(diff: string): string {
  const lines = diff.split('\n');
  const out: string[] = [];
  let i = 0;
  const fileStart = (k: number) => lines[k]!.startsWith('diff --git ') || (lines[k]!.startsWith('--- ') && (lines[k + 1] ?? '').startsWith('+++ '));
  while (i < lines.length) {
    const h = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(lines[i]!);
    if (!h) {
      out.push(lines[i++]!);
      continue;
    }
    let [old, now] = [Number(h[1] ?? 1), Number(h[2] ?? 1)];
    out.push(lines[i++]!);
    while (i < lines.length && (old > 0 || now > 0)) {
      const l = lines[i]!;
      if (l.startsWith('\\')) (out.push(l), i++);
      else if (l === '' || l[0] === ' ') (out.push(l), i++, old--, now--);
      else if (l[0] === '-') (out.push(l), i++, old--);
      else if (l[0] === '+') (out.push(l), i++, now--);
      else return [...out, ...lines.slice(i)].join('\n'); // cut short: damaged
    }
    if (lines[i]?.startsWith('\\')) out.push(lines[i++]!);
    while (i < lines.length && !lines[i]!.startsWith('@@ ') && !fileStart(i)) i++;
  }
  return `${out.join('\n').replace(/\n*$/, '')}\n`;
}

/**
 * What `git patch-id` compares, without git: the diff with its `index` and `diff --git` lines, hunk line numbers and
 * whitespace left out. Two mails with the same identity change the same lines the same way (a resend, a rebase).
 */
export function diffIdentity(body: string): string {
  const lines = diffPart(body).split('\n').filter((l) => !/^(index |diff --git )/.test(l)).map((l) => (l.startsWith('@@') ? '@@' : l.replace(/\s+/g, '')));
  return createHash('sha1').update(lines.join('\n')).digest('hex');
}

/** The files a patch's diff names (old and new sides, renames included), as written: the caller checks they are safe. */
export function pathsOf(diff: string): string[] {
  const out = new Set<string>();
  for (const m of diff.matchAll(/^(?:diff --git a\/(\S+) b\/(\S+)|(?:---|\+\+\+) (?:[ab]\/)?(\S+)|rename (?:from|to) (\S+)|copy (?:from|to) (\S+))$/gm)) {
    for (const p of m.slice(1)) if (p && p !== '/dev/null') out.add(p);
  }
  return [...out];
}

/** How much of a patch the tree has by content: the runs of lines it adds that stand there, those it removes that are gone. */
export interface Substance {
  added: number;
  addedThere: number;
  removed: number;
  removedGone: number;
}

/**
 * The tree's files measured against a patch that neither applies nor reverses (the code around it changed since):
 * each run of lines it adds found as a block, each run it removes not found. Lines are compared trimmed, blank ones
 * left out; a run of punctuation alone (`}`) says nothing. A file the patch deletes counts as a removed run.
 */
export function substanceOf(diff: string, now: (file: string) => string | undefined): Substance | undefined {
  let files: StructuredPatch[];
  try {
    files = parsePatch(diff);
  } catch {
    return undefined;
  }
  const s: Substance = { added: 0, addedThere: 0, removed: 0, removedGone: 0 };
  for (const f of files) {
    const deleted = f.newFileName === '/dev/null';
    const text = now(strip(deleted ? f.oldFileName ?? '' : f.newFileName ?? ''));
    if (deleted) {
      s.removed++;
      if (text === undefined) s.removedGone++;
      continue;
    }
    const lines = squeeze((text ?? '').split('\n'));
    const added = f.hunks.flatMap((h) => runsOf(h.lines, '+'));
    const removed = f.hunks.flatMap((h) => runsOf(h.lines, '-'));
    // A run the patch both removes and adds is moved: it is in the tree whether or not the patch was applied, so
    // where it stands decides, by its neighbours in the hunk (`child = of_get_next_available_child(...)` moved up).
    const key = (r: Run) => r.lines.join('\n');
    const removedKeys = new Set(removed.map(key));
    const addedKeys = new Set(added.map(key));
    const stands = (r: Run, moved: boolean) => (moved ? besides(lines, r) : findBlock(lines, r.lines) >= 0);
    s.added += added.length;
    s.addedThere += added.filter((r) => stands(r, removedKeys.has(key(r)))).length;
    s.removed += removed.length;
    s.removedGone += removed.filter((r) => !stands(r, addedKeys.has(key(r)))).length;
  }
  return s;
}

/**
 * Whether the tree has the change in substance: at least two thirds of what it adds stands there (the rest
 * changed since) and most of what it removes is gone. A patch whose lines are all punctuation is never applied so.
 */
export function appliedInSubstance(s: Substance | undefined): boolean {
  if (!s || s.added + s.removed === 0) return false;
  return s.addedThere * 3 >= s.added * 2 && (s.removed === 0 || s.removedGone * 2 > s.removed);
}

/** Lines trimmed, blank ones left out. */
function squeeze(lines: string[]): string[] {
  return lines.map((l) => l.trim()).filter(Boolean);
}

/** A run of added or removed lines, and the context lines next to it in its hunk (trimmed; absent at an edge). */
interface Run {
  lines: string[];
  before?: string;
  after?: string;
}

/** The runs of consecutive `sign` lines of a hunk (trimmed, blanks left out) that hold more than punctuation. */
function runsOf(hunk: string[], sign: '+' | '-'): Run[] {
  const out: Run[] = [];
  let run: string[] = [];
  let before: string | undefined;
  const context = (l: string) => (l[0] === ' ' && l.trim() ? l.trim() : undefined);
  for (const [i, l] of [...hunk, ' '].entries()) {
    if (l[0] === sign) run.push(l.slice(1));
    else if (l[0] !== '\\') {
      const r = squeeze(run);
      if (r.some((x) => /[A-Za-z0-9_]/.test(x))) out.push({ lines: r, before, after: hunk.slice(i).map(context).find(Boolean) });
      run = [];
      before = context(l) ?? before;
    }
  }
  return out;
}

/** Whether a moved run stands in `lines` next to a context line it has in its hunk. */
function besides(lines: string[], r: Run): boolean {
  return (r.before !== undefined && findBlock(lines, [r.before, ...r.lines]) >= 0) || (r.after !== undefined && findBlock(lines, [...r.lines, r.after]) >= 0);
}

/** Every hunk of `diff` that does not apply to the files as `src` has them, and why. */
export function diagnose(diff: string, src: FileSources): HunkFailure[] {
  let files: StructuredPatch[];
  try {
    files = parsePatch(diff);
  } catch (e) {
    const what = e instanceof Error ? e.message.replace(/^Hunk at line (\d+) contained invalid line/, 'line $1 of the diff is not a context, + or - line:') : String(e);
    return [{ kind: 'mangled', file: fileNear(diff, e), hunk: 0, header: '', message: `the diff is damaged (${what.trim()}): line wrapping or whitespace was changed on the way, or the hunk line counts no longer match` }];
  }
  const out: HunkFailure[] = [];
  for (const f of files) {
    const file = strip(f.oldFileName && f.oldFileName !== '/dev/null' ? f.oldFileName : f.newFileName ?? '');
    const isNew = f.oldFileName === '/dev/null';
    const now = src.now(file);
    if (isNew) {
      if (now !== undefined) out.push({ kind: 'conflict', file, hunk: 0, header: '', message: `the patch creates ${file}, which already exists${src.touchedBy(file).length ? ` (patch ${src.touchedBy(file).join(', ')} created it)` : ''}` });
      continue;
    }
    if (now === undefined) {
      const earlier = src.touchedBy(file);
      out.push({ kind: src.atBase(file) !== undefined ? 'conflict' : 'wrong-base', file, hunk: 0, header: '', message: src.atBase(file) !== undefined ? `${file} was removed by patch ${earlier.join(', ')}` : `${file} does not exist in the tree: the series was made against another base` });
      continue;
    }
    const lines = now.split('\n');
    f.hunks.forEach((h, i) => {
      const header = `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`;
      const old = h.lines.filter((l) => l[0] === ' ' || l[0] === '-').map((l) => l.slice(1));
      if (old.length === 0 || findBlock(lines, old) >= 0) return;
      const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
      if (findBlock(lines.map(squash), old.map(squash)) >= 0) {
        out.push({ kind: 'mangled', file, hunk: i + 1, header, message: `hunk ${i + 1} matches ${file} only when whitespace is ignored: tabs or trailing spaces were changed on the way (mail client or list damage)` });
        return;
      }
      const best = bestAlignment(lines, old, h.oldStart - 1);
      if (best.matched * 2 >= old.length && old.length > 1) {
        const atBase = src.atBase(file);
        const earlier = src.touchedBy(file);
        const why = atBase !== undefined && findBlock(atBase.split('\n'), old) >= 0 && earlier.length
          ? `changed by patch ${earlier.join(', ')} of this series`
          : 'changed upstream: the file differs from the one the patch was made against';
        out.push({ kind: 'conflict', file, hunk: i + 1, header, message: `hunk ${i + 1} of ${file}: ${best.differs.length} line${best.differs.length === 1 ? ' differs' : 's differ'} from the ${old.length} it expects near line ${best.at + 1} (${why})`, differs: best.differs });
        return;
      }
      out.push({ kind: 'wrong-base', file, hunk: i + 1, header, message: `hunk ${i + 1} of ${file}: its context exists nowhere in the file: the series was made against another base` });
    });
  }
  return out;
}

function strip(name: string): string {
  return name.replace(/^[ab]\//, '');
}

function fileNear(diff: string, e: unknown): string {
  const line = Number(/line (\d+)/.exec(String(e))?.[1] ?? 0);
  const before = diff.split('\n').slice(0, line || undefined);
  for (let i = before.length - 1; i >= 0; i--) {
    const m = /^\+\+\+ (?:b\/)?(\S+)/.exec(before[i]!);
    if (m) return m[1]!;
  }
  return '';
}

function findBlock(lines: string[], block: string[]): number {
  outer: for (let s = 0; s + block.length <= lines.length; s++) {
    for (let k = 0; k < block.length; k++) if (lines[s + k] !== block[k]) continue outer;
    return s;
  }
  return -1;
}

/**
 * Where `block` (a hunk's expected lines) sits in the file, and the lines that differ there: the start most of its
 * lines vote for (ties: nearest the hunk's own line), then a real diff of the block against that stretch of the
 * file, so one line inserted upstream is one difference, not every line after it.
 */
function bestAlignment(lines: string[], block: string[], hint: number): { at: number; matched: number; differs: { line: number; expected: string; found: string }[] } {
  const votes = new Map<number, number>();
  const at = new Map<string, number[]>();
  block.forEach((l, k) => l.trim() && at.set(l, [...(at.get(l) ?? []), k]));
  lines.forEach((l, p) => {
    for (const k of at.get(l) ?? []) votes.set(p - k, (votes.get(p - k) ?? 0) + 1);
  });
  let start = hint;
  let best = 0;
  for (const [s, n] of votes) if (n > best || (n === best && Math.abs(s - hint) < Math.abs(start - hint))) [start, best] = [s, n];
  const from = Math.max(0, start - 2);
  const window = lines.slice(from, Math.max(from, Math.min(lines.length, start + block.length + 2)));
  const parts = diffArrays(block, window);
  // Window lines before the first and after the last common line are the surroundings, not differences.
  const common = parts.map((x, i) => (!x.added && !x.removed ? i : -1)).filter((i) => i >= 0);
  const differs: { line: number; expected: string; found: string }[] = [];
  let line = from;
  let matched = 0;
  for (const [i, x] of parts.entries()) {
    const outside = common.length > 0 && (i < common[0]! || i > common.at(-1)!);
    if (!x.added && !x.removed) {
      (line += x.count ?? x.value.length), (matched += x.value.length);
      continue;
    }
    if (x.added) {
      const paired = parts[i - 1]?.removed ? parts[i - 1]!.value : [];
      if (outside) {
        // At the edges the file's lines nearest the common ones stand against the block's.
        const skip = i < common[0]! ? Math.max(0, x.value.length - paired.length) : 0;
        paired.forEach((expected, k) => differs.push({ line: line + skip + k + 1, expected, found: x.value[skip + k] ?? '' }));
      } else {
        x.value.forEach((found, k) => differs.push({ line: line + k + 1, expected: paired[k] ?? '', found }));
        for (const expected of paired.slice(x.value.length)) differs.push({ line: line + x.value.length + 1, expected, found: '' });
      }
      line += x.value.length;
      continue;
    }
    if (!parts[i + 1]?.added) x.value.forEach((expected) => differs.push({ line: line + 1, expected, found: lines[line] ?? '' }));
  }
  return { at: Math.max(0, start), matched, differs };
}
