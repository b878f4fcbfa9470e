// The rules of the tree a range goes to (subsystems/conventions.ts' TREES, which MAINTAINERS routing picks), checked
// as its maintainers' bots check them: the series limit, the column limit of added lines, the tag in the subjects of
// mailed patches, and whether the tree takes stand-alone clean-ups. Each problem cites where its rule is written.
import { routeOf, type MaintainersEntry, type Route } from '../subsystems/route.js';
import { cite, rulesOf, saying, type TreeRules } from '../subsystems/profile.js';
import { sectionsPerFile } from '../tools/kernel-scripts.js';
import type { KernelTree } from '../tree/tree.js';
import type { Problem } from './rules.js';

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

/**
 * Each patch's problems with the tree's rules, and the series' own. `subjects`: the mailed subjects, where the
 * patches were mailed; `read`: the tree's files, for the line a rule is written on.
 */
export async function treeRuleProblems(read: (file: string) => Promise<string | undefined>, found: { route: Route; rules: TreeRules }, mails: string[], subjects: (string | undefined)[]): Promise<{ patches: Problem[][]; series: Problem[] }> {
  const { rules, route } = found;
  const where = route.tree;
  const columns = rules.columns ? `${saying(rules.columns.source)} (${await cite(rules.columns.source, read)})` : '';
  const tag = rules.tag ? `${saying(rules.tag.source)} (${await cite(rules.tag.source, read)})` : '';
  const patches = mails.map((mail, i) => {
    const problems: Problem[] = [];
    if (rules.columns) {
      for (const l of longLines(mail, rules.columns.max)) {
        problems.push({ kind: 'tree-columns', severity: 'warning', message: `${l.file}:${l.line}: ${l.columns} columns, over the ${rules.columns.max} ${where} applies: ${columns}` });
      }
    }
    const subject = subjects[i];
    if (rules.tag && subject !== undefined && !new RegExp(`^\\[[^\\]]*\\b(${rules.tag.next}|${rules.tag.fixes ?? rules.tag.next})\\b[^\\]]*\\]`).test(subject)) {
      problems.push({ kind: 'tree-tag', severity: 'warning', message: `the subject names no tree: ${where} asks for [PATCH ${rules.tag.next}]${rules.tag.fixes ? ` (or [PATCH ${rules.tag.fixes}] for a fix)` : ''}: ${tag}` });
    }
    return problems;
  });
  const series: Problem[] = [];
  if (rules.seriesLimit && mails.length > rules.seriesLimit.max) {
    series.push({ kind: 'series-length', severity: 'warning', message: `${mails.length} patches for ${where}, over its limit of ${rules.seriesLimit.max}: ${saying(rules.seriesLimit.source)} (${await cite(rules.seriesLimit.source, read)})` });
  }
  return { patches, series };
}
