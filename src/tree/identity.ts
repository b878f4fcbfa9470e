// Who the user is: "Name <email>" from an option or the tree's git config.
import { UsageError } from '../errors.js';
import { gitTry } from '../tools/git.js';
import type { KernelTree } from './tree.js';

/** "Name <email>" from --from or the tree's git config. */
export async function authorIdent(tree: KernelTree, from?: string): Promise<string> {
  if (from !== undefined) {
    splitIdent(from);
    return from.trim();
  }
  const name = (await gitTry(tree.root, ['config', 'user.name']))?.trim();
  const email = (await gitTry(tree.root, ['config', 'user.email']))?.trim();
  if (!name || !email) {
    throw new UsageError('no author: git config user.name/user.email are not set', 'pass --from "Your Name <you@example.org>" or run git config --global user.name/user.email');
  }
  return `${name} <${email}>`;
}

export function splitIdent(ident: string): { name: string; email: string } {
  const m = /^\s*([^<>]+?)\s*<([^<>\s]+@[^<>\s]+)>\s*$/.exec(ident);
  if (!m) throw new UsageError(`--from ${JSON.stringify(ident)} is not "Name <email>"`, 'e.g. --from "Ada Lovelace <ada@example.org>"');
  return { name: m[1]!, email: m[2]! };
}
