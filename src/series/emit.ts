// `kseries emit`: out/<series>/v<N>/ with files that git am and git send-email accept.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import '../check/checks/index.js';
import { patchChecks, seriesResultsOf } from '../check/plugins.js';
import type { CheckReport } from '../check/report.js';
import { CheckFailedError, OutputError, UsageError } from '../errors.js';
import { wrapParagraphs } from '../templates/render.js';
import { gitRaw, readAtCommit } from '../tools/git.js';
import { mapLimit } from '../tools/run.js';
import { parseSections, THE_REST } from '../subsystems/maintainers.js';
import { withoutTag } from '../subsystems/prefix.js';
import { addressedTo, toEntries, withoutKeywordOnly } from '../subsystems/recipients.js';
import { epochList, indexInboxes } from '../mail/inbox.js';
import { alreadyPosted, diffPart, POSTED, summaryOf, type PostedMatch } from '../mail/posted.js';
import { whoApplies, type EntryAppliers } from '../mail/appliers.js';
import { mailFiles } from '../check/tree-rules.js';
import { runGetMaintainer, sectionsPerFile, unique, type Recipients } from '../tools/kernel-scripts.js';
import { hasHistory, type KernelTree } from '../tree/tree.js';
import { authorIdent, splitIdent } from '../tree/identity.js';
import { getHeader, joinMail, setHeaders, splitMail } from '../mail/headers.js';
import { branchName, loadSeries, saveRecord, treeBase, type SeriesRecord } from './store.js';
import { localBase } from './base.js';
import { sentAt } from './send.js';

export interface EmitOptions {
  tree: KernelTree;
  name?: string;
  version?: number;
  /** The out/ folder; the series goes to <out>/<series>/v<N>/. */
  out: string;
  rfc?: boolean;
  /** Every patch to the recipients of the whole series (default: as the recipe says). */
  ccAll?: boolean;
  subjectPrefix?: string;
  /** What changed since the previous version; required from v2 on unless given before. */
  notes?: string[];
  /** Notes for a version from v2 on that has none of its own (kseries start's reruns). */
  fallbackNotes?: string[];
  /** Emit even when the series' last check (out/<series>/v<N>/report.json) failed. */
  force?: boolean;
  /** List archives (public-inbox v2) to look for patches of this series posted already, and who applies today. */
  inboxes?: string[];
  /** What "today" is for a maintainer's silence (tests); default the archives' newest message (a mirror is as old as its last fetch). */
  now?: Date;
  /** With inboxes: the person who applies each entry's patches today (applied replies, pull requests) To: on every message. */
  toApplier?: boolean;
  /** Extra recipients for every message. */
  to?: string[];
  cc?: string[];
  /** Whether get_maintainer may look at git history (default: only when the tree has some). */
  useGitHistory?: boolean;
}

export interface EmittedMessage {
  file: string;
  subject: string;
  messageId: string;
  inReplyTo: string | undefined;
  to: string[];
  cc: string[];
}

export interface EmitResult {
  dir: string;
  series: string;
  version: number;
  mbox: string;
  messages: EmittedMessage[];
  /** Why the base-commit cannot be resolved by others (see series/base.ts); absent when a remote has it. */
  localBase?: string;
  /** The series this one applies on top of ("kprobe-cold v1"), when send has not sent it: the cover cannot name it. */
  prerequisiteUnsent?: string;
  /** Patches of this series the list archives (--inbox) hold already: send refuses them without --force. */
  alreadyPosted?: PostedMatch[];
  /** The series' MAINTAINERS entries as the archives show them (--inbox): silent maintainers, who applies now. */
  appliers?: EntryAppliers[];
}


export async function emitSeries(opts: EmitOptions): Promise<EmitResult> {
  const { tree } = opts;
  const rec = await loadSeries(tree, opts.name, opts.version);
  const notes = opts.notes?.length ? opts.notes : (rec.notes ?? (rec.version > 1 ? opts.fallbackNotes : undefined));
  if (rec.version > 1 && !notes?.length) {
    throw new UsageError(`${branchName(rec.name, rec.version)} is a new version: say what changed`, `add --notes "what changed since v${rec.version - 1}" (repeat for each change)`);
  }
  if (notes && notes !== rec.notes) saveRecord(tree, { ...rec, notes });
  const previous = rec.version > 1 ? await loadSeries(tree, rec.name, rec.version - 1).catch(() => undefined) : undefined;
  const changelog = await changelogOf(tree, { ...rec, notes });
  const { idOf, root: threadRoot, count } = await mailIds(tree, rec);
  const prerequisite = rec.after ? await prerequisiteOf(tree, rec.after, count, opts.out) : undefined;

  const dir = path.join(opts.out, rec.name, `v${rec.version}`);
  const { statement: checked, report } = checkedStatement(dir, rec.tip, opts.force === true);
  const blurbTail = [checked, changelog].filter(Boolean).join('\n\n');
  // What the series stands on comes first: a reviewer needs it before anything else applies.
  const joined = (...parts: (string | undefined)[]) => parts.filter(Boolean).join('\n\n');
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-emit-'));
  try {
    // With --base the tree's commit, git lists the patches of a series this one stands on as prerequisite-patch-id.
    const args = ['format-patch', '-q', '-o', staging, `--base=${treeBase(rec)}`, '--no-thread', '--stat=72'];
    args.push(`--subject-prefix=${opts.subjectPrefix ?? (rec.subjectTag ? `PATCH ${rec.subjectTag}` : 'PATCH')}`);
    if (opts.rfc ?? rec.rfc) args.push('--rfc');
    if (rec.version > 1) args.push(`-v${rec.version}`);
    if (count > 1) args.push('--cover-letter');
    if (previous) args.push(`--range-diff=${previous.base}..${previous.tip}`);
    args.push(`${rec.base}..${rec.tip}`);
    await gitRaw(tree.root, args);
    const files = fs.readdirSync(staging).filter((f) => f.endsWith('.patch')).sort();

    const useGit = opts.useGitHistory ?? (await hasHistory(tree));
    const entries = parseSections((await readAtCommit(tree.root, rec.base, 'MAINTAINERS')) ?? '');
    const ccAll = opts.ccAll ?? rec.ccAll ?? false;
    const recipients = await mapLimit(files, os.cpus().length, async (f) => {
      if (f.includes('0000-cover-letter')) return undefined;
      const file = path.join(staging, f);
      const changed = mailFiles(fs.readFileSync(file, 'utf8'));
      // Not the people of an entry that names a patch's file only by an N: keyword; To: those who apply it.
      const [named, sections] = await Promise.all([runGetMaintainer(tree.root, file, { useGit }), sectionsPerFile(tree.root, changed)]);
      const docs = changed.length > 0 && changed.every((c) => c.startsWith('Documentation/'));
      return { ...withoutKeywordOnly(named, changed, entries), appliers: toEntries(changed, sections, entries, true), owners: toEntries(changed, sections, entries), docs, sections };
    });
    const patchRecipients = recipients.filter((r): r is NonNullable<typeof r> => r !== undefined);
    // The cover, and every patch of a series that goes to everyone (ccAll), To: the people who apply the series.
    const appliers = seriesAppliers(patchRecipients.map((r) => r.appliers));
    const unionOf = (rs: typeof patchRecipients) => addressedTo({ to: unique(rs.flatMap((r) => r.to)), cc: unique(rs.flatMap((r) => r.cc)), entries: mergedEntries(rs.map((r) => r.entries ?? {})) }, appliers);
    const union = unionOf(patchRecipients);
    // With ccAll, a code patch goes to everyone the code patches go to: those only a documentation patch names
    // (linux-doc, the documentation maintainer) get that patch and the cover, not the code.
    const codeUnion = unionOf(patchRecipients.filter((r) => !r.docs));

    // Who applies the series' entries today, by the archives (--inbox): silent maintainers, and the people who apply
    // now, To: on every message with --to-applier.
    const archive = opts.inboxes?.length ? await indexInboxes(opts.inboxes) : undefined;
    const named = new Set(patchRecipients.flatMap((r) => r.sections.flat().map((e) => e.name)));
    const lists = [...new Set(await Promise.all((archive?.epochs ?? []).map(epochList)))];
    // As of the archives' newest message: a mirror knows nothing after its last fetch.
    const asOf = opts.now ?? new Date((archive?.mails ?? []).reduce((n, m) => Math.max(n, m.date?.getTime() ?? 0), 0));
    const today = archive ? whoApplies(archive.mails, entries, asOf, lists, (e) => named.has(e.name) && e.name !== THE_REST).filter((a) => a.silent.length || a.appliers.length) : undefined;
    // Only someone who applied or pulled in the archives' last year: an old applier is no one to send to.
    const toAppliers = opts.toApplier ? (today ?? []).flatMap((a) => (a.appliers[0]?.active ? [a.appliers[0].who] : [])) : [];
    const messages: EmittedMessage[] = [];
    const texts: string[] = [];
    for (const [i, f] of files.entries()) {
      const isCover = f.includes('0000-cover-letter');
      const index = isCover ? 0 : Number(/(\d{4})-/.exec(f)![1]);
      const mail = splitMail(fs.readFileSync(path.join(staging, f), 'utf8'));
      if (isCover) {
        mail.headers = mail.headers.replace('*** SUBJECT HERE ***', rec.cover.subject);
        mail.body = mail.body.replace('*** BLURB HERE ***', joined(prerequisite?.sentence, rec.cover.body, blurbTail));
      } else {
        // Below each patch's ---, what the check found of it (how it was built, what it costs); a single patch also
        // carries what a cover letter would say to the reviewer.
        const own = report && patchNote(report.patches[index - 1]);
        const below = count === 1 ? joined(prerequisite?.sentence, rec.remarks, blurbTail, own) : own;
        if (below) mail.body = addPatchChangelog(mail.body, below);
      }
      const mine = recipients[i];
      const own = isCover || !mine || (ccAll && mine.docs) ? union : ccAll ? codeUnion : addressedTo(mine, mine.owners);
      // The entries the recipe names for a patch (by meaning, not path): on that patch and the cover; the maintainers
      // of its `to` entries apply it, so they are in To.
      const named = (field: Record<string, string[]> | undefined) => entries.filter((e) => (isCover ? Object.values(field ?? {}).flat() : (field?.[subjectOf(mail.headers)] ?? [])).includes(e.name));
      const appliedBy = named(rec.patchTo);
      const to = unique([...appliedBy.flatMap((e) => e.maintainers), ...toOrLists(own), ...(opts.to ?? []), ...toAppliers]);
      const extra = [...named(rec.patchCc), ...appliedBy].flatMap((e) => [...e.maintainers, ...(e.reviewers ?? []), ...e.lists.map((l) => l.replace(/\s.*$/, ''))]);
      const cc = unique([...own.cc, ...extra, ...(opts.cc ?? [])]).filter((a) => !to.includes(a));
      const messageId = idOf(index);
      const inReplyTo = messageId === threadRoot ? undefined : threadRoot;
      mail.headers = setHeaders(mail.headers, [
        ['Message-Id', messageId],
        ['In-Reply-To', inReplyTo ?? ''],
        ['References', inReplyTo ?? ''],
        ['To', to],
        ['Cc', cc],
      ]);
      const name = isCover ? '0000-cover-letter.patch' : f.replace(/^v\d+-/, '');
      messages.push({ file: name, subject: getHeader(mail.headers, 'Subject') ?? '', messageId, inReplyTo, to, cc });
      if (prerequisite?.messageId) mail.body = withPrerequisiteId(mail.body, prerequisite.messageId);
      const text = joinMail(mail);
      if (/\*\*\* (SUBJECT|BLURB) HERE \*\*\*/.test(text)) throw new Error(`${name}: placeholder text left in the cover letter`);
      texts.push(text);
    }
    writeOut(dir, messages.map((m) => m.file), texts);
    const posted = archive ? await postedAlready(tree.root, archive, messages, texts) : undefined;
    if (posted) fs.writeFileSync(path.join(dir, POSTED), `${JSON.stringify({ tip: rec.tip, matches: posted }, null, 2)}\n`);
    const local = await localBase(tree.root, treeBase(rec));
    return { dir, series: rec.name, version: rec.version, mbox: path.join(dir, 'series.mbox'), messages, ...(local ? { localBase: local } : {}), ...(prerequisite?.unsent ? { prerequisiteUnsent: prerequisite.unsent } : {}), ...(posted?.length ? { alreadyPosted: posted } : {}), ...(today?.length ? { appliers: today } : {}) };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** The Message-Id of each mail of a series (0: the cover letter), the one its thread hangs from, and how many patches. */
async function mailIds(tree: KernelTree, rec: SeriesRecord): Promise<{ idOf: (index: number) => string; root: string; count: number }> {
  const commits = (await gitRaw(tree.root, ['rev-list', '--reverse', `${rec.base}..${rec.tip}`])).trim().split('\n');
  const from = await authorIdent(tree, (await gitRaw(tree.root, ['log', '-1', '--format=%an <%ae>', rec.tip])).trim());
  const domain = splitIdent(from).email.split('@')[1]!;
  const idOf = (index: number) => `<kseries-${rec.name}-v${rec.version}-${index}-${(index === 0 ? rec.tip : commits[index - 1]!).slice(0, 12)}@${domain}>`;
  return { idOf, root: idOf(commits.length > 1 ? 0 : 1), count: commits.length };
}

/**
 * The series this one stands on, and the cover letter's sentence naming it: with the Message-Id its thread hangs from
 * once `send --send` sent it from `outRoot` (b4 fetches it by that id), else as a series of its own not on the list yet
 * (`unsent`: emit again after sending it, to name it).
 */
async function prerequisiteOf(tree: KernelTree, after: NonNullable<SeriesRecord['after']>, ownCount: number, outRoot: string): Promise<{ messageId?: string; sentence: string; unsent?: string }> {
  const rec = await loadSeries(tree, after.name, after.version);
  const { root, count } = await mailIds(tree, rec);
  const what = count > 1 ? `the series "${rec.cover.subject}" (${count} patches)` : `the patch "${rec.cover.subject}"`;
  const own = ownCount > 1 ? 'series' : 'patch';
  const tail = 'base-commit and prerequisite-patch-id below name the tree and its patches.';
  if (!sentAt(path.join(outRoot, after.name, `v${after.version}`))) {
    return { sentence: wrapParagraphs(`This ${own} applies on top of ${what}, which is posted separately; ${tail}`, 72), unsent: `${after.name} v${after.version}` };
  }
  return { messageId: root, sentence: wrapParagraphs(`This ${own} applies on top of ${what}, sent before it as ${root}; ${tail}`, 72) };
}

/** After git's prerequisite-patch-id lines, the prerequisite's Message-Id, for b4 to fetch it by. */
function withPrerequisiteId(body: string, messageId: string): string {
  const lines = body.split('\n');
  const last = lines.map((l, i) => (l.startsWith('prerequisite-patch-id: ') ? i : -1)).reduce((a, b) => Math.max(a, b), -1);
  if (last < 0) return body;
  lines.splice(last + 1, 0, `prerequisite-message-id: ${messageId}`);
  return lines.join('\n');
}

/** A patch mail's subject without its [PATCH ...] tag: the commit subject the series record keys by. */
function subjectOf(headers: string): string {
  return withoutTag((getHeader(headers, 'Subject') ?? '').replace(/\s+/g, ' ')).trim();
}

/** Per address, every entry any patch named it for. */
function mergedEntries(maps: Record<string, string[]>[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const m of maps) for (const [a, es] of Object.entries(m)) out[a] = unique([...(out[a] ?? []), ...es]);
  return out;
}

/** The entries that apply most of a series' patches: a documentation patch in a kprobes series goes with it. */
function seriesAppliers(perPatch: Set<string>[]): Set<string> {
  const counts = new Map<string, number>();
  for (const set of perPatch) for (const e of set) counts.set(e, (counts.get(e) ?? 0) + 1);
  const most = Math.max(0, ...counts.values());
  return new Set([...counts].filter(([, n]) => n === most).map(([e]) => e));
}

/** Nobody is a maintainer (e.g. a file only LKML covers): the lists become the To. */
function toOrLists(r: Recipients): string[] {
  return r.to.length > 0 ? r.to : r.cc;
}

/**
 * What `kseries check` established for exactly these commits, for the cover letter; a failed check refuses the
 * emission unless forced. No report, or one of other commits: nothing is said.
 */
function checkedStatement(dir: string, tip: string, force: boolean): { statement: string; report?: CheckReport } {
  const file = path.join(dir, 'report.json');
  if (!fs.existsSync(file)) return { statement: '' };
  const report = JSON.parse(fs.readFileSync(file, 'utf8')) as CheckReport;
  if (report.series.tip !== tip) return { statement: '' };
  if (report.failed && !force) {
    throw new CheckFailedError(`the last check of this series failed (${file})`, 'fix the patches and run kseries check again, or emit with --force');
  }
  if (report.failed) return { statement: '' };
  // What each check states of itself, in the registry's order: the patch checks, then the series checks.
  const parts = [...patchChecks().map((c) => c.statement(report)), ...seriesResultsOf(report).map(({ check, result }) => check.statement(result as never))].filter(Boolean);
  return { statement: wrapParagraphs(`Checked with kseries: ${parts.join('; ')}.`, 72), report };
}

/** What the patch checks state of one patch of a clean check, wrapped for below its ---; '' when none says anything. */
function patchNote(p: CheckReport['patches'][number] | undefined): string {
  const said = p ? patchChecks().map((c) => c.patchStatement?.(p)).filter(Boolean) : [];
  return said.length ? wrapParagraphs(said.join(' '), 72) : '';
}

/** For a single patch, the changelog goes below the `---`, where git am drops it. */
function addPatchChangelog(body: string, changelog: string): string {
  const at = body.indexOf('\n---\n');
  if (at < 0) return body;
  return `${body.slice(0, at + 5)}${changelog}\n\n${body.slice(at + 5)}`;
}

/** "Changes in vN:" sections for every version from 2 to this one, newest first. */
async function changelogOf(tree: KernelTree, rec: SeriesRecord): Promise<string> {
  const sections: string[] = [];
  for (let v = rec.version; v >= 2; v--) {
    const notes = v === rec.version ? rec.notes : (await loadSeries(tree, rec.name, v).catch(() => undefined))?.notes;
    if (notes?.length) sections.push(`Changes in v${v}:\n${notes.map((n) => `- ${n}`).join('\n')}`);
  }
  return sections.join('\n\n');
}

/** The series' patches the archives hold already (mail/posted.ts), each by the file and change of its mail. */
async function postedAlready(cwd: string, { epochs, mails }: Awaited<ReturnType<typeof indexInboxes>>, messages: EmittedMessage[], texts: string[]): Promise<PostedMatch[]> {
  const ours = messages.flatMap((m, i) => {
    if (m.file.startsWith('0000-')) return [];
    const text = texts[i]!;
    return [{ summary: summaryOf(m.subject), files: mailFiles(text), diff: diffPart(text) }];
  });
  return alreadyPosted(cwd, epochs, mails, ours);
}

function writeOut(dir: string, names: string[], texts: string[]): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    for (const old of fs.readdirSync(dir)) if (old.endsWith('.patch') || old === 'series.mbox') fs.rmSync(path.join(dir, old));
    names.forEach((n, i) => fs.writeFileSync(path.join(dir, n), texts[i]!));
    fs.writeFileSync(path.join(dir, 'series.mbox'), texts.join('\n'));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new OutputError(`cannot write ${err.path ?? dir}: ${err.code ?? err.message}`, 'choose a writable folder with --out, or fix its permissions');
  }
}
