// Applying rendered edits to a FileOverlay: unified diffs (with fuzz), anchored fragments, new files.
import { applyPatch, parsePatch, type StructuredPatch } from 'diff';
import { ApplyError } from '../errors.js';
import { checkTreePath } from '../tree/paths.js';
import { functionLines, structLines } from '../c-source/definitions.js';
import type { FileOverlay } from './overlay.js';

/** Context lines a hunk may be off by and still apply, as `patch -F2` would. */
export const DIFF_FUZZ = 2;

export type RenderedEdit =
  | { kind: 'diff'; source: string; diff: string }
  | ({ kind: 'insert'; source: string; file: string; position: InsertPosition; text: string } & Place)
  | ({ kind: 'move'; source: string; file: string; to: Place & { position: 'before' | 'after' } } & Place)
  | { kind: 'new-file'; source: string; file: string; text: string }
  | { kind: 'replace-file'; source: string; file: string; text: string };

export type InsertPosition = 'before' | 'after' | 'replace' | 'substitute';

/**
 * Where an edit acts: the one line `anchor` matches (a substring, or a regular expression with `regex`); with `until`,
 * the block from that line up to, not including, the first later line `until` matches; with `within`, the anchor is
 * looked for only in the top-level block (a function) whose first line `within` matches, up to its closing brace.
 */
export interface Place {
  anchor?: string;
  regex: boolean;
  until?: string;
  within?: string;
  /**
   * A definition by name (read through c-source/, so a changed signature or body still matches): the place is its
   * lines, from the declaration's first line to the closing brace; with `anchor`, the anchor is looked for in them.
   */
  function?: string;
  struct?: string;
}

export async function applyEdit(files: FileOverlay, edit: RenderedEdit): Promise<void> {
  switch (edit.kind) {
    case 'diff':
      return applyDiff(files, edit.diff, edit.source);
    case 'insert':
      return applyInsert(files, edit);
    case 'move':
      return applyMove(files, edit);
    case 'new-file': {
      const file = treePath(edit.file, edit.source);
      if ((await files.read(file)) !== undefined) {
        throw new ApplyError(`${edit.source}: ${file} already exists`, 'a new-file edit must name a file the tree does not have');
      }
      return files.write(file, ensureNewline(edit.text));
    }
    case 'replace-file':
      return files.write(treePath(edit.file, edit.source), edit.text);
  }
}

async function applyDiff(files: FileOverlay, diff: string, source: string): Promise<void> {
  let patches: StructuredPatch[];
  const counted = recount(diff, source);
  try {
    patches = parsePatch(counted);
  } catch (e) {
    throw new ApplyError(`${source}: not a unified diff (${(e as Error).message})`, 'render the template and check its @@ headers');
  }
  patches = patches.filter((p) => p.hunks.length > 0 || p.oldFileName || p.newFileName);
  if (patches.length === 0) throw new ApplyError(`${source}: the rendered diff holds no file`, 'a diff edit needs ---/+++ headers and hunks');
  for (const p of patches) {
    const oldName = diffPath(p.oldFileName);
    const newName = diffPath(p.newFileName);
    const file = treePath((newName ?? oldName)!, source);
    const before = oldName === undefined ? undefined : await files.read(treePath(oldName, source));
    if (oldName !== undefined && before === undefined) {
      throw new ApplyError(`${source}: ${oldName} does not exist in the tree`, 'check the file name in the --- header');
    }
    if (oldName === undefined && (await files.read(file)) !== undefined) {
      throw new ApplyError(`${source}: ${file} already exists (diff creates it from /dev/null)`, 'diff against the existing file instead');
    }
    const result = applyPatch(before ?? '', p, { fuzzFactor: DIFF_FUZZ });
    if (result === false) throw failingHunk(before ?? '', p, file, source);
    if (oldName !== undefined && newName !== undefined && oldName !== newName) await files.write(treePath(oldName, source), undefined);
    await files.write(file, newName === undefined ? undefined : result);
  }
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

/** A line that starts a file's headers or a hunk: where one hunk's lines end. */
const startsHeader = (lines: string[], j: number) => {
  const l = lines[j]!;
  return l.startsWith('@@') || l.startsWith('diff ') || (l.startsWith('--- ') && !!lines[j + 1]?.startsWith('+++ '));
};

/**
 * The diff with each hunk's line counts recounted from its lines, as `git apply --recount` does: a hand-written
 * template need not count. A hunk runs until the next `@@`, `diff ` or `--- `/`+++ ` pair; an empty line in it is an
 * empty context line (editors strip the space). Lines after a hunk that are no hunk lines up to the next header —
 * a mail's signature (`-- ` and git's version, as format-patch ends a patch), `diff -r`'s "Only in ..." — are left
 * out; a line that is no hunk line with hunk lines after it is an error naming the hunk.
 */
export function recount(diff: string, source: string): string {
  const lines = diff.split('\n');
  const out: string[] = [];
  let hunk = 0;
  const hunkLine = (l: string) => /^[ +\-\\]/.test(l) || l === '';
  for (let i = 0; i < lines.length; i++) {
    const m = HUNK_HEADER.exec(lines[i]!);
    if (!m) {
      out.push(lines[i]!);
      continue;
    }
    hunk++;
    const body: string[] = [];
    let oldLines = 0;
    let newLines = 0;
    let j = i + 1;
    for (; j < lines.length && !startsHeader(lines, j); j++) {
      const l = lines[j]!;
      let next = j + 1;
      while (next < lines.length && !startsHeader(lines, next) && lines[next] === '') next++;
      // A signature's "-- " (some tools strip its space) followed by no hunk line ends the hunk.
      const signature = l === '-- ' || l === '--';
      const trailer = signature ? next < lines.length && !hunkLine(lines[next]!) : !hunkLine(l);
      if (trailer || (l === '' && next === lines.length)) {
        let k = j;
        while (k < lines.length && !startsHeader(lines, k)) k++;
        // Inside what the header announces, or with hunk lines after it, such a line is a broken hunk line, not a trailer.
        const announced = oldLines < Number(m[2] ?? 1) || newLines < Number(m[4] ?? 1);
        if (trailer && !signature && (announced || lines.slice(j + 1, k).some((x) => x !== '' && /^[ +]/.test(x)))) {
          throw new ApplyError(`${source}: hunk ${hunk} (${lines[i]!.trim()}), line ${j - i}: "${l.trim()}" starts with none of ' ', '-', '+'`, 'every line of a hunk is context (space), removed (-) or added (+); an indented template line may have lost its first character');
        }
        j = k;
        break;
      }
      const c = l[0] ?? ' ';
      if (c === ' ' || l === '') oldLines++, newLines++;
      else if (c === '-') oldLines++;
      else if (c === '+') newLines++;
      body.push(l === '' ? ' ' : l);
    }
    const same = oldLines === Number(m[2] ?? 1) && newLines === Number(m[4] ?? 1);
    out.push(same ? lines[i]! : `@@ -${m[1]},${oldLines} +${m[3]},${newLines} @@${m[5]}`, ...body);
    i = j - 1;
  }
  return out.join('\n');
}

/** Find the first hunk that does not apply on its own, and say where and what it expected. */
function failingHunk(text: string, p: StructuredPatch, file: string, source: string): ApplyError {
  for (const [i, h] of p.hunks.entries()) {
    if (applyPatch(text, { ...p, hunks: [h] }, { fuzzFactor: DIFF_FUZZ }) === false) {
      const expected = h.lines.find((l) => l.startsWith(' ') || l.startsWith('-'))?.slice(1) ?? '';
      return new ApplyError(
        `${source}: hunk ${i + 1} (@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@) does not apply to ${file}: ` +
          `no match for "${expected.trim()}" near line ${h.oldStart}`,
        `the tree's ${file} differs from what the template expects; regenerate the diff against this tree`,
      );
    }
  }
  return new ApplyError(`${source}: the hunks of ${file} do not apply together`, 'the hunks overlap; split or regenerate the diff');
}

async function applyInsert(files: FileOverlay, edit: Extract<RenderedEdit, { kind: 'insert' }>): Promise<void> {
  const file = treePath(edit.file, edit.source);
  const lines = await readLines(files, file, edit.source);
  const [at, end] = locate(lines, edit, file, edit.source);
  const text = edit.text.replace(/\n$/, '');
  // An empty fragment adds no line: `replace` with it deletes the lines.
  const fragment = text === '' ? [] : text.split('\n');
  switch (edit.position) {
    case 'before':
      lines.splice(at, 0, ...fragment);
      break;
    case 'after':
      lines.splice(end, 0, ...fragment);
      break;
    case 'replace':
      lines.splice(at, end - at, ...fragment);
      break;
    case 'substitute': {
      // Only the part of the line the anchor matches changes; `$1`... name a regular expression's groups.
      const line = lines[at]!;
      const anchor = edit.anchor ?? '';
      const changed = edit.regex ? line.replace(new RegExp(anchor), text) : line.replace(anchor, () => text);
      lines.splice(at, 1, ...changed.split('\n'));
      break;
    }
  }
  await files.write(file, lines.join('\n'));
}

/** Move the anchored lines, unchanged, before or after the lines `to` names (looked for once they are taken out). */
async function applyMove(files: FileOverlay, edit: Extract<RenderedEdit, { kind: 'move' }>): Promise<void> {
  const file = treePath(edit.file, edit.source);
  const lines = await readLines(files, file, edit.source);
  const [at, end] = locate(lines, edit, file, edit.source);
  const block = lines.splice(at, end - at);
  const [toAt, toEnd] = locate(lines, edit.to, file, `${edit.source} (to)`);
  lines.splice(edit.to.position === 'before' ? toAt : toEnd, 0, ...block);
  await files.write(file, lines.join('\n'));
}

async function readLines(files: FileOverlay, file: string, source: string): Promise<string[]> {
  const text = await files.read(file);
  if (text === undefined) throw new ApplyError(`${source}: ${file} does not exist in the tree`, 'check the file parameter');
  return text.split('\n');
}

/** The lines [start, end) a Place names: one line, or a block with `until`. */
function locate(lines: string[], place: Place, file: string, source: string): [number, number] {
  const matches = (pattern: string) => {
    const re = place.regex ? new RegExp(pattern) : undefined;
    return (l: string) => (re ? re.test(l) : l.includes(pattern));
  };
  const edit = { source };
  let [from, to] = [0, lines.length];
  const named = place.function ?? place.struct;
  if (named !== undefined) {
    const kind = place.function !== undefined ? 'function' : 'struct';
    const text = lines.join('\n');
    const def = kind === 'function' ? functionLines(file, text, named) : structLines(text, named);
    if (!def) throw new ApplyError(`${source}: ${file} defines no ${kind} ${named}`, `the tree's ${file} differs from the code this recipe was written for`);
    [from, to] = [def.first, def.last + 1];
    if (place.anchor === undefined) return [from, to];
  }
  if (place.anchor === undefined) throw new ApplyError(`${source}: no anchor`, 'give "anchor", "function" or "struct"');
  const anchor = place.anchor;
  if (place.within !== undefined) {
    const starts = lines.flatMap((l, i) => (matches(place.within!)(l) ? [i] : []));
    if (starts.length !== 1) throw anchorError(edit, file, `block ${JSON.stringify(place.within)}`, starts);
    from = starts[0]!;
    const close = lines.findIndex((l, i) => i > from && l.startsWith('}'));
    to = close < 0 ? lines.length : close + 1;
  }
  const isAnchor = matches(anchor);
  const hits: number[] = [];
  for (let i = from; i < to; i++) if (isAnchor(lines[i]!)) hits.push(i);
  const inBlock = place.within !== undefined ? ' in that block' : named !== undefined ? ` in ${named}` : '';
  if (hits.length !== 1) throw anchorError(edit, file, `anchor ${JSON.stringify(anchor)}${inBlock}`, hits);
  const at = hits[0]!;
  if (place.until === undefined) return [at, at + 1];
  const isEnd = matches(place.until);
  const end = lines.findIndex((l, i) => i > at && i < to && isEnd(l));
  if (end < 0) throw anchorError(edit, file, `until ${JSON.stringify(place.until)} after line ${at + 1}${inBlock}`, []);
  return [at, end];
}

function anchorError(edit: { source: string }, file: string, what: string, hits: number[]): ApplyError {
  return new ApplyError(
    `${edit.source}: ${what} matches ${hits.length} lines of ${file}` + (hits.length > 1 ? ` (lines ${hits.slice(0, 5).map((h) => h + 1).join(', ')})` : ''),
    hits.length === 0 ? `the tree's ${file} differs from the code this recipe was written for` : 'an anchor must match exactly one line; make it more specific',
  );
}

function diffPath(name: string | undefined): string | undefined {
  if (!name || name === '/dev/null') return undefined;
  return name.replace(/^[ab]\//, '').replace(/\t.*$/, '');
}

function treePath(raw: string, source: string): string {
  try {
    return checkTreePath(raw, source);
  } catch (e) {
    throw new ApplyError((e as Error).message, 'edits may only touch files inside the kernel tree');
  }
}

function ensureNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
