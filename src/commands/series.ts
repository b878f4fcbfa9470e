// generate, series, emit, send: the series commands.
import { LOCAL_BASE_HINT } from '../series/base.js';
import type { MeasuredKinds } from '../recipes/static-key/measure.js';
import path from 'node:path';
import { loadRecipe, recipeDirs } from '../recipes/load.js';
import { emitSeries, type EmitResult } from '../series/emit.js';
import { generateSeries, type GenerateResult } from '../series/generate.js';
import { sendSeries } from '../series/send.js';
import { splitChange, type SplitOptions } from '../series/split.js';
import { listSeries, loadSeries, seriesVersions } from '../series/store.js';
import { UsageError } from '../errors.js';
import { applierLine } from '../mail/appliers.js';
import { postedPart } from '../mail/posted.js';
import { parseSetArgs } from '../templates/params.js';
import { openTree } from '../tree/tree.js';
import { printJson, progressReporter, type GlobalOptions, type Io } from './io.js';

export interface GenerateArgs {
  recipe: string;
  set: string[];
  /** --path and --only: list forms of the recipe parameters "paths" and "only". */
  paths?: string[];
  only?: string[];
  /** --min-rate: the recipe parameter "minRate". */
  minRate?: number;
  /** --toggles: the recipe parameter "toggles". */
  toggles?: boolean;
  base?: string;
  from?: string;
  version?: number;
  /** Build options for a recipe that measures its patches (undefined: --no-build). */
  measure?: { config: string; distcc: boolean };
  /** The boot that measures flags first, for a recipe that asks (undefined: --no-build). */
  runtime?: { config: string; workload: string; candidates: MeasuredKinds };
  /** List archives whose posted patches a recipe leaves out (cocci). */
  inbox?: string[];
}

export async function generate(io: Io, g: GlobalOptions, a: GenerateArgs): Promise<number> {
  const recipe = loadRecipe(a.recipe, recipeDirs(g.recipes, io.env));
  const lists = { paths: a.paths ?? [], only: a.only ?? [], minRate: a.minRate === undefined ? [] : [String(a.minRate)], toggles: a.toggles ? ['true'] : [] };
  const given = { ...parseSetArgs(a.set), ...listParams(recipe.manifest.id, recipe.manifest.params, lists) };
  const tree = await openTree({ cwd: io.cwd, tree: g.tree, env: io.env });
  const measure = a.measure && { ...a.measure, env: io.env, progress: progressReporter(io) };
  const inboxes = (a.inbox ?? []).map((d) => path.resolve(io.cwd, d));
  const made = await generateSeries({ tree, recipe, given, base: a.base, from: a.from, version: a.version, measure, runtime: a.runtime, inboxes, log: (l) => io.err(l) });
  // A split recipe (one series per maintainer tree) lists each series; a plain one gives its series' fields.
  if (g.json) printJson(io, recipe.manifest.split ? { series: made.map(generatedJson) } : generatedJson(made[0]!));
  else for (const r of made) printGenerated(io, r);
  return 0;
}

/** --path/--only/--min-rate/--toggles as the recipe's "paths"/"only"/"minRate"/"toggles" parameters (comma-joined); refused for a recipe without them. */
function listParams(recipe: string, params: Record<string, unknown>, lists: Record<string, string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, values] of Object.entries(lists)) {
    if (values.length === 0) continue;
    const option = name === 'paths' ? '--path' : `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    if (!(name in params)) throw new UsageError(`recipe ${recipe} takes no ${option}`, `see kseries recipes ${recipe} for its parameters`);
    out[name] = values.join(',');
  }
  return out;
}

export function generatedJson(r: GenerateResult) {
  return { series: r.name, version: r.version, branch: r.branch, base: r.base, unchanged: r.unchanged, commits: r.commits, unproven: r.unproven ?? [], kunitProblems: r.kunitProblems ?? [] };
}

/** split's arguments: the options of splitChange() without the tree, which the global options name. */
export type SplitArgs = Omit<SplitOptions, 'tree'>;

export async function split(io: Io, g: GlobalOptions, a: SplitArgs): Promise<number> {
  const tree = await openTree({ cwd: io.cwd, tree: g.tree, env: io.env });
  const made = await splitChange({ tree, ...a, ...(a.inboxes?.length ? { inboxes: a.inboxes.map((d) => path.resolve(io.cwd, d)) } : {}), log: (l) => io.err(l) });
  if (g.json) printJson(io, { series: made.map(generatedJson) });
  else for (const r of made) printGenerated(io, r);
  return 0;
}

export function printGenerated(io: Io, r: GenerateResult): void {
  io.out(`${r.unchanged ? 'unchanged, still' : 'generated'} ${r.branch} on ${r.base.slice(0, 12)}: ${r.commits.length} patch${r.commits.length === 1 ? '' : 'es'}`);
  for (const c of r.commits) io.out(`  ${c.sha.slice(0, 12)} ${c.subject}${r.unproven?.includes(c.subject) ? '   (object-code proof fails: kseries check shows why)' : ''}`);
  for (const p of r.kunitProblems ?? []) io.out(`  KUnit on the draft: ${p}`);
}

export async function series(io: Io, g: GlobalOptions): Promise<number> {
  const tree = await openTree({ cwd: io.cwd, tree: g.tree, env: io.env });
  const rows = [];
  for (const name of await listSeries(tree)) {
    for (const v of await seriesVersions(tree, name)) {
      const rec = await loadSeries(tree, name, v).catch(() => undefined);
      rows.push({ series: name, version: v, recipe: rec?.recipe ?? null, base: rec?.base ?? null, tip: rec?.tip ?? null });
    }
  }
  if (g.json) printJson(io, { series: rows });
  else if (rows.length === 0) io.out('no series yet: kseries generate <recipe> --set key=value ...');
  else for (const r of rows) io.out(`${r.series} v${r.version}  (${r.recipe ?? 'unknown recipe'}, tip ${r.tip?.slice(0, 12) ?? '?'})`);
  return 0;
}

export interface EmitArgs {
  series?: string;
  version?: number;
  out?: string;
  rfc?: boolean;
  ccAll?: boolean;
  subjectPrefix?: string;
  notes: string[];
  to: string[];
  cc: string[];
  force: boolean;
  /** List archives to look in for patches of the series posted already, and for who applies today. */
  inbox?: string[];
  toApplier?: boolean;
}

export async function emit(io: Io, g: GlobalOptions, a: EmitArgs): Promise<number> {
  if (a.toApplier && !a.inbox?.length) throw new UsageError('--to-applier reads who applies from list archives', 'add --inbox ARCHIVE');
  const tree = await openTree({ cwd: io.cwd, tree: g.tree, env: io.env });
  const r = await emitSeries({
    tree,
    name: a.series,
    version: a.version,
    out: path.resolve(io.cwd, a.out ?? 'out'),
    rfc: a.rfc,
    ccAll: a.ccAll,
    subjectPrefix: a.subjectPrefix,
    notes: a.notes,
    to: a.to,
    cc: a.cc,
    force: a.force,
    ...(a.inbox?.length ? { inboxes: a.inbox.map((d) => path.resolve(io.cwd, d)), toApplier: a.toApplier === true } : {}),
  });
  if (g.json) printJson(io, r);
  else printEmitted(io, r);
  return 0;
}

export function printEmitted(io: Io, r: EmitResult): void {
  io.out(`emitted ${r.series} v${r.version} to ${r.dir}/`);
  for (const m of r.messages) io.out(`  ${m.file}  ${m.subject}\n      To: ${m.to.join(', ') || '-'}\n      Cc: ${m.cc.join(', ') || '-'}`);
  if (r.localBase) io.out(`warning: ${r.localBase}; send --send refuses it without --force\nhint: ${LOCAL_BASE_HINT}`);
  for (const p of r.alreadyPosted ?? []) {
    const how = { 'patch-id': 'the same change', lines: 'the same lines added and removed, line breaks aside', subject: 'the same subject for the same files' }[p.by];
    io.out(`warning: ${postedPart(p)} was posted already (${how}): "${p.subject}" by ${p.from}${p.date ? ` on ${p.date}` : ''}, <${p.messageId}>${p.applied ? `; applied: ${p.applied.by} <${p.applied.messageId}>` : ''}`);
  }
  if (r.alreadyPosted?.length) io.out('hint: leave those patches out and generate again; send --send refuses the series without --force');
  for (const a of r.appliers ?? []) {
    const now = a.appliers.length ? `; its patches are applied by ${a.appliers.slice(0, 2).map(applierLine).join(', ')}` : '';
    for (const m of a.silent) io.out(`warning: ${m.who} (${a.entry}) ${m.last ? `last wrote to the lists on ${m.last.date} <${m.last.messageId}>` : 'has written nothing to the archives given'}${now}`);
  }
  if (r.appliers?.some((a) => a.silent.length && a.appliers[0]?.active)) io.out('hint: --to-applier puts who applies them To: on every message');
  if (r.prerequisiteUnsent) io.out(`warning: it applies on top of ${r.prerequisiteUnsent}, not sent yet: the cover says it is posted separately, without its Message-Id\nhint: send ${r.prerequisiteUnsent} first, then emit this again to name it`);
}

export interface SendArgs {
  series?: string;
  version?: number;
  out?: string;
  send: boolean;
  force?: boolean;
  smtpServer?: string;
  smtpPort?: number;
  smtpEncryption?: string;
}

export async function send(io: Io, g: GlobalOptions, a: SendArgs): Promise<number> {
  const tree = await openTree({ cwd: io.cwd, tree: g.tree, env: io.env });
  const rec = await loadSeries(tree, a.series, a.version);
  const dir = path.join(path.resolve(io.cwd, a.out ?? 'out'), rec.name, `v${rec.version}`);
  const r = await sendSeries({ dir, cwd: tree.root, send: a.send, force: a.force, smtpServer: a.smtpServer, smtpPort: a.smtpPort, smtpEncryption: a.smtpEncryption });
  if (g.json) printJson(io, r);
  else {
    io.out(r.output.trimEnd());
    io.out(r.sent ? `sent ${r.files.length} messages` : `dry run: ${r.files.length} messages checked; add --send to send them`);
  }
  return 0;
}
