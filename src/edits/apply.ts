// Applying rendered edits to a FileOverlay: unified diffs (with fuzz), anchored fragments, new files.
import { applyPatch, parsePatch, type StructuredPatch } from 'diff';
import { ApplyError } from '../errors.js';
import { checkTreePath } from '../tree/paths.js';
import type { FileOverlay } from './overlay.js';

/** Context lines a hunk may be off by and still apply, as `patch -F2` would. */
export const DIFF_FUZZ = 2;

export type RenderedEdit =
  | { kind: 'diff'; source: string; diff: string }
  | { kind: 'insert'; source: string; file: string; anchor: string; regex: boolean; position: 'before' | 'after' | 'replace'; text: string; within?: string }
  | { kind: 'new-file'; source: string; file: string; text: string }
  | { kind: 'replace-file'; source: string; file: string; text: string };

export async function applyEdit(files: FileOverlay, edit: RenderedEdit): Promise<void> {
  switch (edit.kind) {
    case 'diff':
      return applyDiff(files, edit.diff, edit.source);
    case 'insert':
      return applyInsert(files, edit);
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
  try {
    patches = parsePatch(diff);
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
  const text = await files.read(file);
  if (text === undefined) throw new ApplyError(`${edit.source}: ${file} does not exist in the tree`, 'check the file parameter');
  const lines = text.split('\n');
  const matches = (pattern: string, regex: boolean) => {
    const re = regex ? new RegExp(pattern) : undefined;
    return (l: string) => (re ? re.test(l) : l.includes(pattern));
  };
  // `within` names the first line of a top-level block (a function); the anchor is looked for up to its closing brace.
  let [from, to] = [0, lines.length];
  if (edit.within !== undefined) {
    const starts = lines.flatMap((l, i) => (matches(edit.within!, edit.regex)(l) ? [i] : []));
    if (starts.length !== 1) throw anchorError(edit, file, `block ${JSON.stringify(edit.within)}`, starts);
    from = starts[0]!;
    const end = lines.findIndex((l, i) => i > from && l.startsWith('}'));
    to = end < 0 ? lines.length : end + 1;
  }
  const isAnchor = matches(edit.anchor, edit.regex);
  const hits: number[] = [];
  for (let i = from; i < to; i++) if (isAnchor(lines[i]!)) hits.push(i);
  if (hits.length !== 1) throw anchorError(edit, file, `anchor ${JSON.stringify(edit.anchor)}${edit.within !== undefined ? ` in that block` : ''}`, hits);
  const at = hits[0]!;
  const fragment = edit.text.replace(/\n$/, '').split('\n');
  const start = edit.position === 'after' ? at + 1 : at;
  lines.splice(start, edit.position === 'replace' ? 1 : 0, ...fragment);
  await files.write(file, lines.join('\n'));
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
