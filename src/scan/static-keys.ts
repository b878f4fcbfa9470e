// `kseries scan static-keys`: prefilter with git grep, read the matching files in batches, classify every flag.
import { DECLARATION_PREFILTER, scanFile, type FlagCandidate } from '../recipes/static-key/scan.js';
import { gitRaw } from '../tools/git.js';
import type { KernelTree } from '../tree/tree.js';
import { filesMatching } from './files.js';

export async function scanStaticKeys(tree: KernelTree, paths: string[], commit = 'HEAD'): Promise<FlagCandidate[]> {
  const sha = (await gitRaw(tree.root, ['rev-parse', `${commit}^{commit}`])).trim();
  const candidates: FlagCandidate[] = [];
  for await (const [file, text] of filesMatching(tree, sha, DECLARATION_PREFILTER, paths)) candidates.push(...scanFile(file, text));
  return candidates;
}
