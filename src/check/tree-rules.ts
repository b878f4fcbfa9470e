// The rules of the tree a range goes to, one registered entry each, as its maintainers and their bots apply them: the
// series limit (the tree's, else submitting-patches.rst's), the column limit of added lines, the tag in the subjects
// of mailed patches. The `tree` check (checks/tree.ts) runs every registered rule; each problem cites where its rule
// is written. generate and split read the same table (subsystems/conventions.ts TREES, through profile.ts) to cut
// series within the limit and to leave out clean-ups a tree discourages.
import { routeOf, type MaintainersEntry, type Route } from '../subsystems/route.js';
import { cite, rulesOf, saying, type TreeRules } from '../subsystems/profile.js';
import type { RuleSource } from '../subsystems/conventions.js';
import { sectionsPerFile } from '../tools/kernel-scripts.js';
import type { KernelTree } from '../tree/tree.js';
import { SERIES_MAX, SUBMITTING, type Problem } from './rules.js';

/** What a rule reads besides the mails: the tree the range goes to, its rules, and where a rule is written. */
export interface TreeRuleContext {
  /** The tree most of the range's files go to, with its rules; undefined where the table does not know the tree. */
  found?: { route: Route; rules: TreeRules };
  /** A rule's words and where they are written, as a report quotes them ("...: file:line" of the tree at hand). */
  cited(source: RuleSource): Promise<string>;
}

export interface TreeRule {
  kind: string;
  /** The problems of one patch: its mail, and its subject as mailed (undefined for a commit not yet mailed). */
  patch?(mail: string, subject: string | undefined, t: TreeRuleContext): Promise<Problem[]>;
  /** The problems of the series as a whole. */
  series?(mails: string[], t: TreeRuleContext): Promise<Problem[]>;
}

const TREE_RULES: TreeRule[] = [];

/** Register a rule; the same kind again keeps the first. */
export function registerTreeRule(r: TreeRule): void {
  if (!TREE_RULES.some((x) => x.kind === r.kind)) TREE_RULES.push(r);
}

export function treeRules(): readonly TreeRule[] {
  return TREE_RULES;
}

/** The files a patch mail changes (its `diff --git` headers, new side). */
export function mailFiles(mail: string): string[] {
  return [...new Set([...mail.matchAll(/^diff --git a\/\S+ b\/(\S+)$/gm)].map((m) => m[1]!))];
}

/** The tree most of a range's files go to (`all`: the base's MAINTAINERS), with its rules; undefined for a tree the table does not know. */
export async function rangeRules(tree: KernelTree, all: MaintainersEntry[], mails: string[]): Promise<{ route: Route; rules: TreeRules } | undefined> {
  const files = [...new Set(mails.flatMap(mailFiles))];
  if (files.length === 0) return undefined;
  const per = await sectionsPerFile(tree.root, files);
  const routes = files.map((f, i) => routeOf(f, per[i]!, all));
  const counts = new Map<string, number>();
  for (const r of routes) counts.set(r.tree, (counts.get(r.tree) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  const route = routes.find((r) => r.tree === top)!;
  const rules = rulesOf(route);
  return rules ? { route, rules } : undefined;
}

/** Added lines over the tree's column limit (tabs to 8), as its bot's checkpatch run reports them. */
export function longLines(mail: string, max: number): { file: string; line: number; columns: number }[] {
  const out: { file: string; line: number; columns: number }[] = [];
  let file = '';
  let line = 0;
  for (const l of mail.split('\n')) {
    const plus = /^\+\+\+ b\/(.*)$/.exec(l);
    if (plus) file = plus[1]!;
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)/.exec(l);
    if (hunk) line = Number(hunk[1]);
    else if (file && l.startsWith('+') && !l.startsWith('+++')) {
      const columns = expandTabs(l.slice(1)).length;
      if (columns > max) out.push({ file, line, columns });
      line++;
    } else if (file && l.startsWith(' ')) line++;
  }
  return out;
}

function expandTabs(s: string): string {
  let out = '';
  for (const c of s) out += c === '\t' ? ' '.repeat(8 - (out.length % 8)) : c;
  return out;
}

registerTreeRule({
  kind: 'tree-columns',
  async patch(mail, _subject, { found, cited }) {
    const columns = found?.rules.columns;
    if (!columns) return [];
    const long = longLines(mail, columns.max);
    const rule = long.length ? await cited(columns.source) : '';
    return long.map((l) => ({ kind: 'tree-columns', severity: 'warning', message: `${l.file}:${l.line}: ${l.columns} columns, over the ${columns.max} ${found.route.tree} applies: ${rule}` }));
  },
});

registerTreeRule({
  kind: 'tree-tag',
  async patch(_mail, subject, { found, cited }) {
    const tag = found?.rules.tag;
    if (!tag || subject === undefined || new RegExp(`^\\[[^\\]]*\\b(${tag.next}|${tag.fixes ?? tag.next})\\b[^\\]]*\\]`).test(subject)) return [];
    return [{ kind: 'tree-tag', severity: 'warning', message: `the subject names no tree: ${found.route.tree} asks for [PATCH ${tag.next}]${tag.fixes ? ` (or [PATCH ${tag.fixes}] for a fix)` : ''}: ${await cited(tag.source)}` }];
  },
});

registerTreeRule({
  kind: 'series-length',
  async series(mails, { found, cited }) {
    const limit = found?.rules.seriesLimit;
    if (limit && mails.length > limit.max) return [{ kind: 'series-length', severity: 'warning', message: `${mails.length} patches for ${found.route.tree}, over its limit of ${limit.max}: ${await cited(limit.source)}` }];
    if (!limit && mails.length > SERIES_MAX) return [{ kind: 'series-length', severity: 'warning', message: `${mails.length} patches: post about ${SERIES_MAX} at a time (${SUBMITTING}, "Separate your changes")` }];
    return [];
  },
});

/**
 * Each patch's problems with the rules of the tree the range goes to (`found`, undefined for a tree the table does
 * not know: the general rules only), and the series' own. `subjects`: the mailed subjects, where the patches were
 * mailed; `read`: the tree's files, for the line a rule is written on.
 */
export async function treeRuleProblems(read: (file: string) => Promise<string | undefined>, found: { route: Route; rules: TreeRules } | undefined, mails: string[], subjects: (string | undefined)[]): Promise<{ patches: Problem[][]; series: Problem[] }> {
  const t: TreeRuleContext = { ...(found ? { found } : {}), cited: async (s) => `${saying(s)} (${await cite(s, read)})` };
  const patches = await Promise.all(mails.map(async (mail, i) => (await Promise.all(TREE_RULES.map((r) => r.patch?.(mail, subjects[i], t) ?? []))).flat()));
  const series = (await Promise.all(TREE_RULES.map((r) => r.series?.(mails, t) ?? []))).flat();
  return { patches, series };
}
