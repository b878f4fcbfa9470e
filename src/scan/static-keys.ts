// `kseries scan static-keys`: git grep picks the files with declarations, worker threads (one per core) read and
// classify them batch by batch while git grep still searches; the candidates come back in path order.
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ToolFailedError, UsageError } from '../errors.js';
import { DECLARATION_PREFILTER, scanFile, type FlagCandidate } from '../recipes/static-key/scan.js';
import { commitOf, type KernelTree } from '../tree/tree.js';
import { listMatching, readBatch, type Source } from './files.js';

const WORKER = fileURLToPath(new URL('./static-keys-worker.js', import.meta.url));

/** Scan the working tree's tracked files, or the tree at `rev`. */
export async function scanStaticKeys(tree: KernelTree, paths: string[], rev?: string): Promise<FlagCandidate[]> {
  const commit = rev === undefined ? undefined : await commitOf(tree, rev);
  if (rev !== undefined && !commit) throw new UsageError(`--rev ${rev} is not a commit of ${tree.root}`, 'give a branch, tag or commit of the kernel tree');
  const source: Source = { root: tree.root, commit };
  const results: Promise<FlagCandidate[]>[] = [];
  // Run from the TypeScript sources (tests) there is no compiled worker: classify in this thread.
  const pool = fs.existsSync(WORKER) ? new Pool(source, os.availableParallelism()) : undefined;
  try {
    await listMatching(source, DECLARATION_PREFILTER, paths, (files) => results.push(pool ? pool.classify(files) : classifyHere(source, files)));
    return (await Promise.all(results)).flat();
  } finally {
    await pool?.close();
  }
}

async function classifyHere(source: Source, files: string[]): Promise<FlagCandidate[]> {
  const out: FlagCandidate[] = [];
  for (const [file, text] of await readBatch(source, files)) out.push(...scanFile(file, text));
  return out;
}

/** Worker threads taking batches in turn; each answer is matched to its batch by id. */
class Pool {
  private readonly workers: Worker[];
  private readonly waiting = new Map<number, { resolve: (c: FlagCandidate[]) => void; reject: (e: Error) => void }>();
  private sent = 0;

  constructor(source: Source, size: number) {
    this.workers = Array.from({ length: Math.max(1, size) }, () => {
      const w = new Worker(WORKER, { workerData: source });
      w.on('message', (m: { id: number; candidates?: FlagCandidate[]; error?: string }) => {
        const p = this.waiting.get(m.id)!;
        this.waiting.delete(m.id);
        if (m.error !== undefined) p.reject(new ToolFailedError(`scan: ${m.error}`, 'rerun with --debug'));
        else p.resolve(m.candidates!);
      });
      w.on('error', (e) => {
        for (const p of this.waiting.values()) p.reject(e);
        this.waiting.clear();
      });
      return w;
    });
  }

  classify(files: string[]): Promise<FlagCandidate[]> {
    const id = this.sent++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.workers[id % this.workers.length]!.postMessage({ id, files });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
