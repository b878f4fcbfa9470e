// `kseries review`: intake → apply → check → reply. A received series is identified in its mailbox, applied with
// git am on its base in kseries' worktree, and its applied commits get the same per-patch checks as `kseries check`.
import os from 'node:os';
import { prerequisiteTip, type Prerequisites } from './prerequisites.js';
import type { BuildOptions } from '../build/builder.js';
import { checkRange, type CheckOptions } from '../check/check.js';
import { patchHasFindings, seriesResultsOf, type SeriesResults } from '../check/plugins.js';
import type { BuildReport, OtherBuild, PatchReport } from '../check/report.js';
import { isFinding, type Problem } from '../check/rules.js';
import { MailboxError, UsageError } from '../errors.js';
import { readMailbox, type Message } from '../mail/mailbox.js';
import { checkpatchMail } from '../check/checks/checkpatch.js';
import { commitOf, hasHistory, type KernelTree } from '../tree/tree.js';
import { applySeries, assertSafePaths, type ApplyOutcome } from './apply.js';
import { identifyOne, identifySeries, type Intake } from './intake.js';
import { hasDiff } from './threads.js';
import { assertSandbox, SANDBOX_BWRAP } from '../tools/sandbox.js';
import { mapLimit } from '../tools/run.js';

export interface ReviewOptions extends BuildOptions {
  tree: KernelTree;
  /** An mbox, Maildir, folder of .patch files, or '-'; with `messages`, what they were read from (for messages). */
  input: string;
  stdin?: () => string;
  /** The messages already read (a thread of a list archive, --inbox): `input` is not read then. */
  messages?: Message[];
  /** Review only the first patch of the input, alone (b4's per-patch check). */
  single?: boolean;
  base?: string;
  /** Which version when the mailbox holds several (default the newest). */
  version?: number;
  /** Of a version sent more than once, which copy (1 the oldest; default the newest). */
  copy?: number;
  build: boolean;
  /** The user vouches for the code: build without the sandbox. */
  trust: boolean;
  strict: boolean;
  onStep?: CheckOptions['onStep'];
  log?: (line: string) => void;
}

export interface ReviewPatch extends Omit<PatchReport, 'commit'> {
  applied: boolean;
  commit: string | null;
  /** Trailers collected from replies and added to the applied commit. */
  trailers: string[];
  /** For a patch that did not apply: each hunk that failed and why. */
  failures: ApplyOutcome['failures'];
}

/** The review; each series check that ran (KUnit, a static-key series' boot) adds its field, as in check's report. */
export interface ReviewReport extends SeriesResults {
  series: {
    subject: string;
    version: number;
    /** Patches reviewed (the mailbox's parts of this version). */
    patches: number;
    /** How many its numbering announces (more when parts are missing). */
    announced: number;
    /** Every series the mailbox holds ("v2 (3 patches and a cover letter)"), the reviewed one first. */
    revisions: string[];
    base: string;
    /** Where the base came from. */
    baseFrom: 'base-commit' | '--base' | 'HEAD';
    rfc: boolean;
    resend: boolean;
    prefixes: string[];
    cover: boolean;
    replies: number;
    branch: string;
  };
  config: string;
  compiler: string;
  /** The builds besides x86-64 gcc (clang, other machines, the other side of a patch's CONFIG_ symbols), as check reports them. */
  otherBuilds?: OtherBuild[];
  /** How builds ran: "bwrap (read-only source, no network)", "unsandboxed (--trust)", or "none (--no-build)". */
  sandbox: string;
  patches: ReviewPatch[];
  problems: Problem[];
  verdict: 'clean' | 'findings';
}

/** The report, and the series as received (the replies answer its mails). */
export interface Reviewed {
  report: ReviewReport;
  intake: Intake;
}

/** `git request-pull`'s "are available in the Git repository at:" and the URL and ref below it. */
const PULL = /are available in the git repository at:?[ \t]*\n(?:[ \t]*\n)?[ \t]+(\S+)(?:[ \t]+(\S+))?/i;

export async function reviewSeries(opts: ReviewOptions): Promise<Reviewed> {
  const { tree } = opts;
  const sandbox = opts.build ? await assertSandbox(opts.trust, opts.env) : 'none (--no-build)';
  const messages = opts.messages ?? (await readMailbox(opts.input, opts.stdin));
  // A plain diff (quilt, diff -Naur, a description then a diff) is no mail: git am has no author or subject for it.
  if (messages.some((m) => !m.from.address && hasDiff(m.raw))) {
    throw new MailboxError(`${opts.input}: a diff without mail headers (no From:), which git am cannot apply`, 'commit it and write it with git format-patch, or apply it with git apply');
  }
  const intake = opts.single ? identifyOne(messages) : identifySeries(messages, { version: opts.version, copy: opts.copy });
  if (intake.patches.length === 0) {
    const pull = messages.map((m) => PULL.exec(m.body)).find((x) => x !== null);
    if (pull) throw new MailboxError(`${opts.input}: a pull request (git request-pull) for ${[pull[1], pull[2]].filter(Boolean).join(' ')}, not patches`, 'fetch it and check its commits: kseries check --range <base>..FETCH_HEAD');
    const inReplies = messages.filter((m) => hasDiff(m.body)).length;
    throw new MailboxError(`${opts.input}: holds no patch (${inReplies ? `its only diff${inReplies > 1 ? 's are' : ' is'} in a reply, Re:` : 'no message with a diff'})`, 'give the mbox of a series, e.g. b4 mbox <msgid> or a lore t.mbox.gz, gunzipped');
  }
  // Paths that leave the tree are refused before anything happens (and again against the worktree, for symlinks).
  for (const p of intake.patches) assertSafePaths(tree.root, p);
  const problems: Problem[] = [...intake.problems];
  const { base, baseFrom } = await chooseBase(tree, intake, opts.base, problems);
  const branch = `kseries/review/${slugOf(intake.subject)}/v${intake.version}`;
  opts.log?.(`applying ${intake.patches.length} of ${intake.total} patches on ${base.slice(0, 12)} (${baseFrom})`);
  const { outcomes, tip } = await applySeries(tree, base, intake.patches, branch);
  const applied = outcomes.filter((o) => o.applied);

  // A patch checked alone (b4, before sending) gets its recipients later: only a received series' are checked.
  const mails = opts.single ? undefined : new Map(intake.patches.filter((p) => applied.some((a) => a.index === p.index)).map((p) => [p.index, p.message.raw]));
  const cover = intake.cover ? { subject: intake.cover.subject, body: intake.cover.body } : undefined;
  const checked = await checkRange({ ...opts, tree, base, tip, cover, mailed: true, mailedParts: intake.patches.length, mails, full: false, series: undefined, sandbox: sandbox === SANDBOX_BWRAP });
  problems.push(...checked.problems);

  const patches: ReviewPatch[] = [];
  const history = await hasHistory(tree);
  // checkpatch of the patches that did not apply, one per core: a bot meets series of a dozen such.
  const unapplied = await mapLimit(outcomes, os.availableParallelism(), async (o) => {
    const p = intake.patches.find((x) => x.index === o.index);
    return o.applied || !p ? undefined : checkpatchMail(tree.root, p.message.raw, { strict: opts.strict, history });
  });
  for (const [k, o] of outcomes.entries()) {
    const p = intake.patches.find((x) => x.index === o.index);
    const c = o.applied ? checked.patches[applied.indexOf(o)] : undefined;
    if (c) {
      const { commit, ...rest } = c;
      patches.push({ ...rest, problems: [...damageOf(o), ...rest.problems], index: o.index, applied: true, commit, trailers: p?.trailers ?? [], failures: [] });
      continue;
    }
    const checkpatch = unapplied[k] ?? { errors: 0, warnings: 0, checks: 0, findings: [] };
    patches.push({
      index: o.index,
      subject: p?.subject.summary ?? '(missing)',
      applied: false,
      commit: null,
      build: notBuilt(o.reason ?? 'not applied'),
      proofs: [],
      checkpatch,
      tree: [],
      problems: [o.already ? { kind: 'already-applied', severity: 'warning', message: o.reason! } : { kind: 'not-applied', severity: 'error', message: o.reason ?? 'not applied' }, ...damageOf(o)],
      trailers: p?.trailers ?? [],
      failures: o.failures,
    });
  }
  const series = Object.fromEntries(seriesResultsOf(checked).map(({ check, result }) => [check.field, result])) as SeriesResults;
  const seriesFailed = seriesResultsOf(series).some((x) => !x.result.ok);
  const report: ReviewReport = {
    series: { subject: intake.subject, version: intake.version, patches: intake.patches.length, announced: intake.total, revisions: intake.revisions, base, baseFrom, rfc: intake.rfc, resend: intake.resend, prefixes: intake.prefixes, cover: !!intake.cover, replies: intake.replies, branch },
    config: opts.config,
    compiler: opts.build ? checked.compiler : 'none',
    ...(checked.otherBuilds?.length ? { otherBuilds: checked.otherBuilds } : {}),
    sandbox,
    patches,
    problems,
    ...series,
    verdict: patches.some(reviewFindings) || problems.some(isFinding) || seriesFailed ? 'findings' : 'clean',
  };
  return { report, intake };
}

/** A patch that did not apply, or has anything check would report. */
export function reviewFindings(p: ReviewPatch): boolean {
  return !p.applied || patchHasFindings(p);
}

async function chooseBase(tree: KernelTree, intake: Intake, given: string | undefined, problems: Problem[]): Promise<{ base: string; baseFrom: ReviewReport['series']['baseFrom'] }> {
  const named = intake.baseCommit ? await commitOf(tree, intake.baseCommit) : undefined;
  if (named && intake.prerequisites) return { base: await onPrerequisites(tree, named, intake.prerequisites, problems), baseFrom: 'base-commit' };
  if (named) return { base: named, baseFrom: 'base-commit' };
  if (intake.baseCommit) problems.push({ kind: 'base-unknown', severity: 'warning', message: `the series names base-commit ${intake.baseCommit}, which this tree does not have` });
  if (given) {
    const base = await commitOf(tree, given);
    if (!base) throw new UsageError(`--base ${given} is not a commit of this tree`, 'name a commit, tag or branch of the tree, e.g. --base v6.12.117');
    return { base, baseFrom: '--base' };
  }
  const head = (await commitOf(tree, 'HEAD'))!;
  if (!intake.baseCommit) problems.push({ kind: 'base-missing', severity: 'warning', message: `the series names no base-commit (git format-patch --base); applied on the tree's HEAD ${head.slice(0, 12)}` });
  return { base: head, baseFrom: 'HEAD' };
}

/** The base-commit with the prerequisite patches on it, where a branch holds them; else the base-commit, said. */
async function onPrerequisites(tree: KernelTree, base: string, pre: Prerequisites, problems: Problem[]): Promise<string> {
  const n = pre.patchIds.length;
  const patches = `${n} patch${n === 1 ? '' : 'es'} of another series`;
  const sent = pre.messageIds.length ? ` (sent as ${pre.messageIds.join(', ')})` : '';
  const tip = await prerequisiteTip(tree, base, pre.patchIds);
  if (tip) {
    problems.push({ kind: 'prerequisites', severity: 'note', message: `the series stands on ${patches}${sent}, named by prerequisite-patch-id: applied on ${tip.slice(0, 12)}, a branch's commit with exactly those on base-commit` });
    return tip;
  }
  problems.push({ kind: 'prerequisites-missing', severity: 'warning', message: `the series stands on ${patches}${sent}, named by prerequisite-patch-id, which no branch of this tree holds on base-commit ${base.slice(0, 12)}; applied without them (b4 am fetches them by prerequisite-message-id)` });
  return base;
}

/** The warning of a patch a mail client damaged on the way (blank context lines), applied or not. */
function damageOf(o: ApplyOutcome): Problem[] {
  return o.damage ? [{ kind: 'whitespace-damage', severity: 'warning', message: o.damage }] : [];
}

function notBuilt(reason: string): BuildReport {
  return { status: 'skipped', objects: [], errors: [], newWarnings: [], notBuilt: [], note: reason };
}

/** A branch-safe name for a series from its subject: `mm: Add foo bar` → `mm-add-foo-bar`. */
export function slugOf(subject: string): string {
  return subject.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48).replace(/-+$/, '') || 'series';
}
