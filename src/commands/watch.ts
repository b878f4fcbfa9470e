// `kseries watch --inbox ARCHIVE`: the review bot (review/watch.ts) as a command: a cycle now, and with no --once one
// every --interval seconds; a line per series as it is done and a summary per cycle.
import path from 'node:path';
// The built-in recipes register their object-code proofs with check.
import '../recipes/registry.js';
import { UsageError } from '../errors.js';
import { reviewSeries } from '../review/review.js';
import { watchCycle, type Watched } from '../review/watch.js';
import { openTree } from '../tree/tree.js';
import { printJson, type GlobalOptions, type Io } from './io.js';
import { writeReview } from './review.js';

export interface WatchArgs {
  inbox: string[];
  since?: string;
  once: boolean;
  interval: number;
  limit?: number;
  state?: string;
  out?: string;
  build: boolean;
  trust: boolean;
  config: string;
  compilers?: string[];
  arches?: string[];
  strict: boolean;
  replyAll: boolean;
  from?: string;
}

/** Exit 0 when every cycle ran (findings are the reports', not the bot's). */
export async function watch(io: Io, g: GlobalOptions, a: WatchArgs): Promise<number> {
  if (a.inbox.length === 0) throw new UsageError('watch needs --inbox ARCHIVE', 'kseries watch --inbox linux-wpan.git --once');
  const since = a.since === undefined ? undefined : new Date(a.since);
  if (since && Number.isNaN(since.getTime())) throw new UsageError(`--since ${a.since}: not a date`, 'e.g. --since 2026-01-01');
  const tree = await openTree({ cwd: io.cwd, tree: g.tree, env: io.env });
  const out = path.resolve(io.cwd, a.out ?? 'out');
  const stateDir = a.state ? path.resolve(io.cwd, a.state) : path.join(out, 'review', 'watch');
  // distcc where the machine names hosts: the engine a larger deployment spreads its builds on.
  const distcc = a.build && !!io.env.DISTCC_HOSTS;
  const all: Watched[] = [];
  for (;;) {
    const cycle = await watchCycle({
      inboxes: a.inbox.map((d) => path.resolve(io.cwd, d)),
      stateDir,
      ...(since ? { since } : {}),
      ...(a.limit !== undefined ? { limit: a.limit } : {}),
      log: g.json ? undefined : (l) => io.err(l),
      onSeries: (w) => g.json || io.err(`${w.verdict.padEnd(14)} ${w.subject} (v${w.version}, ${w.seconds} s): ${w.detail}`),
      review: async (messages, root) => {
        const { report, intake } = await reviewSeries({ tree, input: `<${root}>`, messages, build: a.build, trust: a.trust, strict: a.strict, config: a.config, distcc, compilers: a.compilers, arches: a.arches, env: io.env });
        const { dir } = await writeReview(tree, report, intake, { out, from: a.from, replyAll: a.replyAll });
        return { subject: report.series.subject, version: report.series.version, verdict: report.verdict, detail: path.relative(io.cwd, dir) || '.' };
      },
    });
    all.push(...cycle.series);
    const count = (v: Watched['verdict']) => cycle.series.filter((s) => s.verdict === v).length;
    const summary = `read ${cycle.read} new message${cycle.read === 1 ? '' : 's'}; reviewed ${cycle.series.length} series, ${count('clean')} clean, ${count('findings')} with findings, ${count('not applicable')} not applicable`;
    if (g.json) printJson(io, { read: cycle.read, series: cycle.series, build: a.build ? (distcc ? 'distcc' : 'local') : 'none', stateDir });
    else io.out(summary);
    if (a.once) return 0;
    await new Promise((r) => setTimeout(r, a.interval * 1000));
  }
}
