// What a scan reads, named by content: the commit, the working tree's changes against it, and the blob id of every
// tracked file, so that kseries' scan caches are keyed by what the files hold (and by the rules that read them), never
// by when they were read.
import { createHash } from 'node:crypto';
import { ToolFailedError } from '../../../errors.js';
import { gitRunRaw } from '../../../tools/git.js';
import { codeDigest } from '../../../kept.js';
import type { Source } from './files.js';

export interface TreeContent {
  /** The commit scanned, or the working tree's HEAD. */
  head: string;
  /** The working tree's binary diff against HEAD ('' at a commit, or when clean). */
  diff: string;
  /** Tracked files whose working-tree text differs from the commit's: their blob ids say nothing of it. */
  dirty: Set<string>;
  /**
   * The blob id of each file by path: at a commit every file of it; in a working tree the files of `specs` in the index
   * (which, for a file not dirty, is HEAD's blob and the working tree's text).
   */
  blobs: Map<string, string>;
}

export async function treeContent(source: Source, specs: readonly string[]): Promise<TreeContent> {
  const { root, commit } = source;
  const head = commit ?? (await git(root, ['rev-parse', 'HEAD'])).trim();
  const [listing, changed, staged] = await Promise.all([
    // "<mode> blob <id>\t<path>" and "<mode> <id> <stage>\t<path>"
    git(root, commit ? ['ls-tree', '-r', '-z', commit] : ['ls-files', '-s', '-z', '--', ...specs]),
    commit ? '' : git(root, ['diff', 'HEAD', '--name-only', '-z', '--no-renames']),
    // Staged, even where the working tree went back to HEAD's text: then the index's blob is not the text read.
    commit ? '' : git(root, ['diff', '--cached', '--name-only', '-z', '--no-renames']),
  ]);
  const dirty = new Set(`${changed}\0${staged}`.split('\0').filter(Boolean));
  const diff = dirty.size ? await git(root, ['diff', 'HEAD', '--binary', '--no-ext-diff', '--no-renames']) : '';
  const blobs = new Map<string, string>();
  const id = commit ? 2 : 1;
  for (const entry of listing.split('\0')) {
    const tab = entry.indexOf('\t');
    const fields = entry.slice(0, tab).split(' ');
    if (tab > 0 && (!commit || fields[1] === 'blob')) blobs.set(entry.slice(tab + 1), fields[id]!);
  }
  return { head, diff, dirty, blobs };
}

async function git(root: string, args: string[]): Promise<string> {
  const r = await gitRunRaw(root, args);
  if (r.code !== 0) throw new ToolFailedError(`git ${args[0]} failed in ${root}: ${r.stderr.trim().split('\n').pop()}`, `run git ${args.join(' ')} in ${root} to see why`);
  return r.stdout;
}

/** A short key for `content` read by rules of `rulesVersion()`. */
export function contentKey(content: TreeContent): string {
  return createHash('sha1').update(`${content.head}\n${content.diff}\n${rulesVersion()}`).digest('hex').slice(0, 16);
}

let rules: string | undefined;

/**
 * The version of the rules a cache was made with: a digest of the modules that read C, follow callers and decide
 * (their compiled or source text), so what other rules found is never read.
 */
export function rulesVersion(): string {
  return (rules ??= codeDigest(['c-source', 'recipes/static-key', 'recipes/static-key/tree-scan', 'recipes', 'build']));
}
