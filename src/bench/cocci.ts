// Bench case: `kseries generate cocci` (spatch, then routing every changed file, planning and committing one series
// per maintainer tree) beside bare spatch on the same script, paths, options and jobs: the transform's overhead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadRecipe, BUILTIN_RECIPES } from '../recipes/load.js';
import { generateSeries } from '../series/generate.js';
import { gitRaw } from '../tools/git.js';
import { readSmpl, runSpatch } from '../tools/spatch.js';
import { kseriesDir, worktreeAt } from '../tree/worktree.js';
import type { KernelTree } from '../tree/tree.js';
import { timed, type BenchResult } from './measure.js';

const SCRIPT = 'scripts/coccinelle/api/string_choices.cocci';
/**
 * Two workloads: folders of many maintainer trees with few files each (the per-file routing and per-series commits
 * weigh most), and one large folder (spatch's share grows with the files it reads). The small one runs each side
 * twice, alternating, and takes each side's best: one spatch run over it varies by 2 s in 17 on this machine.
 */
const WORKLOADS = [
  { paths: ['drivers/net/ethernet/intel', 'drivers/gpio', 'drivers/spi', 'drivers/i2c'], runs: 2 },
  { paths: ['drivers/net/ethernet'], runs: 1 },
];

export async function benchCocci(tree: KernelTree): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  for (const w of WORKLOADS) out.push(await benchCocciOn(tree, w.paths, w.runs));
  return out;
}

async function benchCocciOn(tree: KernelTree, paths: string[], runs: number): Promise<BenchResult> {
  const jobs = os.availableParallelism();
  const wt = await worktreeAt(tree, 'HEAD');
  const script = { ...readSmpl(`tree:${SCRIPT}`, fs.readFileSync(path.join(wt, SCRIPT), 'utf8')), file: path.join(wt, SCRIPT) };
  const recipe = loadRecipe('cocci', [BUILTIN_RECIPES]);
  const timedSpatch = () => timed(() => runSpatch(wt, script, paths, { jobs }));
  const timedGenerate = () => timed(() => generateSeries({ tree, recipe, given: { script: `tree:${SCRIPT}`, paths: paths.join(',') } }));
  let bare: Awaited<ReturnType<typeof timedSpatch>> | undefined;
  let ours: Awaited<ReturnType<typeof timedGenerate>> | undefined;
  for (let i = 0; i < runs; i++) {
    // The peer first: it reads the files from disk once, so kseries does not pay for a cold page cache the peer skips.
    const b = await timedSpatch();
    const o = await timedGenerate();
    if (!bare || b.seconds < bare.seconds) bare = b;
    if (!ours || o.seconds < ours.seconds) ours = o;
    for (const s of o.value) {
      await gitRaw(tree.root, ['branch', '-D', s.branch]);
      fs.rmSync(path.join(kseriesDir(tree), 'series', s.name), { recursive: true, force: true });
    }
  }
  if (!bare || !ours) throw new Error('benchCocciOn: runs must be at least 1');
  const files = (bare.value.diff.match(/^\+\+\+ /gm) ?? []).length;
  const patches = ours.value.reduce((n, s) => n + s.commits.length, 0);
  return {
    name: `generate cocci ${path.basename(SCRIPT)} over ${paths.join(' ')} (${files} files: ${ours.value.length} series, ${patches} patches)`,
    ours: ours.seconds,
    peerName: `bare spatch on the same paths, options and -j ${jobs} (${bare.value.runs} runs)${runs > 1 ? `; each side best of ${runs}` : ''}`,
    peer: bare.seconds,
    target: '≤ 1.2×',
    ok: ours.seconds <= 1.2 * bare.seconds,
  };
}
