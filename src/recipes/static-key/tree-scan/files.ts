// Tree-wide reading for scans: git grep -P picks the files, in batches as it finds them, and the batches are read:
// at a commit through git cat-file, in the working tree from the file system.
import fs from 'node:fs';
import path from 'node:path';
import { ToolFailedError, UsageError } from '../../../errors.js';
import { checkTreePath } from '../../../tree/paths.js';
import { gitLines, gitRunRaw } from '../../../tools/git.js';

/** Files per batch: bounds memory on a whole-tree scan. */
const BATCH = 100;

/** Where files are read: the tree's top, and a commit (none: the working tree). */
export interface Source {
  root: string;
  commit?: string;
}

/**
 * Every file of `specs` (git pathspecs) whose text matches the Perl-compatible `pattern`, handed to `onBatch` in path
 * order, batch by batch while git grep still searches. Resolves when git grep is done.
 */
export async function listMatching(source: Source, pattern: string, specs: readonly string[], onBatch: (files: string[]) => void): Promise<void> {
  const { commit } = source;
  let batch: string[] = [];
  const r = await gitLines(source.root, ['grep', '-l', '--full-name', '-P', pattern, ...(commit ? [commit] : []), '--', ...specs], (line) => {
    if (!line) return;
    batch.push(commit ? line.slice(commit.length + 1) : line);
    if (batch.length === BATCH) {
      onBatch(batch);
      batch = [];
    }
  });
  if (batch.length) onBatch(batch);
  // 1: nothing matched.
  if (r.code > 1) throw new ToolFailedError(`git grep failed: ${r.stderr.trim().split('\n').pop()}`, `run git grep -P in ${source.root} to see why`);
}

/** The .c files a scan of `paths` reads (the whole tree when empty), as git pathspecs, and a test of a tracked path against them. */
export async function scanScope(source: Source, paths: readonly string[]): Promise<{ specs: string[]; has: (file: string) => boolean }> {
  const specs = paths.length ? await Promise.all(paths.map((p) => pathSpec(source, p))) : ['*.c'];
  // A pathspec's * matches across slashes: 'mm/*.c' is every .c file under mm/.
  const has = (file: string) => file.endsWith('.c') && specs.some((s) => (s.endsWith('*.c') ? file.startsWith(s.slice(0, -3)) : file === s));
  return { specs, has };
}

/**
 * The pathspec of one --path: the .c files of a folder, or one .c file. A path that names neither in the source (the
 * working tree, or the commit) is refused: git grep would only find nothing there.
 */
async function pathSpec(source: Source, raw: string): Promise<string> {
  const rel = checkTreePath(raw, '--path');
  const kind = await kindOf(source, rel);
  const where = source.commit ? `at commit ${source.commit.slice(0, 12)}` : `in ${source.root}`;
  if (kind === 'folder') return `${rel}/*.c`;
  if (kind === 'file' && rel.endsWith('.c')) return rel;
  if (kind === 'file') throw new UsageError(`--path ${raw}: not a folder or a .c file`, 'give a folder of the tree (e.g. mm) or one .c file');
  throw new UsageError(`--path ${raw}: no such folder or file ${where}`, 'give a path relative to the top of the tree, e.g. mm or kernel/sched');
}

async function kindOf(source: Source, rel: string): Promise<'folder' | 'file' | undefined> {
  if (source.commit) {
    const r = await gitRunRaw(source.root, ['cat-file', '-t', `${source.commit}:${rel}`]);
    const type = r.code === 0 ? r.stdout.trim() : undefined;
    return type === 'tree' ? 'folder' : type === 'blob' ? 'file' : undefined;
  }
  const st = fs.statSync(path.join(source.root, rel), { throwIfNoEntry: false });
  return st?.isDirectory() ? 'folder' : st?.isFile() ? 'file' : undefined;
}

export async function readBatch(source: Source, files: string[]): Promise<Map<string, string>> {
  // Imported here: the scan's worker threads read the working tree and need not load simple-git.
  if (source.commit) return (await import('../../../tools/git.js')).readManyAtCommit(source.root, source.commit, files);
  // Read synchronously: thousands of small files in the page cache cost less this way than through promises.
  const texts = new Map<string, string>();
  for (const f of files) {
    try {
      texts.set(f, fs.readFileSync(path.join(source.root, f), 'utf8'));
    } catch {
      /* deleted since git grep listed it */
    }
  }
  return texts;
}
