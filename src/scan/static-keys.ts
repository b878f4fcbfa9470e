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

/**
 * Worker threads, each given a new batch as soon as it has fewer than two in hand (batches differ in size, so taking
 * turns would leave one worker with the tail); each answer is matched to its batch by id.
 */
class Pool {
  private readonly workers: { worker: Worker; busy: number }[];
  private readonly queue: { id: number; files: string[] }[] = [];
  private readonly waiting = new Map<number, { resolve: (c: FlagCandidate[]) => void; reject: (e: unknown) => void }>();
  private sent = 0;

  constructor(source: Source, size: number) {
    this.workers = Array.from({ length: Math.max(1, size) }, () => {
      const slot = { worker: new Worker(WORKER, { workerData: source }), busy: 0 };
      slot.worker.on('message', (m: { id: number; candidates?: FlagCandidate[]; error?: string }) => {
        slot.busy--;
        const p = this.waiting.get(m.id)!;
        this.waiting.delete(m.id);
        if (m.error !== undefined) p.reject(new ToolFailedError(`scan: ${m.error}`, 'rerun with --debug'));
        else p.resolve(m.candidates!);
        this.dispatch();
      });
      slot.worker.on('error', (e) => {
        for (const p of this.waiting.values()) p.reject(e);
        this.waiting.clear();
      });
      return slot;
    });
  }

  classify(files: string[]): Promise<FlagCandidate[]> {
    const id = this.sent++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.queue.push({ id, files });
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const slot of [...this.workers].sort((a, b) => a.busy - b.busy)) {
      if (this.queue.length === 0) return;
      if (slot.busy >= 2) continue;
      slot.busy++;
      slot.worker.postMessage(this.queue.shift());
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }
}
