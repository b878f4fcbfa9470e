// Bench cases (issue 44): a watch cycle over linux-watchdog's epoch (16,365 messages, a scratch mirror) with no new
// mail (target ≤ 2 s) and with 100 new messages (indexing them, target ≤ 5 s; the reviews are each series' own
// cost and are left out: --since lies after every thread). The issue names the seconds, not a program: the peer
// printed is the target itself.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { watchCycle } from '../review/watch.js';
import { gitRaw } from '../tools/git.js';
import type { KernelTree } from '../tree/tree.js';
import { timed, type BenchResult } from './measure.js';

const ARCHIVE = process.env.KSERIES_BENCH_INBOX ?? path.resolve(import.meta.dirname, '../../../shared/inbox/linux-watchdog.git');

export async function benchWatchCycle(_tree: KernelTree): Promise<BenchResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-bench-watch-'));
  try {
    const archive = path.join(dir, 'list.git');
    await gitRaw(dir, ['clone', '-q', '--mirror', ARCHIVE, archive]);
    await gitRaw(archive, ['remote', 'remove', 'origin']);
    const tip = (await gitRaw(archive, ['rev-parse', 'HEAD'])).trim();
    await gitRaw(archive, ['update-ref', 'refs/heads/master', `${tip}~100`]);
    const opts = { inboxes: [archive], stateDir: path.join(dir, 'state'), since: new Date('2100-01-01'), review: async () => { throw new Error('no review expected'); } };
    const known = (await watchCycle(opts)).read;
    const idle = await timed(() => watchCycle(opts));
    await gitRaw(archive, ['update-ref', 'refs/heads/master', tip]);
    const hundred = await timed(() => watchCycle(opts));
    return [
      { name: `watch cycle, no new mail (${path.basename(ARCHIVE)}, ${known} messages known)`, ours: idle.seconds, peerName: 'the target', peer: 2, target: '≤ 2 s', ok: idle.seconds <= 2 },
      { name: `watch cycle, ${hundred.value.read} new messages indexed (reviews left out)`, ours: hundred.seconds, peerName: 'the target', peer: 5, target: '≤ 5 s', ok: hundred.seconds <= 5 },
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
