// The rules of the tree a series goes to (subsystems/conventions.ts' TREES), as generate, split and check apply
// them: where each is written (a file of the tree and its line, found in the tree at hand, or an address), how big
// a series may be, which tag its subjects carry. Pure but for reading the tree through `read`.
import type { RuleSource, TreeRules } from './conventions.js';
import { treeRules, type Route } from './route.js';

export type { TreeRules } from './conventions.js';

/**
 * The rules of the tree a route goes to, if the table knows the tree; a tree whose patches land through another
 * (`through`) has that tree's rules where it has none of its own, each still naming where it is written.
 */
export function rulesOf(route: Pick<Route, 'tree' | 'profile'>): TreeRules | undefined {
  const own = treeRules(route.tree.split(' ')[0]!, route.profile);
  const parent = own?.through && treeRules(own.through.repo);
  if (!own || !parent) return own;
  return { ...own, seriesLimit: own.seriesLimit ?? parent.seriesLimit, columns: own.columns ?? parent.columns, cleanups: own.cleanups ?? parent.cleanups };
}

/**
 * A tree rule as a report says it: its words and where they are written, and for a rule of the tree a series lands
 * through, that tree and why (`"..." (file:line), the rule of netdev/net-next, which applies its patches (...)`).
 */
export async function ruleSaying(rules: TreeRules, source: RuleSource, read: (file: string) => Promise<string | undefined>): Promise<string> {
  const said = `${saying(source)} (${await cite(source, read)})`;
  const parent = rules.through && treeRules(rules.through.repo);
  const inherited = parent && [parent.cleanups?.source, parent.seriesLimit?.source, parent.columns?.source].includes(source);
  return inherited ? `${said}, the rule of ${rules.through!.repo}, which applies its patches (${saying(rules.through!.source)}: ${await cite(rules.through!.source, read)})` : said;
}

/**
 * Where a rule is written, as a report names it: "Documentation/process/maintainer-netdev.rst:351" (the line of the
 * tree's file that holds the quote; the file alone when this tree's copy does not), or the page's address.
 */
export async function cite(source: RuleSource, read: (file: string) => Promise<string | undefined>): Promise<string> {
  if ('url' in source) return source.url;
  const text = await read(source.file);
  const line = text?.split('\n').findIndex((l) => l.includes(source.quote)) ?? -1;
  return line >= 0 ? `${source.file}:${line + 1}` : source.file;
}

/** What the source says, in a sentence a report can quote. */
export function saying(source: RuleSource): string {
  return 'url' in source ? source.says : `"${source.quote}"`;
}

/** A tree's groups as series within its limit: n patches into ceil(n / max) parts of nearly equal size, in order. */
export function batches<G>(groups: G[], max: number | undefined): G[][] {
  if (!max || groups.length <= max) return [groups];
  const parts = Math.ceil(groups.length / max);
  const size = Math.ceil(groups.length / parts);
  return Array.from({ length: parts }, (_, i) => groups.slice(i * size, (i + 1) * size));
}
