// `kseries generate`: plan a recipe against the tree, then commit it, one commit per patch, on kseries/<series>/v<N>.
import os from 'node:os';
import DataLoader from 'dataloader';
import path from 'node:path';
import { UsageError } from '../errors.js';
import type { BuildOptions } from '../build/builder.js';
import { configLine } from '../build/config-line.js';
import { proveRange } from '../check/check.js';
import { kunitEvidence, type KunitReport } from '../check/kunit.js';
import type { LoadedRecipe } from '../recipes/load.js';
import type { RuntimeRequest } from '../recipes/types.js';
import type { ObjectProof } from '../check/proofs/types.js';
import { sizeRows, totalSize, type ObjectSize } from '../object-code/sizes.js';
import type { TemplateVars } from '../templates/render.js';
import { commitChain, gitRaw, gitRunRaw, gitTry, readAtCommit } from '../tools/git.js';
import { runGetMaintainerGit, runGetMaintainerOfFile, sectionsPerFile } from '../tools/kernel-scripts.js';
import { parseSections, routeOf, type MaintainersEntry, type Route } from '../subsystems/route.js';
import { commitOf, hasHistory, type KernelTree } from '../tree/tree.js';
import { authorIdent, splitIdent } from '../tree/identity.js';
import { planSeries, planSplit, type PlanInput, type PlannedPatch, type SeriesPlan, type TreeServices } from './plan.js';
import { branchName, loadSeries, saveRecord, seriesVersions, type SeriesRecord } from './store.js';
import { kseriesDir, withLock, worktreeAt } from '../tree/worktree.js';
import { runSpatch } from '../tools/spatch.js';
import { indexInboxes, isReply, withoutTags } from '../mail/inbox.js';
import { alreadyPosted, type OurPatch } from '../mail/posted.js';
import { diffFiles } from '../edits/cocci.js';

export interface GenerateOptions {
  tree: KernelTree;
  recipe: LoadedRecipe;
  given: Record<string, string>;
  /** Commit to base the series on (default: the tree's HEAD). */
  base?: string;
  /** "Name <email>" of the author (default: git config of the tree). */
  from?: string;
  /** Version to create (default: the next one, or the newest when nothing changed). */
  version?: number;
  /**
   * For a recipe with an object-code proof: build a draft of the series with these options first, and give each
   * patch's templates the figures (`measured`). Without it, `measured` is false.
   */
  measure?: BuildOptions;
  /**
   * For a recipe whose manifest asks for runtime evidence: boot the base with this config and workload first
   * (kseries measure, cached per commit) and give the recipe each flag's hits. Undefined: nothing is booted.
   */
  runtime?: RuntimeRequest;
  /** List archives to leave out what was posted there already (recipes that ask: cocci). */
  inboxes?: string[];
  /** Progress lines (the draft build takes a while). */
  log?: (line: string) => void;
  /**
   * When the draft's proofs refute some claims (`flag -> key`), the parameters of another try without them, or
   * undefined to keep the series as it is (at most REPLANS tries). Nothing refuted is ever committed on a branch.
   */
  replan?: (refuted: string[]) => Record<string, string> | undefined;
}

/** Drafts generate makes at most for one series when replan asks for another try. */
const REPLANS = 3;

export interface GenerateResult {
  name: string;
  version: number;
  branch: string;
  base: string;
  commits: { sha: string; subject: string }[];
  /** True when the newest version already holds exactly this series, so no new version was made. */
  unchanged: boolean;
  plan: SeriesPlan;
  /** Subjects of the patches whose object-code proof failed on the draft build (kseries check says why). */
  unproven?: string[];
  /** What failed in KUnit on the draft (kseries check says it again). */
  kunitProblems?: string[];
}

/** Generate the recipe's series: one, or for a split recipe one per element of its split list (e.g. per maintainer tree). */
export async function generateSeries(opts: GenerateOptions): Promise<GenerateResult[]> {
  const { tree } = opts;
  const { base, after } = await baseOf(tree, opts.recipe, await resolveCommit(tree, opts.base ?? 'HEAD'));
  const author = await authorIdent(tree, opts.from);
  const services = await treeServices(tree, base, opts.inboxes);
  const own = opts.recipe.code?.services;
  if (own?.flagCandidates) services.flagCandidates = own.flagCandidates(tree, base);
  if (opts.recipe.manifest.measure && opts.runtime && own?.runtime) services.runtime = await own.runtime({ tree, base, how: opts.runtime, build: opts.measure ?? { config: 'defconfig', distcc: false }, log: opts.log });
  let input: PlanInput = { recipe: opts.recipe, given: opts.given, tree, readBase: (f) => readAtCommit(tree.root, base, f), services };
  let plan = await planSeries(input);
  for (const notice of (plan.prepared?.notices as string[] | undefined) ?? []) opts.log?.(notice);
  const proves = !!opts.recipe.code?.verify;
  const kunit = opts.recipe.manifest.kunit;
  const applyAll = async (plans: SeriesPlan[], extra: Partial<GenerateResult> = {}) =>
    (await applyPlans({ tree, plans, base, author, version: opts.version, after })).map((r, i) => {
      const mine = extra.unproven?.filter((u) => plans[i]!.patches.some((x) => x.subject === u));
      return { ...r, ...extra, ...(mine ? { unproven: mine } : {}) };
    });
  if (!opts.measure || (!proves && !kunit)) return applyAll(await planSplit({ ...input, prepared: plan.prepared ?? {} }, plan, () => false));
  const what = [proves ? `build it (${opts.measure.config}) to measure the object code` : '', kunit ? 'run KUnit on it and on the base' : ''].filter(Boolean).join(', and ');
  let draft: { tip: string };
  let built: Awaited<ReturnType<typeof proveRange>> | undefined;
  for (let attempt = 1; ; attempt++) {
    opts.log?.(`making a draft of ${plan.patches.length} patch${plan.patches.length === 1 ? '' : 'es'} to ${what}`);
    const drafted = plan;
    draft = await withLock(tree, () => commitPlan(tree, base, drafted.patches, author));
    built = proves ? await proveRange({ ...opts.measure, tree, base, tip: draft.tip }) : undefined;
    const refuted = (built?.proofs ?? []).flat().filter((p) => !p.ok).map((p) => p.claim);
    const next = refuted.length && attempt < REPLANS ? opts.replan?.(refuted) : undefined;
    if (!next) break;
    opts.log?.(`the draft's object code refutes ${refuted.join(', ')}: planning again without ${refuted.length === 1 ? 'it' : 'them'}`);
    input = { ...input, given: next };
    plan = await planSeries(input);
  }
  const measured = built?.proofs.map((proofs, i) => measuredVars(proofs, built.reports[i]!.sizes ?? [], configLine(built.config), built.compilerVersion ?? built.compiler));
  const evidence = kunit ? await kunitEvidence(tree, { base, tip: draft.tip }, kunit, { env: opts.measure.env, log: opts.log, progress: opts.measure.progress, fresh: opts.measure.fresh }) : undefined;
  // What the measured objects cost in all, for the cover letter of the series that holds these patches.
  const total = (of: (TemplateVars | false)[]): TemplateVars | false => {
    if (!built) return false;
    const sizes = of.flatMap((m) => (m ? (m.sizes as ObjectSize[]) : []));
    return { config: configLine(built.config), objects: sizes.length, rows: sizes.length ? sizeRows(totalSize(sizes)) : [] };
  };
  const planned = { ...input, measured, prepared: plan.prepared ?? {}, kunit: evidence ? kunitVars(evidence) : (false as const) };
  plan = await planSeries({ ...planned, measuredTotal: total(measured ?? []) });
  const unproven = built ? plan.patches.filter((_, i) => built.proofs[i]!.some((p) => !p.ok)).map((p) => p.subject) : [];
  const failing = evidence && !evidence.ok ? evidence.problems : undefined;
  return applyAll(await planSplit(planned, plan, total), { unproven, ...(failing ? { kunitProblems: failing } : {}) });
}

/**
 * Where the series' commits go: on `treeBase`, or for a recipe that applies on top of another series (manifest
 * `after`), on the tip of that series' newest version made on the same tree commit.
 */
async function baseOf(tree: KernelTree, recipe: LoadedRecipe, treeBase: string): Promise<{ base: string; after?: SeriesRecord['after'] }> {
  const name = recipe.manifest.after;
  if (!name) return { base: treeBase };
  const versions = await seriesVersions(tree, name);
  const mine = `${recipe.manifest.id} applies on top of the series ${name}`;
  const hint = `run kseries generate ${name} --base ${treeBase.slice(0, 12)} first`;
  if (versions.length === 0) throw new UsageError(`${mine}, which this tree has not generated`, hint);
  const rec = await loadSeries(tree, name, versions[versions.length - 1]);
  if (rec.base !== treeBase) throw new UsageError(`${mine}, whose newest version v${rec.version} stands on ${rec.base.slice(0, 12)}, not on ${treeBase.slice(0, 12)}`, hint);
  return { base: rec.tip, after: { name, version: rec.version, base: treeBase } };
}

/** The template variable `kunit`: the draft's KUnit runs and the census, shaped for Handlebars. */
function kunitVars(k: KunitReport): TemplateVars {
  const run = (r: KunitReport['base']) => ({ commit: r.commit.slice(0, 12), passed: r.passed, failed: r.failed, total: r.tests.length, status: r.status, settings: r.settings ?? [] });
  const c = k.census;
  const list = (counts: Partial<Record<string, number>>) => Object.entries(counts).sort((a, b) => b[1]! - a[1]!).map(([reason, count]) => ({ reason, count, text: REASON_TEXT[reason] ?? reason }));
  return {
    ok: k.ok,
    accel: k.accel.toUpperCase(),
    accelWhy: k.accelWhy,
    config: k.config,
    base: run(k.base),
    series: run(k.series),
    added: k.added.map(caseName),
    without: k.without?.run ? { ...run(k.without.run), subject: k.without.subject, failed: k.without.failed.map(caseName) } : false,
    problems: k.problems,
    census: c
      ? {
          objects: c.objects,
          functions: c.functions,
          coldParts: c.coldParts,
          compiledColdParts: c.coldParts - (c.coldWritten ?? 0),
          coldRefused: c.coldRefused,
          // Those a .cold part jumps into: where an optimized probe crashes the kernel once that part runs.
          coldJumpedInto: c.coldRefusedBy?.jump ?? 0,
          coldExample: c.coldExample ?? '',
          // What the figures depend on, said beside them: a kernel without modules, BUG() or -O2 has other sites.
          conditions: (k.series.settings ?? []).filter((x) => ['CONFIG_MODULES', 'CONFIG_BUG', 'CONFIG_CC_OPTIMIZE_FOR_SIZE'].includes(x.name)),
          sites: c.sites,
          move: c.move,
          stay: c.stay,
          stayBy: list(c.stayBy),
          x86: { move: c.x86.move, disagree: c.x86.disagree, disagreeBy: list(c.x86.disagreeBy).map((d) => ({ ...d, example: c.x86.examples[d.reason as keyof typeof c.x86.examples] ?? '' })) },
        }
      : false,
  };
}

/** A test's name without its suite, as a message names it ("suite.case" → "case"; a crashed suite as it is). */
function caseName(test: string): string {
  return test.replace(/^[^.]*\./, '');
}

/** The census's reasons in a cover letter's words. */
const REASON_TEXT: Record<string, string> = {
  'not-probeable': 'kprobes refuse the function',
  undecoded: 'objdump cannot decode the function',
  'control-transfer': 'the instruction jumps, calls, returns or traps',
  'jump-label': 'the instruction is a jump label',
  'may-fault': 'the instruction may fault into a fixup',
  alternative: 'alternatives rewrite the code at boot',
  'no-next': 'no next instruction in the function',
  'branch-target': 'the next instruction is a jump target',
  'table-target': 'a jump or computed-goto table names it',
  'static-branch-target': 'a jump label jumps to it',
  'fixup-target': 'an exception fixup continues there',
  'address-taken': 'its address is taken',
  'entry-point': 'a symbol or ENDBR marks it',
  'indirect-jump': 'the function has an indirect jump',
  'next-not-probeable': 'kprobes refuse a probe there',
};

/** The files under `pathspecs` that name `word` as a word at `base`; exit 1 (nothing found) is no failure here. */
async function filesNaming(root: string, base: string, word: string, pathspecs: string[]): Promise<string[]> {
  const out = (await gitTry(root, ['grep', '-l', '-w', '-F', '--full-name', word, base, '--', ...pathspecs])) ?? '';
  return out.split('\n').filter(Boolean).map((l) => l.slice(base.length + 1));
}

/** How many of a file's latest commits give its usual subject prefix. */
const HISTORY_SUBJECTS = 30;

/** What every recipe may ask of the tree at the base: get_maintainer.pl, files naming a word, history, spatch, headers. */
export async function treeServices(tree: KernelTree, base: string, inboxes: string[] = []): Promise<TreeServices> {
  const useGit = await hasHistory(tree);
  // The archives are indexed once, when a recipe first asks.
  let archive: ReturnType<typeof indexInboxes> | undefined;
  const posted = async (patches: OurPatch[]) => {
    const { epochs, mails } = await (archive ??= indexInboxes(inboxes));
    return alreadyPosted(tree.root, epochs, mails, patches);
  };
  // The archives' patches (not replies) as a history would list them: subject without brackets, files, newest first.
  let history: Promise<{ subject: string; files: string[]; messageId: string }[]> | undefined;
  const archived = () =>
    (history ??= (archive ??= indexInboxes(inboxes)).then(({ mails }) =>
      mails
        .filter((m) => m.diff && m.files?.length && m.messageId && !isReply(m.subject) && !/^fwd?\s*:/i.test(m.subject))
        .sort((a, b) => (b.date?.getTime() ?? 0) - (a.date?.getTime() ?? 0))
        .map((m) => ({ subject: withoutTags(m.subject), files: m.files!, messageId: m.messageId! }))
        // A patch posted in four versions is one change of the history: its newest posting.
        .filter((p, i, all) => all.findIndex((q) => q.subject === p.subject) === i),
    ));
  const archivedPrefix = async (file: string, prefix: string) => {
    const all = await archived();
    const folder = `${path.posix.dirname(file)}/`;
    const says = (p: { subject: string }) => p.subject.startsWith(`${prefix}:`);
    return all.find((p) => p.files.includes(file) && says(p)) ?? all.find((p) => p.files.some((f) => f.startsWith(folder)) && says(p));
  };
  const route = routesAt(tree.root, readAtCommit(tree.root, base, 'MAINTAINERS').then((t) => parseSections(t ?? '')));
  return {
    maintainersOf: (file) => runGetMaintainerOfFile(tree.root, file, { useGit }),
    routeOf: route,
    authorsOf: async (file) => (useGit ? runGetMaintainerGit(tree.root, file) : []),
    docsNaming: (word) => filesNaming(tree.root, base, word, ['Documentation']),
    sourcesNaming: (word) => filesNaming(tree.root, base, word, ['*.c', '*.h']),
    // A tree without history (Debian's tarball) learns its subjects from the archives given, when there are some.
    subjectsOf: async (file) => (useGit ? (await gitRaw(tree.root, ['log', '--no-merges', `-${HISTORY_SUBJECTS}`, '--format=%s', base, '--', file])).split('\n').filter(Boolean) : inboxes.length ? (await archived()).filter((p) => p.files.includes(file)).slice(0, HISTORY_SUBJECTS).map((p) => p.subject) : []),
    folderLog: async (folder) => (useGit ? folderLogAt(tree.root, base, folder) : inboxes.length ? (await archived()).filter((p) => p.files.some((f) => f.startsWith(`${folder}/`))).slice(0, HISTORY_SUBJECTS) : []),
    ...(inboxes.length && !useGit ? { archivedPrefix } : {}),
    // Each folder's changed files are routed while spatch works on the next (the answers wait in the route's cache).
    spatch: spatchAt(tree, base, (diff) => diffFiles(diff).forEach((f) => void route(f.file).catch(() => undefined))),
    headersOf: (names) => headersDefining(tree, base, names),
    ...(inboxes.length ? { posted } : {}),
  };
}

/**
 * Routes from get_maintainer.pl --sections, each file's asked once: the files a plan asks for together (DataLoader
 * gathers one tick's asks) are read by one run of the script per core, as it reads MAINTAINERS once a run.
 */
function routesAt(root: string, maintainers: Promise<MaintainersEntry[]>): (file: string) => Promise<Route> {
  const loader = new DataLoader<string, Route>(async (files) => {
    const per = Math.ceil(files.length / os.availableParallelism());
    const chunks = Array.from({ length: Math.ceil(files.length / per) }, (_, i) => files.slice(i * per, (i + 1) * per));
    const entries = (await Promise.all(chunks.map((c) => sectionsPerFile(root, c)))).flat();
    const all = await maintainers;
    return files.map((f, i) => routeOf(f, entries[i]!, all));
  });
  return (file) => loader.load(file);
}

/** A folder's latest commits (subject and files), newest first: its drivers' subjects show the form a new one takes. */
async function folderLogAt(root: string, base: string, folder: string): Promise<{ subject: string; files: string[] }[]> {
  const out = await gitRaw(root, ['log', '--no-merges', `-${HISTORY_SUBJECTS}`, '--format=%x00%s', '--name-only', base, '--', folder]);
  return out.split('\0').filter((c) => c.trim()).map((c) => {
    const [subject = '', ...files] = c.split('\n').filter(Boolean);
    return { subject, files };
  });
}

/** Declarations and definitions of functions and function-like macros, at a line's start, as headers write them. */
const DEFINING = (names: string) => `^(static inline [^;=]*[ *]|extern [^;=]*[ *]|[a-z][^;=()]*[ *])?(${names})\\(|^#define (${names})\\(`;

/** Which header under include/ (not uapi or asm-generic) defines each name, at `base`: one git grep for all. */
async function headersDefining(tree: KernelTree, base: string, names: readonly string[]): Promise<Map<string, string>> {
  const wanted = names.filter((n) => /^[A-Za-z_]\w*$/.test(n));
  const found = new Map<string, Set<string>>();
  if (wanted.length === 0) return new Map();
  // Perl regexes (JIT) read include/ in 0.13 s where -E takes 0.9 s; a git built without PCRE (exit 128) takes -E.
  // Exit 1 is "nothing found".
  const grep = async (kind: string) => {
    const r = await gitRunRaw(tree.root, ['grep', '-o', kind, DEFINING(wanted.join('|')), base, '--', 'include/', ':!include/uapi', ':!include/asm-generic']);
    return r.code === 0 ? r.stdout : r.code === 1 ? '' : undefined;
  };
  const out = (await grep('-P')) ?? (await grep('-E')) ?? '';
  for (const line of out.split('\n').filter(Boolean)) {
    const rest = line.slice(base.length + 1);
    const file = rest.slice(0, rest.indexOf(':')).replace(/^include\//, '');
    const name = /(\w+)\($/.exec(rest)?.[1];
    if (name && wanted.includes(name)) found.set(name, new Set([...(found.get(name) ?? []), file]));
  }
  return new Map([...found].filter(([, files]) => files.size === 1).map(([name, files]) => [name, [...files][0]!]));
}

/**
 * spatch in kseries' worktree at the base (it only reads there), with a job per core; each script, paths and
 * options run once however often a plan asks (a split recipe plans each tree's series again). `onDiff` sees each
 * folder's diff as soon as spatch has made it.
 */
function spatchAt(tree: KernelTree, base: string, onDiff: (diff: string) => void): NonNullable<TreeServices['spatch']> {
  const runs = new Map<string, Promise<string>>();
  return (script, paths, options) => {
    const key = JSON.stringify([script.text, paths, options]);
    let diff = runs.get(key);
    if (!diff) {
      diff = withLock(tree, async () => {
        const wt = await worktreeAt(tree, base);
        const file = script.inTree ? path.join(wt, script.file) : script.file;
        return (await runSpatch(wt, { ...script, file }, paths, { options, jobs: os.availableParallelism(), onDiff })).diff;
      });
      runs.set(key, diff);
    }
    return diff;
  };
}

/**
 * The template variable `measured` of one patch: its proofs (also by subject, for a message about one flag), what
 * each object it proved costs before and after (same build), and the configuration and compiler that built them.
 */
function measuredVars(proofs: ObjectProof[], sizes: ObjectSize[], config: string, compiler: string): TemplateVars | false {
  if (proofs.length === 0) return false;
  const list = proofs.map((p) => ({ claim: p.claim, object: p.object, ok: p.ok, sites: p.sites, summary: p.summary, errors: p.errors, figures: p.figures ?? {}, functions: p.functions ?? [] }));
  return {
    ok: proofs.every((p) => p.ok),
    config,
    compiler,
    proofs: list,
    bySubject: Object.fromEntries(proofs.flatMap((p, i) => (p.subject ? [[p.subject, list[i]!]] : []))),
    sizes: sizes.map((z) => ({ ...z, rows: sizeRows(z), delta: z.after.total - z.before.total })),
    sizeDelta: sizes.reduce((n, z) => n + z.after.total - z.before.total, 0),
  };
}

export interface ApplyInput {
  tree: KernelTree;
  plan: SeriesPlan;
  base: string;
  author: string;
  version?: number;
  /** The series this one applies on top of (`base` is its tip). */
  after?: SeriesRecord['after'];
}

/** The series of a split side by side (one lock for all): each is a few short git runs, most of them waiting. */
export function applyPlans({ plans, ...rest }: Omit<ApplyInput, 'plan'> & { plans: SeriesPlan[] }): Promise<GenerateResult[]> {
  return withLock(rest.tree, () => Promise.all(plans.map((plan) => applyPlan({ ...rest, plan }))));
}

/** Commit a planned series and, when it differs from the newest version, name it kseries/<series>/v<N>. */
export async function applyPlan({ tree, plan, base, author, version: wanted, after }: ApplyInput): Promise<GenerateResult> {
  const versions = await seriesVersions(tree, plan.name);
  if (wanted !== undefined && versions.includes(wanted)) {
    throw new UsageError(`${branchName(plan.name, wanted)} already exists`, 'leave out -v to make the next version');
  }
  return withLock(tree, async () => {
    const { tip, commits } = await commitPlan(tree, base, plan.patches, author);
    const latest = versions[versions.length - 1];
    const perPatch = (field: 'cc' | 'to') => (plan.patches.some((p) => p[field]) ? Object.fromEntries(plan.patches.flatMap((p) => (p[field] ? [[p.subject, p[field]]] : []))) : undefined);
    const patchCc = perPatch('cc');
    const patchTo = perPatch('to');
    if (wanted === undefined && latest !== undefined && (await sameSeries(tree, plan.name, latest, base, tip))) {
      const rec = await loadSeries(tree, plan.name, latest);
      // The same commits: the recipe's recipients, which are no part of them, are still the recipe's of today.
      if (JSON.stringify([rec.patchCc, rec.patchTo]) !== JSON.stringify([patchCc, patchTo])) saveRecord(tree, { ...rec, patchCc, patchTo });
      return { name: plan.name, version: latest, branch: branchName(plan.name, latest), base, commits: await listCommits(tree, base, rec.tip), unchanged: true, plan };
    }
    const version = wanted ?? (latest ?? 0) + 1;
    saveRecord(tree, {
      name: plan.name,
      version,
      recipe: plan.recipe,
      params: plan.params,
      base,
      tip,
      cover: plan.cover,
      createdAt: new Date().toISOString(),
      ...(plan.rfc ? { rfc: true } : {}),
      ...(plan.ccAll ? { ccAll: true } : {}),
      ...(patchCc ? { patchCc } : {}),
      ...(patchTo ? { patchTo } : {}),
      ...(plan.subjectTag ? { subjectTag: plan.subjectTag } : {}),
      ...(plan.remarks ? { remarks: plan.remarks } : {}),
      ...(after ? { after } : {}),
    });
    await gitRaw(tree.root, ['branch', branchName(plan.name, version), tip]);
    return { name: plan.name, version, branch: branchName(plan.name, version), base, commits, unchanged: false, plan };
  });
}

/** The trailers a recipe's body may end with, which the Signed-off-by joins (one block, as git interpret-trailers reads it). */
const TRAILER = /^(Fixes|Link|Closes|Reported-by|Suggested-by|Cc): \S/;

/** Subject, body and the author's Signed-off-by: below the body's own trailers, else after a blank line. */
export function commitMessage(patch: { subject: string; body: string }, author: string): string {
  const body = patch.body.trim();
  const last = body.split('\n\n').pop() ?? '';
  const joiner = !body ? '' : last.split('\n').every((l) => TRAILER.test(l)) ? `${body}\n` : `${body}\n\n`;
  return `${patch.subject}\n\n${joiner}Signed-off-by: ${author}\n`;
}

/** Commit the patches on `base` (objects only: no checkout, no branch); returns the tip. */
async function commitPlan(tree: KernelTree, base: string, patches: PlannedPatch[], author: string) {
  const { name, email } = splitIdent(author);
  const configured = await gitTry(tree.root, ['config', 'user.email']);
  const env: Record<string, string> = { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, ...(configured ? {} : { GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email }) };
  const ids = await commitChain(
    tree.root,
    base,
    patches.map((patch) => ({ changes: patch.changes, env, message: commitMessage(patch, author) })),
    kseriesDir(tree),
  );
  return { tip: ids[ids.length - 1]!, commits: ids.map((sha, i) => ({ sha, subject: patches[i]!.subject })) };
}

async function sameSeries(tree: KernelTree, name: string, version: number, base: string, tip: string): Promise<boolean> {
  const rec = await loadSeries(tree, name, version).catch(() => undefined);
  if (!rec || rec.base !== base) return false;
  const messages = (from: string, to: string) => gitRaw(tree.root, ['log', '--format=%T%n%B', `${from}..${to}`]);
  return (await messages(base, rec.tip)) === (await messages(base, tip));
}

async function listCommits(tree: KernelTree, base: string, tip: string) {
  const out = await gitRaw(tree.root, ['log', '--reverse', '--format=%H %s', `${base}..${tip}`]);
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => ({ sha: l.slice(0, 40), subject: l.slice(41) }));
}

export async function resolveCommit(tree: KernelTree, rev: string): Promise<string> {
  const sha = await commitOf(tree, rev);
  if (!sha) throw new UsageError(`--base ${rev} is not a commit of ${tree.root}`, 'give a branch, tag or commit of the kernel tree');
  return sha;
}

