// Recipe cocci: a Coccinelle semantic patch (the tree's own, or the user's) run over paths of the tree, cut into one
// series per maintainer tree and one patch per maintainer group. Messages say only what the script and its diff say.
import path from 'node:path';
import { NoChangeError, RecipeError } from '../../errors.js';
import { cocciRequest, diffFiles, locateScript, type DiffFile, type LocatedScript } from '../../edits/cocci.js';
import { hunkPlaces, withoutConstDiscards, withoutDeadHunks, wrapAdded } from '../../edits/hunks.js';
import { byTree, commonPrefix, groupFiles, othersLine, type Group } from '../../subsystems/groups.js';
import { batches, cite, rulesOf, ruleSaying } from '../../subsystems/profile.js';
import { SUMMARY_MAX } from '../../check/rules.js';
import { leftOutLine, summaryOf, withoutPosted } from '../../mail/posted.js';
import type { TemplateVars } from '../../templates/render.js';
import type { RecipeCode, RecipeContext } from '../types.js';

export { commonPrefix, othersLine } from '../../subsystems/groups.js';

export const cocci: RecipeCode = {
  id: 'cocci',

  async prepare(ctx, params) {
    if (!ctx.spatch) throw new RecipeError('cocci: the recipe runs spatch on the tree, which is not available here', 'run it through kseries generate');
    const given = String(params.script);
    // A file of the user's is named relative to where kseries runs; the cocci edit then gets its absolute path.
    const script = await locateScript(given, process.cwd(), ctx.readFile);
    const { paths, options } = cocciRequest([String(params.paths)], [String(params.options)], 'cocci: --path');
    // In path order, so the patches of a series are too.
    const made = diffFiles(await ctx.spatch(script, paths, options)).sort((a, b) => a.file.localeCompare(b.file));
    const where = paths.join(', ') || 'the tree';
    if (made.length === 0) throw new NoChangeError(`spatch ${given} changes nothing in ${where}`, 'the script matches no code there; try another --path');
    // Code the compiler never sees is no change a maintainer wants: its hunks are left out, and named.
    const { files, dead, discards } = await keptFiles(ctx, made, await constReturning(ctx, newCalls(made)));
    if (files.length === 0) throw new NoChangeError(`spatch ${given} changes only code inside #if 0 in ${where}`, 'the script matches no live code there; try another --path');
    const named = String(params.title);
    // A subject within 75 columns (submitting-patches.rst): the helpers named only where they fit after the prefix.
    const title = (of: DiffFile[], prefix = '') => named || titleOf(script, newCalls(of), SUMMARY_MAX - (prefix ? prefix.length + 2 : 0));
    // The header search and get_maintainer.pl runs are independent: side by side.
    const [needs, grouped] = await Promise.all([includesNeeded(ctx, files), groupFiles(ctx, files, { by: 'driver', ...(params.prefix ? { prefix: String(params.prefix) } : {}) })]);
    // What the lists have had already (generate --inbox): left out, a patch or the files of it posted, each named with
    // where it was posted.
    const posted = ctx.posted ? await ctx.posted(grouped.map((g) => ({ summary: summaryOf(`${g.prefix}: ${g.named}${title(g.files, g.prefix + g.named)}`), files: g.files.map((f) => f.file), diff: g.files.map((f) => f.text).join('') }))) : [];
    const postedNotices = posted.map((p) => leftOutLine(grouped[p.patch - 1]!.prefix, p));
    const kept = grouped.flatMap((g, i) => withoutPosted(g, posted.filter((p) => p.patch === i + 1)));
    // Each tree's column limit (netdev's 80) on the lines spatch added, where C lets them break.
    const groups = kept.map((g) => {
      const w = wrapped(g);
      return { ...groupVars(w.group, title(g.files, g.prefix + g.named), needs), wrappedLines: w.count, columnLimit: w.max };
    });
    const medium = /^(medium|moderate|low)$/i.test(script.confidence ?? '');
    const name = script.inTree ? script.file : path.basename(script.file);
    const { parts, notices } = await seriesParts(ctx, byTree(groups), params.force === true || params.rfc === true);
    notices.unshift(...postedNotices);
    if (parts.length === 0) throw new RecipeError(`${given} under ${where}: ${notices.join('; ')}`, 'add --set force=true to make it all the same, or --set rfc=true to ask as an RFC');
    if (!params.why) notices.push(`the messages say what ${name} changes, not why it is better: say it with --set why="..." (kseries check adds what each patch costs below its ---)`);
    // A tree without history whose prefixes came from the archives (generate --inbox): each with the subject it follows.
    if (ctx.archivedPrefix) {
      const cited: string[] = [];
      for (const g of groups.filter((x) => /history/.test(x.prefixSource))) {
        const by = await ctx.archivedPrefix(g.diffs[0]!.file, g.prefix);
        if (by) cited.push(`${g.prefix} ("${by.subject}", <${by.messageId}>)`);
      }
      if (cited.length) notices.push(`the tree has no history: subject prefixes from the list archives: ${cited.join(', ')}`);
    }
    const coverPrefix = commonPrefix(groups.map((g) => g.prefix));
    const guessed = groups.filter((g) => g.confirmPrefix && !orphaned(g)).map((g) => `${g.prefix}${g.prefixAlso ? ` or ${g.prefixAlso}` : ''} (${g.prefixSource}: ${g.fileList.split(',')[0]})`);
    if (guessed.length) notices.push(`the tree has no history to learn subject prefixes from; confirm ${guessed.length === 1 ? 'this one' : `these ${guessed.length}`} or give --set prefix=...: ${guessed.join(', ')}`);
    return {
      scriptPath: script.inTree ? given : script.file,
      scriptName: name,
      scriptStem: path.basename(script.file).replace(/\.cocci$/, '').replace(/[^A-Za-z0-9._-]+/g, '-'),
      description: script.description ?? false,
      why: String(params.why ?? ''),
      // A script of the user's goes into the messages: the maintainer cannot read it anywhere else.
      ownScript: script.inTree ? false : script.text.replace(/\s+$/, ''),
      optionLine: [...(script.virtuals.includes('patch') ? ['-D', 'patch'] : []), ...script.options, ...options].join(' '),
      title: title(files, coverPrefix),
      where,
      ...treeVars(groups),
      suffix: '',
      treeName: '',
      subjectTag: '',
      others: false,
      coverPrefix,
      part: 0,
      partCount: 0,
      rule: false,
      // A script that rates its own confidence Medium or Low: every change is named in the cover for review.
      confidence: medium ? script.confidence! : false,
      dead,
      discards,
      notices,
      trees: parts.map((p) => ({ p, prefix: commonPrefix(p.groups.map((g) => g.prefix)) })).map(({ p, prefix }) => ({
        ...treeVars(p.groups),
        // The paths asked for that hold this series' files: its cover names no other tree's folders.
        where: paths.filter((x) => p.groups.some((g) => g.files.some((f) => f.file === x || f.file.startsWith(`${x.replace(/\/$/, '')}/`)))).join(', ') || where,
        title: title(p.groups.flatMap((g) => g.diffs), prefix),
        coverPrefix: prefix,
        treeName: p.groups[0]!.route.tree,
        suffix: [p.groups[0]!.route.slug, p.count > 1 ? String(p.index) : ''].filter(Boolean).join('-'),
        subjectTag: p.groups[0]!.route.tag ?? '',
        part: p.count > 1 ? p.index : 0,
        partCount: p.count > 1 ? p.count : 0,
        rule: p.rule ?? false,
        others: othersLine(parts.filter((o) => o.groups[0]!.route.tree !== p.groups[0]!.route.tree && o.index === 1).map((o) => o.groups[0]!.route.tree)),
      })),
    };
  },
};

interface SeriesPart {
  groups: GroupVars[];
  /** 1-based; count > 1 when the tree's limit cut its patches into several series. */
  index: number;
  count: number;
  /** The tree's rule this series is made against (a discouraged clean-up made with force or as an RFC), cited. */
  rule?: string;
}

/**
 * Each tree's patches as series its maintainers take: within the tree's series limit (the rest as later parts),
 * and none for a tree that discourages stand-alone clean-ups unless `force` (the rule then named in its cover).
 */
async function seriesParts(ctx: RecipeContext, trees: GroupVars[][], force: boolean): Promise<{ parts: SeriesPart[]; notices: string[] }> {
  const parts: SeriesPart[] = [];
  const notices: string[] = [];
  for (const all of trees) {
    for (const g of all.filter(orphaned)) notices.push(`${g.route.entry} is orphaned (S: ${g.route.status} in MAINTAINERS): ${g.fileCount} file${g.fileCount === 1 ? '' : 's'} left out (${g.fileList.replace(/,/g, ', ')})`);
    const gs = all.filter((g) => !orphaned(g));
    if (gs.length === 0) continue;
    const rules = rulesOf(gs[0]!.route);
    const discouraged = rules?.cleanups;
    const rule = discouraged ? await ruleSaying(rules!, discouraged.source, ctx.readFile) : undefined;
    if (rule && !force) {
      notices.push(`${gs[0]!.route.tree} is left out (${gs.length} patch${gs.length === 1 ? '' : 'es'}): ${rule}`);
      continue;
    }
    const cut = batches(gs, rules?.seriesLimit?.max);
    cut.forEach((groups, i) => parts.push({ groups, index: i + 1, count: cut.length, ...(rule ? { rule } : {}) }));
    if (cut.length > 1) notices.push(`${gs[0]!.route.tree}: ${gs.length} patches are over its limit of ${rules!.seriesLimit!.max} (${await cite(rules!.seriesLimit!.source, ctx.readFile)}): ${cut.length} series to post one after another`);
  }
  return { parts, notices };
}

/** A clean-up of a driver whose entry says `S: Orphan` has no maintainer to take it: named, not sent. */
function orphaned(g: { route: { status?: string } }): boolean {
  return /^orphan/i.test(g.route.status ?? '');
}

type GroupVars = ReturnType<typeof groupVars> & { wrappedLines: number; columnLimit: number };

/**
 * The files' diffs without the hunks a maintainer would not take: those that change only `#if 0` code, and those
 * that put what a `const char *` helper returns into a `char *` (a new warning, an error under CONFIG_WERROR); where
 * each was ("drivers/x.c:120").
 */
async function keptFiles(ctx: RecipeContext, files: DiffFile[], constFns: ReadonlySet<string>): Promise<{ files: DiffFile[]; dead: string[]; discards: string[] }> {
  const dead: string[] = [];
  const discards: string[] = [];
  const kept: DiffFile[] = [];
  for (const f of files) {
    const base = (await ctx.readFile(f.file)) ?? '';
    const live = withoutDeadHunks(f.text, base);
    const typed = live.text ? withoutConstDiscards(live.text, base, constFns) : { text: '', dropped: [] };
    dead.push(...live.dropped.map((line) => `${f.file}:${line}`));
    discards.push(...typed.dropped.map((line) => `${f.file}:${line}`));
    if (typed.text) kept.push(live.dropped.length || typed.dropped.length ? diffFiles(typed.text)[0]! : f);
  }
  return { files: kept, dead, discards };
}

/** Which of `calls` return `const char *`, as the header that declares each says (a macro: the function it calls). */
async function constReturning(ctx: RecipeContext, calls: string[]): Promise<Set<string>> {
  const headers = (await ctx.headersOf?.(calls)) ?? new Map<string, string>();
  const out = new Set<string>();
  for (const call of calls) {
    const header = headers.get(call);
    const text = header ? ((await ctx.readFile(`include/${header}`)) ?? '') : '';
    const esc = call.replace(/[^\w]/g, '');
    const macro = new RegExp(`^#define\\s+${esc}\\([^)]*\\)\\s+(\\w+)\\(`, 'm').exec(text)?.[1];
    if (new RegExp(`const\\s+char\\s*\\*\\s*${macro ?? esc}\\s*\\(`).test(text)) out.add(call);
  }
  return out;
}

/**
 * A group's diffs with the added lines over its tree's column limit wrapped, and how many were: netdev's 80 (its
 * bot's), else coding-style.rst's preferred 80 for every tree (a script's joined lines reach 110 in iwlegacy).
 */
function wrapped(g: Group<DiffFile>): { group: Group<DiffFile>; count: number; max: number } {
  const max = rulesOf(g.route)?.columns?.max ?? CODING_STYLE_COLUMNS;
  const done = g.files.map((f) => ({ f, w: wrapAdded(f.text, max) }));
  return { group: { ...g, files: done.map(({ f, w }) => ({ ...f, text: w.text })) }, count: done.reduce((n, d) => n + d.w.wrapped, 0), max };
}

function groupVars(g: Group<DiffFile>, title: string, needs: Map<string, IncludeNeeded[]>) {
  const includes = g.files.flatMap((f) => needs.get(f.file) ?? []);
  return {
    includes,
    headers: [...new Set(includes.map((i) => i.header))].sort().map((header) => ({ header, files: includes.filter((i) => i.header === header).map((i) => i.file), calls: [...new Set(includes.filter((i) => i.header === header).flatMap((i) => i.calls))].sort().map((c) => `${c}()`) })),
    prefix: g.prefix,
    // What the body calls the driver: its name, or the prefix's last word ("iwlegacy" of "wifi: iwlegacy").
    driverName: g.driver?.name ?? g.prefix.split(/[:/ ]+/).pop()!,
    prefixSource: g.prefixSource,
    confirmPrefix: g.confirmPrefix,
    ...(g.prefixAlso ? { prefixAlso: g.prefixAlso } : {}),
    route: g.route,
    groupTitle: g.named + (g.lower ? title[0]!.toLowerCase() + title.slice(1) : title),
    files: g.files.map((f) => ({ file: f.file, sites: f.sites })),
    diffs: g.files,
    diffText: g.files.map((f) => f.text).join(''),
    places: g.files.map((f) => hunkPlaces(f.file, f.text)),
    fileList: g.files.map((f) => f.file).join(','),
    fileCount: g.files.length,
    sites: g.files.reduce((n, f) => n + f.sites, 0),
    maintainers: g.maintainers,
  };
}

/** What a series' cover letter counts: its patches (groups), files and changed places. */
function treeVars(groups: GroupVars[]): TemplateVars {
  return {
    groups,
    groupCount: groups.length,
    fileCount: groups.reduce((n, g) => n + g.fileCount, 0),
    sites: groups.reduce((n, g) => n + g.sites, 0),
    // The includes kseries added, which the script did not: "<linux/string_choices.h>".
    headersAdded: [...new Set(groups.flatMap((g) => g.headers.map((h) => `<${h.header}>`)))].sort(),
  };
}

interface IncludeNeeded {
  file: string;
  header: string;
  /** The #include line the new one goes before or after (a regular expression matching that whole line). */
  anchor: string;
  position: 'before' | 'after';
  /** The calls that need it. */
  calls: string[];
}

/**
 * The #include lines the script does not add though the files now call what a header declares ("str_plural()",
 * linux/string_choices.h): a patch builds on its own only with them. A file that includes the header already, or
 * has no <linux/...> include to sort it among, gets none.
 */
async function includesNeeded(ctx: RecipeContext, files: DiffFile[]): Promise<Map<string, IncludeNeeded[]>> {
  const out = new Map<string, IncludeNeeded[]>();
  if (!ctx.headersOf) return out;
  const callsOf = new Map(files.map((f) => [f.file, newCalls([f])]));
  const headers = await ctx.headersOf([...new Set([...callsOf.values()].flat())].sort());
  for (const f of files) {
    const text = (await ctx.readFile(f.file)) ?? '';
    const byHeader = new Map<string, string[]>();
    for (const call of callsOf.get(f.file)!) {
      const header = headers.get(call);
      if (header && !new RegExp(`^#\\s*include\\s*[<"]${escape(header)}[>"]`, 'm').test(text)) byHeader.set(header, [...(byHeader.get(header) ?? []), call]);
    }
    const needed = [...byHeader].flatMap(([header, calls]) => {
      const place = includePlace(text, header);
      return place ? [{ file: f.file, header, calls, ...place }] : [];
    });
    if (needed.length) out.set(f.file, needed);
  }
  return out;
}

/** Where `#include <header>` goes among a file's <dir/...> includes: before the first that sorts after it, else after the last. */
export function includePlace(text: string, header: string): { anchor: string; position: 'before' | 'after' } | undefined {
  const dir = header.split('/')[0]!;
  const lines = text.split('\n').filter((l) => new RegExp(`^#include <${escape(dir)}/[^>]+>`).test(l));
  if (lines.length === 0) return undefined;
  const later = lines.find((l) => /<([^>]+)>/.exec(l)![1]!.localeCompare(header) > 0);
  const line = later ?? lines[lines.length - 1]!;
  return { anchor: `^${escape(line)}$`, position: later ? 'before' : 'after' };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** "The preferred limit on the length of a single line is 80 columns." (Documentation/process/coding-style.rst) */
const CODING_STYLE_COLUMNS = 80;

/** Verbs a script's description starts with when it says what it changes ("Use kmemdup rather than ..."). */
const IMPERATIVE = /^(Use|Remove|Drop|Replace|Convert|Correct|Compare|Simplify|Fix|Make sure|Avoid|Add)\b/;

/**
 * A subject's words from the script's description: its first sentence when it says what the script changes ("Remove
 * unneeded conversion to bool"), "Find places to use X" as "Use X"; else the helpers the files now call, up to three
 * ("Use max()"); else "Apply <script>". A script about using helpers names the ones these files now call ("Use
 * str_plural() and str_on_off()") where they fit in `room` columns, else says its own words.
 */
export function titleOf(script: Pick<LocatedScript, 'description' | 'file'>, calls: string[] = [], room = SUMMARY_MAX): string {
  const first = (script.description ?? '').split(/(?<=\.)\s/)[0]!.replace(/\.$/, '').trim();
  const found = /^Find (?:places|cases|code) (?:to|where) (\w.*)$/i.exec(first);
  const said = found ? found[1]![0]!.toUpperCase() + found[1]!.slice(1) : first;
  const use = calls.length > 0 && calls.length <= 3 ? `Use ${calls.map((c) => `${c}()`).join(calls.length === 2 ? ' and ' : ', ').replace(/, ([^,]+)$/, ' and $1')}` : undefined;
  if (/^Use\b/.test(said) && use && use.length <= room) return use;
  if (IMPERATIVE.test(said) && said.length <= Math.min(60, room)) return said;
  return use ?? `Apply ${path.basename(script.file)}`;
}

/** Words C uses like calls: never a helper a patch starts to use. */
const NOT_CALLS = new Set(['if', 'for', 'while', 'switch', 'return', 'sizeof', 'typeof', '__typeof__', 'defined']);

/** The functions (and function-like macros) the diffs' new lines call that their old lines did not, sorted. */
export function newCalls(diffs: Pick<DiffFile, 'text'>[]): string[] {
  const calls = (sign: string) => {
    const found = new Set<string>();
    for (const d of diffs) {
      for (const l of d.text.split('\n')) {
        if (!l.startsWith(sign) || l.startsWith(`${sign}${sign}${sign} `)) continue;
        for (const m of l.slice(1).matchAll(/\b([A-Za-z_]\w*)\s*\(/g)) if (!NOT_CALLS.has(m[1]!)) found.add(m[1]!);
      }
    }
    return found;
  };
  const old = calls('-');
  return [...calls('+')].filter((c) => !old.has(c)).sort();
}
