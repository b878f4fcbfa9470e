// `kseries split`: a change already made (commits, or the uncommitted changes of the user's checkout) cut the way
// maintainers take it: one series per MAINTAINERS tree, one patch per maintainer group (or per tree, or per file),
// the same grouping the cocci and static-keys recipes use. A file that uses what another group's file adds goes
// after it in the same series, or with it when the trees differ: no patch that cannot build alone.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import type { FileChange } from '../edits/overlay.js';
import { byTree, commonPrefix, groupFiles, othersLine, subjectPrefix, type Group, type GroupServices } from '../subsystems/groups.js';
import { batches, rulesOf } from '../subsystems/profile.js';
import { compileTemplate, wrapParagraphs, type TemplateVars } from '../templates/render.js';
import { leftOutLine, summaryOf, withoutPosted } from '../mail/posted.js';
import { gitRaw, readAtCommit } from '../tools/git.js';
import { authorIdent } from '../tree/identity.js';
import { checkNoSymlinkOut } from '../tree/paths.js';
import type { KernelTree } from '../tree/tree.js';
import { applyPlans, resolveCommit, treeServices, type GenerateResult } from './generate.js';
import { distinctNames, type PlannedPatch, type SeriesPlan } from './plan.js';

export type SplitBy = 'tree' | 'group' | 'file';

export interface SplitOptions {
  tree: KernelTree;
  /** "A..B", or one commit (its parent..it); undefined with `worktree`. */
  range?: string;
  /** The uncommitted changes of the tree's checkout (tracked files), against HEAD. */
  worktree?: boolean;
  by: SplitBy;
  /** Handlebars templates of each patch's subject and body (variables: title, body, prefix, files, treeName, needs). */
  subject?: string;
  body?: string;
  /** The series' name; one per tree gets the tree's name after it. */
  series?: string;
  /** The subject prefix of every patch (default: history, else the subsystem's conventions). */
  prefix?: string;
  from?: string;
  version?: number;
  /** List archives standing in for the history a tree without it lacks (subject prefixes). */
  inboxes?: string[];
  /** What the reader should know: the prefixes the archives gave, each with the subject it follows. */
  log?: (line: string) => void;
}

/** Where a change came from: its base, its files before and after, and what its commits said. */
interface Change {
  base: string;
  /** The one commit's author, for its patches. */
  author?: string;
  files: FileChange[];
  title?: string;
  body: string;
  /** The change's diff of these files, as git diff gives it. */
  diffOf(files: string[]): Promise<string>;
}

export async function splitChange(opts: SplitOptions): Promise<GenerateResult[]> {
  const { tree } = opts;
  const change = await readChange(opts);
  if (change.files.length === 0) throw new UsageError(`${opts.range ?? 'the checkout'} changes no file`, 'give a commit or range that changes files, or --worktree with uncommitted changes');
  const title = change.title;
  if (!title && !opts.subject) throw new UsageError(`split ${opts.range ?? '--worktree'}: no one commit says what the change is`, 'name it: --subject "{{prefix}}: Use foo()" (several commits and --worktree need one)');
  // submitting-patches.rst: "Describe your changes" — checkpatch warns of a patch without a word of why.
  if (!change.body && !opts.body) throw new UsageError(`split ${opts.range ?? '--worktree'}: its patches would say nothing of why (${change.title ? 'the commit has no body' : 'no one commit gives a message'})`, 'give one: --body "..." (variables: prefix, files, treeName, body), or reword the commit with a body');
  const services = { ...(await treeServices(tree, change.base, opts.inboxes)), readFile: (f: string) => readAtCommit(tree.root, change.base, f) };
  const groups = await cut(services, change.files, opts.by, opts.prefix);
  // What the lists have had already (--inbox): left out, each named with where it was posted.
  const posted = services.posted ? await services.posted(await Promise.all(groups.map(async (g) => ({ summary: summaryOf(title ?? opts.subject!), files: g.files.map((f) => f.file), diff: await change.diffOf(g.files.map((f) => f.file)) })))) : [];
  const leftOut = posted.map((p) => leftOutLine(groups[p.patch - 1]!.prefix, p));
  const left = groups.flatMap((g, i) => withoutPosted(g, posted.filter((p) => p.patch === i + 1)));
  if (left.length === 0) throw new UsageError(`split ${opts.range ?? '--worktree'}: nothing left to make: ${leftOut.length === 1 ? leftOut[0] : `all ${leftOut.length} patches were posted already, the first ${leftOut[0]}`}`, 'the lists have it already; without --inbox the series is made all the same');
  leftOut.forEach((l) => opts.log?.(l));
  for (const g of services.archivedPrefix ? left.filter((x) => /history/.test(x.prefixSource)) : []) {
    const file = g.files[0]!.file;
    const by = await services.archivedPrefix!(file, g.prefix);
    if (by) opts.log?.(`${g.prefix}: the prefix the list archives give ${file} ("${by.subject}", <${by.messageId}>)`);
  }
  const ordered = withDependencies(left);
  // Each tree's patches within its series limit: the rest are later parts (dependencies keep their order).
  const trees = byTree(ordered).flatMap((gs) => batches(gs, rulesOf(gs[0]!.route)?.seriesLimit?.max).map((part, i, all) => Object.assign(part, { part: all.length > 1 ? i + 1 : 0 })));
  const name = opts.series ?? `split-${slug(title ?? opts.subject!)}`;
  const names = distinctNames(trees.map((gs) => [trees.length === 1 ? name : `${name}-${gs[0]!.route.slug || 'linux'}`, gs.part ? String(gs.part) : ''].filter(Boolean).join('-')));
  const subject = compileTemplate(opts.subject ?? '{{prefix}}: {{named}}{{title}}', '--subject');
  const body = compileTemplate(opts.body ?? '{{body}}{{#if needs}}\n\n{{needs}}{{/if}}', '--body');
  const author = await authorIdent(tree, change.author ?? opts.from);
  const plans = trees.map((gs, i): SeriesPlan => {
    const others = trees.filter((_, j) => j !== i).map((o) => ({ treeName: o[0]!.route.tree, series: names[trees.indexOf(o)]!, patches: o.length, files: o.reduce((n, g) => n + g.files.length, 0) }));
    const patches: PlannedPatch[] = gs.map((g) => {
      const vars: TemplateVars = { title: title ?? '', body: change.body, prefix: g.prefix, named: g.named, files: g.files.map((f) => f.file), treeName: g.route.tree, needs: needsLine(g, gs) };
      // A --body typed on the command line is one long line: wrapped as a commit message is (the commit's own is kept).
      const text = body(vars).trim();
      return { subject: oneLine(subject(vars), '--subject'), body: opts.body ? wrapParagraphs(text, 72) : text, changes: g.files };
    });
    return {
      recipe: 'split',
      name: names[i]!,
      params: { range: opts.range ?? '--worktree', by: opts.by },
      cover: { subject: title ? `${[commonPrefix(gs.map((g) => g.prefix)), title].filter(Boolean).join(': ')}` : patches[0]!.subject, body: coverBody(change, gs, others) },
      patches,
      ...(gs[0]!.route.tag ? { subjectTag: gs[0]!.route.tag } : {}),
    };
  });
  return applyPlans({ tree, plans, base: change.base, author, version: opts.version });
}

async function readChange(opts: SplitOptions): Promise<Change> {
  const { tree } = opts;
  if (opts.worktree) {
    if (opts.range) throw new UsageError('split takes a range or --worktree, not both', 'drop one');
    const base = await resolveCommit(tree, 'HEAD');
    const names = await changedFiles(tree, ['HEAD']);
    const files = await Promise.all(
      names.map(async (file) => {
        checkNoSymlinkOut(tree.root, file, 'split --worktree');
        const on = path.join(tree.root, file);
        return { file, before: await readAtCommit(tree.root, base, file), after: fs.existsSync(on) ? fs.readFileSync(on, 'utf8') : undefined };
      }),
    );
    return { base, files, body: '', diffOf: (f) => gitRaw(tree.root, ['diff', '--no-renames', 'HEAD', '--', ...f]) };
  }
  if (!opts.range) throw new UsageError('split needs a commit, a range A..B, or --worktree', 'e.g. kseries split HEAD, kseries split v6.12..my-branch');
  const [from, to] = opts.range.includes('..') ? opts.range.split(/\.\.\.?/) : [`${opts.range}^`, opts.range];
  const base = await resolveCommit(tree, from || 'HEAD');
  const tip = await resolveCommit(tree, to || 'HEAD');
  const names = await changedFiles(tree, [base, tip]);
  const files = await Promise.all(names.map(async (file) => ({ file, before: await readAtCommit(tree.root, base, file), after: await readAtCommit(tree.root, tip, file) })));
  const log = (await gitRaw(tree.root, ['log', '--reverse', '--format=%an <%ae>%x00%s%x00%b%x01', `${base}..${tip}`])).split('\x01').map((c) => c.trim()).filter(Boolean);
  const diffOf = (f: string[]) => gitRaw(tree.root, ['diff', '--no-renames', base, tip, '--', ...f]);
  if (log.length !== 1) return { base, files, body: '', diffOf };
  const [wrote, subject, body] = log[0]!.split('\0') as [string, string, string];
  // The commit's author stays the patches' author (and signs them once); --from names another.
  const author = opts.from ?? wrote;
  return {
    base,
    files,
    author,
    title: subject.replace(/^(?:[\w.+/-]+: )+/, ''),
    // Its own Signed-off-by is added again under the series' patches.
    body: (body ?? '').split('\n').filter((l) => l.trim() !== `Signed-off-by: ${author}`).join('\n').trim(),
    diffOf,
  };
}

/** Files a diff changes, renames as a deletion and an addition (each side goes where its maintainers are). */
async function changedFiles(tree: KernelTree, revs: string[]): Promise<string[]> {
  return (await gitRaw(tree.root, ['diff', '--no-renames', '--name-only', '-z', ...revs, '--'])).split('\0').filter(Boolean).sort();
}

type SplitGroup = Needing<Group<FileChange>>;

/** The groups of maintainers, or one per tree, or one per file. */
async function cut(services: GroupServices, files: FileChange[], by: SplitBy, prefix?: string): Promise<Group<FileChange>[]> {
  // One patch per driver: a group of maintainers may hold many unrelated drivers.
  const groups = await groupFiles(services, files, { by: 'driver', ...(prefix ? { prefix } : {}) });
  if (by === 'group') return groups;
  if (by === 'file') return groups.flatMap((g) => g.files.map((f) => ({ ...g, files: [f], prefix: g.files.length === 1 ? g.prefix : subjectPrefix(f.file) })));
  return byTree(groups).map((gs) => ({ ...gs[0]!, files: gs.flatMap((g) => g.files), prefix: gs.length === 1 ? gs[0]!.prefix : commonPrefix(gs.map((g) => g.prefix)) || gs[0]!.prefix.split(': ')[0]! }));
}

/** What a header's new lines define: macros, functions, structs, enums, typedefs. */
export function definedNames(change: FileChange): string[] {
  if (!/\.h$/.test(change.file)) return [];
  const added = addedLines(change);
  const names = new Set<string>();
  for (const l of added) {
    for (const m of l.matchAll(/^#\s*define\s+(\w+)|^\s*(?:struct|enum|union)\s+(\w+)\s*\{|^\s*typedef\b.*?\b(\w+)\s*;\s*$|^[A-Za-z_][\w\s*]*?\b(\w+)\s*\([^;]*\)?\s*[;{]?\s*$/g)) {
      const name = m[1] ?? m[2] ?? m[3] ?? m[4];
      if (name && !['if', 'for', 'while', 'switch', 'return', 'sizeof'].includes(name)) names.add(name);
    }
  }
  const before = change.before ?? '';
  return [...names].filter((n) => !new RegExp(`\\b${n}\\b`).test(before)).sort();
}

function addedLines(change: FileChange): string[] {
  const old = new Set((change.before ?? '').split('\n'));
  return (change.after ?? '').split('\n').filter((l) => !old.has(l));
}

/**
 * Groups in an order that builds at every patch: a group whose files use a name a header of another group adds goes
 * after that group when both are for one tree, and into it when they are not (a series cannot wait for another
 * tree's). Each group keeps what it needs from earlier patches, for its message.
 */
export function withDependencies<G extends Group<FileChange>>(groups: G[]): Needing<G>[] {
  const all: Needing<G>[] = groups.map((g) => ({ ...g, files: [...g.files], needs: [] }));
  for (const g of all) {
    for (const d of all) {
      if (d === g) continue;
      const names = d.files.flatMap(definedNames);
      const usesOf = (f: FileChange) => names.filter((n) => addedLines(f).some((l) => new RegExp(`\\b${n}\\b`).test(l)));
      const users = g.files.filter((f) => usesOf(f).length > 0);
      if (users.length === 0) continue;
      if (d.route.tree === g.route.tree) g.needs.push({ group: d, names: [...new Set(users.flatMap(usesOf))] });
      else {
        // Another tree's series cannot wait for this one: the files go with the header that adds what they use.
        d.files.push(...users);
        g.files = g.files.filter((f) => !users.includes(f));
      }
    }
  }
  // Definers first: a stable order in which every group comes after the groups it needs.
  const kept = all.filter((g) => g.files.length > 0);
  const done: Needing<G>[] = [];
  const visit = (g: Needing<G>, seen: Set<Needing<G>>) => {
    if (done.includes(g) || seen.has(g) || !kept.includes(g)) return;
    seen.add(g);
    for (const n of g.needs) visit(n.group, seen);
    done.push(g);
  };
  for (const g of kept) visit(g, new Set());
  return done;
}

export type Needing<G> = G & { needs: { group: Needing<G>; names: string[] }[] };

/** The sentence a patch's message says about the earlier patches it needs. */
function needsLine(g: SplitGroup, series: SplitGroup[]): string {
  const needs = g.needs.filter((n) => series.includes(n.group));
  return needs.map((n) => `This needs ${n.names.join(', ')}, which the patch for ${n.group.prefix} adds earlier in this series.`).join(' ');
}

function coverBody(change: Change, groups: SplitGroup[], others: { treeName: string; series: string; patches: number; files: number }[]): string {
  const files = groups.reduce((n, g) => n + g.files.length, 0);
  const lines = [`${change.body ? `${change.body}\n\n` : ''}${wrapParagraphs(`These ${groups.length} patches are the part of the change for ${groups[0]!.route.tree || 'one tree'}: ${files} file${files === 1 ? '' : 's'}, one patch per group of maintainers.`, 72)}`];
  // A maintainer reads of the other trees' series, and needs no list of them (their names are in the JSON).
  const line = othersLine([...new Set(others.map((o) => o.treeName))]);
  if (line) lines.push('', line);
  return lines.join('\n');
}

function oneLine(text: string, what: string): string {
  const t = text.trim();
  if (!t || t.includes('\n')) throw new UsageError(`${what} must render to one non-empty line, got ${JSON.stringify(t)}`, 'fix the template');
  return t;
}

function slug(text: string): string {
  // Whole words up to 40 characters: "replace-usr-bin-python3-shebangs-with", not "...-with-en".
  const words = text.toLowerCase().replace(/\{\{[^}]*\}\}/g, '').split(/[^a-z0-9]+/).filter(Boolean);
  let out = '';
  for (const w of words) {
    if (out && out.length + 1 + w.length > 40) break;
    out = out ? `${out}-${w}` : w.slice(0, 40);
  }
  return out || 'change';
}
