// Bench case (issue 44): indexing a whole list archive epoch (linux-watchdog's, 16,365 messages) beside its floor,
// reading each message once: `git log --format=%H` plus `git cat-file --batch` of every commit's blob m.
import path from 'node:path';
import { gitBytes } from '../tools/git.js';
import { inboxEpochs, indexEpoch } from '../mail/inbox.js';
import type { KernelTree } from '../tree/tree.js';
import { timed, type BenchResult } from './measure.js';

/** The shared archive beside the checkout (../shared/inbox), or KSERIES_BENCH_INBOX. */
const ARCHIVE = process.env.KSERIES_BENCH_INBOX ?? path.resolve(import.meta.dirname, '../../../shared/inbox/linux-watchdog.git');

export async function benchInboxIndex(_tree: KernelTree): Promise<BenchResult> {
  const [epoch] = inboxEpochs(ARCHIVE);
  const before = process.memoryUsage().rss;
  const ours = await timed(() => indexEpoch(epoch!));
  // Read before the peer runs (it holds the whole epoch in memory at once): what the index itself needed.
  const rss = Math.round(Math.max(before, process.memoryUsage().rss) / 1e6);
  const peer = await timed(async () => {
    const log = await gitBytes(epoch!.gitDir, ['log', '--format=%H:m']);
    await gitBytes(epoch!.gitDir, ['cat-file', '--batch'], log);
  });
  return {
    name: `index ${epoch!.name} (${ours.value.mails.length} messages; rss after ${rss} MB)`,
    ours: ours.seconds,
    peerName: 'git log + git cat-file --batch',
    peer: peer.seconds,
    target: '≤ 1.5×',
    ok: ours.seconds <= 1.5 * peer.seconds,
  };
}
