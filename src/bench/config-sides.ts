// The labelled set of issue 45 (test/fixtures/config-builds/labels.json): real patches from the shared list archives
// that the kernel test robot answered with an error or warning of one configuration, and applied patches it never
// answered. Each is reviewed on the tree from the archive itself (its series' earlier patches first), as a maintainer
// would review it; a finding at the robot's file and line counts as caught. The bench case: the same reviews with the
// builds of the other side against the same reviews without them, warm.
import fs from 'node:fs';
import path from 'node:path';
import { indexInboxes, readIndexed, type IndexedMail, type InboxEpoch } from '../mail/inbox.js';
import { reviewSeries, type ReviewReport } from '../review/review.js';
import type { KernelTree } from '../tree/tree.js';
import { timed, type BenchResult } from './measure.js';

export const LABELS = path.resolve(import.meta.dirname, '../../test/fixtures/config-builds/labels.json');
export const INBOXES = path.resolve(import.meta.dirname, '../../../shared/inbox');

export interface RobotLabel {
  list: string;
  patch: string;
  /** The Message-Ids of the series' earlier patches the patch needs, in order. */
  series: string[];
  report: string;
  subject: string;
  config: string;
  compiler: string;
  arch: string;
  file: string;
  /** The robot's line, on its base. */
  line: number;
  /** The same line on the 6.12 tree with the patch applied. */
  line612: number;
  level: 'error' | 'warning';
  message: string;
  kind: 'config' | 'arch' | 'plain' | 'sparse';
  symbols: string[];
  evidence: string;
}

export interface ControlLabel {
  list: string;
  patch: string;
  subject: string;
  applied: string;
  files: string[];
}

export interface Labels {
  robot: RobotLabel[];
  controls: ControlLabel[];
}

export function readLabels(): Labels {
  return JSON.parse(fs.readFileSync(LABELS, 'utf8')) as Labels;
}

/**
 * The archives the labels come from, indexed once: the shared ones, and those KSERIES_ARCHIVES names (folders,
 * colon-separated: clones of other lists' archives, where this machine has them).
 */
export async function labelArchives(env: NodeJS.ProcessEnv = process.env): Promise<{ epochs: InboxEpoch[]; byId: Map<string, IndexedMail>; dirs: string[] }> {
  const dirs = [...fs.readdirSync(INBOXES).filter((d) => d.endsWith('.git')).map((d) => path.join(INBOXES, d)), ...(env.KSERIES_ARCHIVES ?? '').split(':').filter(Boolean)];
  const { epochs, mails } = await indexInboxes(dirs);
  return { epochs, byId: new Map(mails.filter((m) => m.messageId).map((m) => [m.messageId!, m])), dirs };
}

/** Whether the archives here hold a label's mails. */
export function held(archives: Awaited<ReturnType<typeof labelArchives>>, ids: string[]): boolean {
  return ids.every((id) => archives.byId.has(id));
}

/** A labelled patch reviewed on the tree's HEAD, after its series' earlier patches: the review and its last patch's findings. */
export async function reviewLabelled(tree: KernelTree, archives: Awaited<ReturnType<typeof labelArchives>>, ids: string[], opts: { sides: boolean; fresh?: boolean; env?: NodeJS.ProcessEnv }): Promise<{ report: ReviewReport; findings: string[] }> {
  const mails = ids.map((id) => {
    const m = archives.byId.get(id);
    if (!m) throw new Error(`${id}: not in the shared archives (${INBOXES})`);
    return m;
  });
  const messages = await readIndexed(archives.epochs, mails);
  const { report } = await reviewSeries({ tree, input: `<${ids[ids.length - 1]}>`, messages, base: 'HEAD', build: true, trust: true, strict: false, config: 'defconfig', distcc: false, noSides: !opts.sides, fresh: opts.fresh, env: opts.env });
  const last = report.patches[report.patches.length - 1];
  return { report, findings: last ? [...last.build.errors, ...last.build.newWarnings] : [] };
}

/** Whether a finding is the robot's: its file and line on this tree. */
export function atLabel(findings: string[], label: Pick<RobotLabel, 'file' | 'line612'>): string | undefined {
  return findings.find((f) => f.startsWith(`${label.file}:${label.line612}:`));
}

export async function benchConfigSides(tree: KernelTree): Promise<BenchResult[]> {
  const labels = readLabels();
  const archives = await labelArchives();
  // The set the rate is of: the robot's configuration-dependent findings whose archives are here (a patch once).
  const all = [...new Map(labels.robot.filter((l) => l.kind === 'config' || l.kind === 'arch').map((l) => [l.patch, [...l.series, l.patch]])).values()].filter((ids) => held(archives, ids));
  /** The seconds of each patch's review, in order. */
  const each = async (sides: boolean) => {
    const seconds: number[] = [];
    for (const ids of all) seconds.push((await timed(() => reviewLabelled(tree, archives, ids, { sides, fresh: true }))).seconds);
    return seconds;
  };
  // Warm both sides first: every build folder configured, ccache filled.
  await each(true);
  await each(false);
  const ours = await each(true);
  const without = await each(false);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  // What the other side adds to one patch's review: the budget is a minute, warm, for a typical driver patch.
  const extra = ours.map((o, i) => o - without[i]!).sort((a, b) => a - b);
  const median = extra[Math.floor(extra.length / 2)] ?? 0;
  return [
    {
      name: `review of the labelled set's patches with a configuration-dependent finding held here (${all.length}) with the builds of the other side and of another machine, warm`,
      ours: sum(ours),
      peerName: 'the same reviews without them (--no-sides)',
      peer: sum(without),
      target: '≤ 1.5×',
      ok: sum(ours) <= 1.5 * sum(without),
    },
    {
      name: `the other side's extra time in one patch's review, warm: the median of the ${all.length} (the most: ${(extra[extra.length - 1] ?? 0).toFixed(2)} s)`,
      ours: median,
      peerName: "the issue's budget for a typical driver patch",
      peer: 60,
      target: '≤ 1×',
      ok: median <= 60,
    },
  ];
}
