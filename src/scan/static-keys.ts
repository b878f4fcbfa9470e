// `kseries scan static-keys`: prefilter with git grep, read the matching files in batches, classify every flag.
import { DECLARATION_PREFILTER, scanFile, type FlagCandidate } from '../recipes/static-key/scan.js';
import { commitOf, type KernelTree } from '../tree/tree.js';
import { UsageError } from '../errors.js';
import { filesMatching } from './files.js';

/** Scan the working tree's tracked files, or the tree at `rev`. */
export async function scanStaticKeys(tree: KernelTree, paths: string[], rev?: string): Promise<FlagCandidate[]> {
  const sha = rev === undefined ? undefined : await commitOf(tree, rev);
  if (rev !== undefined && !sha) throw new UsageError(`--rev ${rev} is not a commit of ${tree.root}`, 'give a branch, tag or commit of the kernel tree');
  const candidates: FlagCandidate[] = [];
  for await (const [file, text] of filesMatching(tree, sha, DECLARATION_PREFILTER, paths)) candidates.push(...scanFile(file, text));
  return candidates;
}
