// The rules of the tree a series goes to (subsystems/conventions.ts' TREES), as generate, split and check apply
// them: where each is written (a file of the tree and its line, found in the tree at hand, or an address), how big
// a series may be, which tag its subjects carry. Pure but for reading the tree through `read`.
import type { RuleSource, TreeRules } from './conventions.js';
import { treeRules, type Route } from './route.js';

export type { TreeRules } from './conventions.js';

/** The rules of the tree a route goes to, if the table knows the tree. */
export function rulesOf(route: Pick<Route, 'tree' | 'profile'>): TreeRules | undefined {
  return treeRules(route.tree.split(' ')[0]!, route.profile);
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
