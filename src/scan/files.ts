// Tree-wide reading for scans: git grep -P picks the files, git cat-file reads them in batches.
import { checkTreePath } from '../templates/params.js';
import { gitTry, readManyAtCommit } from '../tools/git.js';
import type { KernelTree } from '../tree/tree.js';

/** Files read per git cat-file call: bounds memory on a whole-tree scan. */
const BATCH = 100;

/**
 * Every .c file under `paths` (the whole tree when empty) at `commit` whose text matches the Perl-compatible
 * `pattern`, with its text, in path order. git reads the next batch while the caller works on this one.
 */
export async function* filesMatching(tree: KernelTree, commit: string, pattern: string, paths: readonly string[]): AsyncGenerator<[string, string]> {
  const specs = paths.length ? paths.map((p) => `${checkTreePath(p, '--path')}/*.c`) : ['*.c'];
  const listed = await gitTry(tree.root, ['grep', '-l', '-P', pattern, commit, '--', ...specs]);
  const files = (listed ?? '')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(commit.length + 1));
  const read = (i: number) => (i < files.length ? readManyAtCommit(tree.root, commit, files.slice(i, i + BATCH)) : undefined);
  let next = read(0);
  for (let i = 0; next; i += BATCH) {
    const texts = await next;
    next = read(i + BATCH);
    yield* texts;
  }
}
