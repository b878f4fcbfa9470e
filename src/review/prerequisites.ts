// A series that stands on another names it as git format-patch --base writes it: base-commit, then a
// prerequisite-patch-id per patch of the other series (b4 adds prerequisite-message-id, to fetch them by). Review
// applies the series on those patches where a branch of the tree holds them, as b4 shazam applies it on what it
// fetched; nothing is fetched from the network.
import { gitRaw, gitRun } from '../tools/git.js';
import type { KernelTree } from '../tree/tree.js';

export interface Prerequisites {
  /** `git patch-id --stable` of each patch the series stands on, in order. */
  patchIds: string[];
  /** Where they were sent (prerequisite-message-id), when the sender says. */
  messageIds: string[];
}

/** The prerequisites named in the message that holds base-commit; undefined when it names none. */
export function prerequisitesOf(body: string): Prerequisites | undefined {
  const values = (key: string) => [...body.matchAll(new RegExp(`^${key}: (\\S+)\\s*$`, 'gm'))].map((m) => m[1]!);
  const patchIds = values('prerequisite-patch-id').filter((id) => /^[0-9a-f]{40}$/.test(id));
  return patchIds.length ? { patchIds, messageIds: values('prerequisite-message-id') } : undefined;
}

/** Commits of the tree's branches read for their patch ids at most: a tree with more past the base is not searched further. */
const SEARCHED = 2000;

/**
 * The commit on top of exactly the prerequisite patches on `base`: a commit of a local branch whose own patches since
 * `base` are those of `patchIds`, in their order. Undefined when no branch holds them so.
 */
export async function prerequisiteTip(tree: KernelTree, base: string, patchIds: string[]): Promise<string | undefined> {
  const log = await gitRaw(tree.root, ['log', '--no-merges', '-p', `--max-count=${SEARCHED}`, '--branches', '--not', base]);
  if (!log.trim()) return undefined;
  const pairs = (await gitRun(tree.root, ['patch-id', '--stable'], { input: log })).stdout.trim().split('\n').filter(Boolean);
  const idOf = new Map(pairs.map((l) => l.split(' ') as [string, string]).map(([patch, commit]) => [commit, patch]));
  const last = patchIds[patchIds.length - 1]!;
  for (const [commit, patch] of idOf) {
    if (patch !== last) continue;
    const chain = (await gitRaw(tree.root, ['rev-list', '--reverse', `${base}..${commit}`])).trim().split('\n');
    if (chain.length === patchIds.length && chain.every((c, i) => idOf.get(c) === patchIds[i])) return commit;
  }
  return undefined;
}
