// `kseries scan static-keys`: git grep picks the files with declarations, worker threads (one per core) read and
// classify them batch by batch while git grep still searches; then the tree answers what one file cannot (the callers
// of global functions, round by round; the headers of shared flags; the architectures), and each flag is decided.
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ToolFailedError, UsageError } from '../errors.js';
import { Expander } from '../recipes/static-key/reach.js';
import { decide, DECLARATION_PREFILTER, newWalkers, pendingNames, scanFacts, type FlagCandidate, type FlagFacts, type TreeAnswers } from '../recipes/static-key/scan.js';
import { commitOf, type KernelTree } from '../tree/tree.js';
import { listMatching, readBatch, type Source } from './files.js';
import { TreeLookup } from './tree-lookup.js';

const WORKER = fileURLToPath(new URL('./static-keys-worker.js', import.meta.url));

/** Rounds of tree lookups: each follows global callers one level further up. */
const ROUNDS = 4;

/** Scan the working tree's tracked files, or the tree at `rev`. */
export async function scanStaticKeys(tree: KernelTree, paths: string[], rev?: string): Promise<FlagCandidate[]> {
  const commit = rev === undefined ? undefined : await commitOf(tree, rev);
  if (rev !== undefined && !commit) throw new UsageError(`--rev ${rev} is not a commit of ${tree.root}`, 'give a branch, tag or commit of the kernel tree');
  const source: Source = { root: tree.root, commit };
  const results: Promise<FlagFacts[]>[] = [];
  // Run from the TypeScript sources (tests) there is no compiled worker: classify in this thread.
  const pool = fs.existsSync(WORKER) ? new Pool(source, os.availableParallelism()) : undefined;
  let facts: FlagFacts[];
  try {
    await listMatching(source, DECLARATION_PREFILTER, paths, (files) => results.push(pool ? pool.classify(files) : classifyHere(source, files)));
    facts = (await Promise.all(results)).flat();
  } finally {
    await pool?.close();
  }
  return finishScan(facts, await TreeLookup.open(source));
}

/**
 * What one file cannot say: look up, round by round, the names whose uses elsewhere decide (callers of global writers
 * and readers, headers of shared flags); then the architectures; then decide each flag.
 */
export async function finishScan(facts: FlagFacts[], lookup: TreeLookup): Promise<FlagCandidate[]> {
  const walkers = newWalkers();
  const expanders = { writes: new Expander(lookup, walkers.writes, lookup.reached('writes')), reads: new Expander(lookup, walkers.reads, lookup.reached('reads')) };
  const tree: TreeAnswers = {
    expand: (question, reaches) => expanders[question].expand(reaches),
    shared: (variable) => lookup.sharedOf(variable),
  };
  await lookup.lookUpShared(facts.filter((f) => f.shared && f.reject.length === 0).map((f) => f.variable));
  for (let round = 0; round < ROUNDS; round++) {
    const names = new Set(facts.flatMap((f) => [...pendingNames(f, tree)]));
    if (names.size === 0) break;
    await lookup.lookUp(names);
  }
  const arch = await lookup.archView(facts.filter((f) => f.reject.length === 0).map((f) => f.file));
  const out = facts.map((f) => decide(f, arch, tree));
  lookup.save({ writes: expanders.writes.memo, reads: expanders.reads.memo });
  return out;
}

async function classifyHere(source: Source, files: string[]): Promise<FlagFacts[]> {
  const out: FlagFacts[] = [];
  for (const [file, text] of await readBatch(source, files)) out.push(...scanFacts(file, text));
  return out;
}

/**
 * Worker threads, each given a new batch as soon as it has fewer than two in hand (batches differ in size, so taking
 * turns would leave one worker with the tail); each answer is matched to its batch by id.
 */
class Pool {
  private readonly workers: { worker: Worker; busy: number }[];
  private readonly queue: { id: number; files: string[] }[] = [];
  private readonly waiting = new Map<number, { resolve: (c: FlagFacts[]) => void; reject: (e: unknown) => void }>();
  private sent = 0;

  constructor(source: Source, size: number) {
    this.workers = Array.from({ length: Math.max(1, size) }, () => {
      const slot = { worker: new Worker(WORKER, { workerData: source }), busy: 0 };
      slot.worker.on('message', (m: { id: number; candidates?: FlagFacts[]; error?: string }) => {
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

  classify(files: string[]): Promise<FlagFacts[]> {
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
