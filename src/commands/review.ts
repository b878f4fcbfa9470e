// `kseries review <mbox|maildir|dir|->`: apply a received series, check every patch, write the report and the
// reply mails to out/review/<series>/v<N>/. `--b4-check`: one message on stdin, b4's review-CI JSON out.
import fs from 'node:fs';
import path from 'node:path';
// The built-in recipes register their object-code proofs with check.
import '../recipes/registry.js';
import type { Address, Message } from '../mail/mailbox.js';
import { indexInboxes, readIndexed, threadOf } from '../mail/inbox.js';
import { UsageError } from '../errors.js';
import { b4Checks } from '../review/b4.js';
import { formatReview } from '../review/format.js';
import { writeReplies } from '../review/replies.js';
import { reviewSeries, slugOf, type ReviewReport } from '../review/review.js';
import type { Intake } from '../review/intake.js';
import { authorIdent, splitIdent } from '../tree/identity.js';
import { openTree, type KernelTree } from '../tree/tree.js';
import { lineView } from './check-view.js';
import { printJson, progressReporter, type GlobalOptions, type Io } from './io.js';

export interface ReviewArgs {
  /** The mailbox; the option table requires it unless --b4-check. */
  input?: string;
  base?: string;
  /** Which version of the series, when the mailbox holds several. */
  version?: number;
  /** Of a version sent more than once, which copy (1 the oldest; default the newest). */
  copy?: number;
  out?: string;
  config: string;
  distcc: boolean;
  /** gcc, and clang where named (--compilers). */
  compilers?: string[];
  /** Machines files outside arch/ are built for too (--arches). */
  arches?: string[];
  /** Build the other side of the symbols the patches' lines depend on, and COMPILE_TEST drivers on another machine (--sides, default). */
  sides?: boolean;
  build: boolean;
  trust: boolean;
  strict: boolean;
  replyAll: boolean;
  from?: string;
  b4Check: boolean;
  /** List archives (public-inbox v2): `input` is then the Message-Id of a message of the series' thread. */
  inbox?: string[];
}

export const REVIEW_REPORT = 'report.json';

/** Exit 0 for a clean series, 1 with findings (a patch that does not apply is one). */
export async function review(io: Io, g: GlobalOptions, a: ReviewArgs): Promise<number> {
  const tree = await openTree({ cwd: io.cwd, tree: g.tree, env: io.env });
  const quiet = g.json || a.b4Check;
  const view = quiet ? undefined : lineView(io);
  const messages = a.inbox?.length ? await threadMessages(io, a.inbox.map((d) => path.resolve(io.cwd, d)), a.input!) : undefined;
  const { report, intake } = await reviewSeries({
    tree,
    // A path is the user's, from where kseries was started (git mailsplit runs in a folder of its own).
    input: messages ? `<${a.input!.replace(/^<|>$/g, '')}>` : a.b4Check || a.input === '-' ? '-' : path.resolve(io.cwd, a.input!),
    ...(messages ? { messages } : {}),
    stdin: io.stdin,
    single: a.b4Check,
    base: a.base,
    version: a.version,
    copy: a.copy,
    build: a.build && !a.b4Check,
    trust: a.trust,
    strict: a.strict,
    config: a.config,
    distcc: a.distcc,
    compilers: a.compilers,
    arches: a.arches,
    noSides: a.sides === false,
    env: io.env,
    onStep: view?.onStep,
    log: quiet ? undefined : (l) => io.err(l),
    progress: quiet ? undefined : view?.progress ?? progressReporter(io),
  }).finally(() => view?.finish());
  if (a.b4Check) {
    printJson(io, b4Checks(report));
    return 0;
  }
  const { dir, replies } = await writeReview(tree, report, intake, { out: path.resolve(io.cwd, a.out ?? 'out'), from: a.from, replyAll: a.replyAll });
  if (g.json) printJson(io, report);
  else io.out(`${formatReview(report)}\n${replies.length} repl${replies.length === 1 ? 'y' : 'ies'}, ${REVIEW_REPORT} and b4.json in ${path.relative(io.cwd, dir) || '.'}/`);
  return report.verdict === 'clean' ? 0 : 1;
}

/**
 * A review's files in `<out>/review/<series>/v<N>/`: report.json, b4's review-CI JSON (b4.json) and the draft
 * replies; what was there before for that version goes.
 */
export async function writeReview(tree: KernelTree, report: ReviewReport, intake: Intake, o: { out: string; from?: string; replyAll: boolean }): Promise<{ dir: string; replies: { name: string }[] }> {
  const dir = path.join(o.out, 'review', slugOf(report.series.subject), `v${report.series.version}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const replies = writeReplies(report, intake, { from: await reviewer(tree, o.from), replyAll: o.replyAll, date: new Date() });
  for (const r of replies) fs.writeFileSync(path.join(dir, r.name), r.text);
  fs.writeFileSync(path.join(dir, REVIEW_REPORT), `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'b4.json'), `${JSON.stringify(b4Checks(report), null, 2)}\n`);
  return { dir, replies };
}

/** The reviewer the replies come from: --from, else the tree's git identity, else kseries itself. */
async function reviewer(tree: KernelTree, from: string | undefined): Promise<Address> {
  const ident = await authorIdent(tree, from).catch((e: unknown) => {
    if (from !== undefined) throw e;
    return 'kseries review <kseries@localhost>';
  });
  const { name, email } = splitIdent(ident);
  return { name, address: email };
}

/** The messages of the thread `id` is in, from the archives' index; what is no mail is named on stderr. */
async function threadMessages(io: Io, dirs: string[], id: string): Promise<Message[]> {
  const { epochs, mails, skipped } = await indexInboxes(dirs);
  for (const x of skipped.slice(0, 3)) io.err(`${x.epoch}: commit ${x.commit.slice(0, 12)} skipped: ${x.why}`);
  if (skipped.length > 3) io.err(`... and ${skipped.length - 3} more commits that hold no mail`);
  const thread = threadOf(mails, id);
  if (thread.length === 0) throw new UsageError(`--inbox: no message <${id.replace(/^<|>$/g, '')}> in ${dirs.join(', ')} (${mails.length} messages)`, "give the Message-Id of a patch or cover letter of the series, as lore's address of it shows");
  return readIndexed(epochs, thread);
}
