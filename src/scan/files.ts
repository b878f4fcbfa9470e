// Tree-wide reading for scans: git grep -P picks the files, then they are read in batches, the next batch while the
// caller works on this one. At a commit, git cat-file reads them; in the working tree, the file system does.
import fs from 'node:fs/promises';
import path from 'node:path';
import { checkTreePath } from '../templates/params.js';
import { gitTry, readManyAtCommit } from '../tools/git.js';
import type { KernelTree } from '../tree/tree.js';

/** Files read at once: bounds memory on a whole-tree scan. */
const BATCH = 100;

/**
 * Every .c file under `paths` (the whole tree when empty) whose text matches the Perl-compatible `pattern`, with its
 * text, in path order: at `commit`, or, without one, the tracked files as they are in the working tree.
 */
export async function* filesMatching(tree: KernelTree, commit: string | undefined, pattern: string, paths: readonly string[]): AsyncGenerator<[string, string]> {
  const specs = paths.length ? paths.map((p) => `${checkTreePath(p, '--path')}/*.c`) : ['*.c'];
  const listed = await gitTry(tree.root, ['grep', '-l', '--full-name', '-P', pattern, ...(commit ? [commit] : []), '--', ...specs]);
  const files = (listed ?? '')
    .split('\n')
    .filter(Boolean)
    .map((l) => (commit ? l.slice(commit.length + 1) : l));
  const read = (i: number) => (i < files.length ? readBatch(tree, commit, files.slice(i, i + BATCH)) : undefined);
  let next = read(0);
  for (let i = 0; next; i += BATCH) {
    const texts = await next;
    next = read(i + BATCH);
    yield* texts;
  }
}

async function readBatch(tree: KernelTree, commit: string | undefined, files: string[]): Promise<Map<string, string>> {
  if (commit) return readManyAtCommit(tree.root, commit, files);
  const texts = await Promise.all(files.map((f) => fs.readFile(path.join(tree.root, f), 'utf8').catch(() => undefined)));
  return new Map(files.flatMap((f, i) => (texts[i] === undefined ? [] : [[f, texts[i]!] as [string, string]])));
}
