import { scanStaticKeys } from '../scan/static-keys.js';
import { openTree } from '../tree/tree.js';
import { printJson, type GlobalOptions, type Io } from './io.js';

export async function scan(io: Io, g: GlobalOptions, a: { paths: string[]; rev?: string }): Promise<number> {
  const tree = await openTree({ cwd: io.cwd, tree: g.tree, env: io.env });
  const candidates = await scanStaticKeys(tree, a.paths, a.rev);
  if (g.json) {
    printJson(io, { candidates });
    return 0;
  }
  const count = (v: string) => candidates.filter((c) => c.verdict === v).length;
  for (const c of candidates.filter((x) => x.verdict !== 'reject')) {
    io.out(`${c.verdict.padEnd(7)}${c.file}:${c.line} ${c.variable} (${c.reads.length} reads, ${c.writes.length} writes)`);
    if (c.verdict === 'manual') for (const r of c.reasons) io.out(`         ${r}`);
  }
  io.out(`${candidates.length} flags: ${count('auto')} auto, ${count('manual')} manual, ${count('reject')} rejected (--json lists the reasons of all)`);
  return 0;
}
