// `kseries scan static-keys`: what each file says on its own comes from the facts cache, or for the files it does not
// know (by blob id) git grep picks those with declarations and worker threads (one per core) read and classify them
// batch by batch while git grep still searches; then the tree answers what one file cannot (the callers
// of global functions, round by round; the headers of shared flags; the architectures), and each flag is decided.
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ToolFailedError, UsageError } from '../../../errors.js';
import { Expander } from '../reach.js';
import { decide, DECLARATION_PREFILTER, newWalkers, pendingNames, scanFacts, type FlagCandidate, type FlagFacts, type TreeAnswers } from '../scan.js';
import { commitOf, type KernelTree } from '../../../tree/tree.js';
import { treeContent } from './content.js';
import { FactsCache } from './facts-cache.js';
import { listMatching, readBatch, scanScope, type Source } from './files.js';
import { TreeLookup } from './tree-lookup.js';

const WORKER = fileURLToPath(new URL('./static-keys-worker.js', import.meta.url));

/** A worker's heap limits, in MB. */
const WORKER_HEAP = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 };

/** Rounds of tree lookups: each follows global callers one level further up. */
const ROUNDS = 4;

/** Files above which the changed ones are found by searching the whole scope rather than by naming each. */
const NAMED_AT_MOST = 2000;

/**
 * Scan the working tree's tracked files, or the tree at `rev`. What each file says on its own comes from the facts
 * cache where its blob is unchanged; the other files are searched and classified.
 */
export async function scanStaticKeys(tree: KernelTree, paths: string[], rev?: string, env: NodeJS.ProcessEnv = process.env): Promise<FlagCandidate[]> {
  const commit = rev === undefined ? undefined : await commitOf(tree, rev);
  if (rev !== undefined && !commit) throw new UsageError(`--rev ${rev} is not a commit of ${tree.root}`, 'give a branch, tag or commit of the kernel tree');
  const source: Source = { root: tree.root, commit };
  const scope = await scanScope(source, paths);
  const content = await treeContent(source, scope.specs);
  const cache = FactsCache.open(env);
  const facts: FlagFacts[] = [];
  const todo = new Set<string>();
  for (const [file, blob] of content.blobs) {
    if (!scope.has(file)) continue;
    const known = content.dirty.has(file) ? undefined : cache.get(file, blob);
    if (known) facts.push(...known);
    else todo.add(file);
  }
  for (const file of content.dirty) if (scope.has(file)) todo.add(file);
  const found = await classifyFiles(source, todo.size > NAMED_AT_MOST ? scope.specs : [...todo].map((f) => `:(literal)${f}`), todo);
  for (const file of todo) {
    const blob = content.blobs.get(file);
    if (blob && !content.dirty.has(file)) cache.set(file, blob, found.get(file) ?? []);
  }
  cache.save();
  facts.push(...[...found.values()].flat());
  // Path order, as git grep lists files (each file's facts stay in their order).
  facts.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return finishScan(facts, await TreeLookup.open(source, content, env));
}

/**
 * The facts of the files of `specs` that the prefilter picks and that are in `wanted`, by file: git grep picks them,
 * worker threads (one per core) read and classify them batch by batch while git grep still searches.
 */
async function classifyFiles(source: Source, specs: string[], wanted: Set<string>): Promise<Map<string, FlagFacts[]>> {
  const found = new Map<string, FlagFacts[]>();
  if (wanted.size === 0) return found;
  const results: Promise<FlagFacts[]>[] = [];
  // Run from the TypeScript sources (tests) there is no compiled worker: classify in this thread.
  const pool = fs.existsSync(WORKER) ? new Pool(source, os.availableParallelism()) : undefined;
  try {
    await listMatching(source, DECLARATION_PREFILTER, specs, (batch) => {
      const files = batch.filter((f) => wanted.has(f));
      for (const f of files) found.set(f, []);
      if (files.length) results.push(pool ? pool.classify(files) : classifyHere(source, files));
    });
    for (const f of (await Promise.all(results)).flat()) found.get(f.file)!.push(f);
  } finally {
    await pool?.close();
  }
  return found;
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
      // Small heaps: a batch is a few megabytes, and a worker left to grow its heap lazily takes a hundred.
      const slot = { worker: new Worker(WORKER, { workerData: source, resourceLimits: WORKER_HEAP }), busy: 0 };
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
