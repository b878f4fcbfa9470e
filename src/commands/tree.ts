import { provisionTree } from '../tree/provision.js';
import { openTree } from '../tree/tree.js';
import { gitRaw } from '../tools/git.js';
import { printJson, type GlobalOptions, type Io } from './io.js';

export async function treeInit(io: Io, g: GlobalOptions, from?: string): Promise<number> {
  const p = await provisionTree({ cwd: io.cwd, tree: g.tree, from, env: io.env, log: (l) => io.err(l) });
  if (g.json) printJson(io, { root: p.tree.root, version: p.tree.version, how: p.how, link: p.link ?? null });
  else io.out(`Linux ${p.tree.version} at ${p.tree.root} (${p.how})${p.link ? `, linked from ${p.link}` : ''}`);
  return 0;
}

export async function treeShow(io: Io, g: GlobalOptions): Promise<number> {
  const t = await openTree({ cwd: io.cwd, tree: g.tree, env: io.env });
  const head = (await gitRaw(t.root, ['rev-parse', 'HEAD'])).trim();
  if (g.json) printJson(io, { root: t.root, version: t.version, head });
  else io.out(`Linux ${t.version} at ${t.root}, HEAD ${head.slice(0, 12)}`);
  return 0;
}
