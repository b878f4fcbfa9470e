// A worker thread of `kseries scan static-keys`: reads a batch of files and reads off their flags' facts.
import { parentPort, workerData } from 'node:worker_threads';
import { scanFacts } from '../scan.js';
import { readBatch, type Source } from './files.js';

const source = workerData as Source;
parentPort!.on('message', async (m: { id: number; files: string[] }) => {
  try {
    const candidates = [];
    for (const [file, text] of await readBatch(source, m.files)) candidates.push(...scanFacts(file, text));
    parentPort!.postMessage({ id: m.id, candidates });
  } catch (e) {
    parentPort!.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
});
