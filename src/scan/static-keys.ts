// `kseries scan static-keys`: prefilter with git grep, read the matching files in batches, classify every flag.
import { DECLARATION_PREFILTER, scanFile, type FlagCandidate } from '../recipes/static-key/scan.js';
import { checkTreePath } from '../templates/params.js';
import { gitRaw, gitTry, readManyAtCommit } from '../tools/git.js';
import type { KernelTree } from '../tree/tree.js';

/** Files read per git cat-file call: bounds memory on a whole-tree scan. */
const BATCH = 100;

export async function scanStaticKeys(tree: KernelTree, paths: string[], commit = 'HEAD'): Promise<FlagCandidate[]> {
  const sha = (await gitRaw(tree.root, ['rev-parse', `${commit}^{commit}`])).trim();
  const specs = paths.length ? paths.map((p) => `${checkTreePath(p, '--path')}/*.c`) : ['*.c'];
  const listed = await gitTry(tree.root, ['grep', '-l', '-P', DECLARATION_PREFILTER, sha, '--', ...specs]);
  const files = (listed ?? '')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(sha.length + 1));
  const candidates: FlagCandidate[] = [];
  const read = (i: number) => (i < files.length ? readManyAtCommit(tree.root, sha, files.slice(i, i + BATCH)) : undefined);
  // git reads the next batch while this one is classified.
  let next = read(0);
  for (let i = 0; next; i += BATCH) {
    const texts = await next;
    next = read(i + BATCH);
    for (const [file, text] of texts) candidates.push(...scanFile(file, text));
  }
  return candidates;
}
