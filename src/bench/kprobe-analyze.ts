// Bench case: `kseries kprobe analyze --all` over every function of kernel/sched/fair.o, beside `objdump -dr` of the
// same object, in the same run. Both best of 10 after two warm-up runs; the analysis is timed in-process (what the
// command does between starting and printing), and the whole command's wall time is shown beside it.
import path from 'node:path';
import { KernelBuild } from '../build/builder.js';
import { main } from '../cli/main.js';
import { analyzeObject } from '../commands/kprobe.js';
import { runRaw } from '../tools/run.js';
import type { KernelTree } from '../tree/tree.js';
import { timed, type BenchResult } from './measure.js';

const OBJECT = 'kernel/sched/fair.o';
const RUNS = 10;
const WARM_UP = 2;

export async function benchKprobeAnalyze(tree: KernelTree): Promise<BenchResult[]> {
  const quiet = { out: () => {}, err: () => {}, cwd: process.cwd(), env: process.env };
  // Builds the object in kseries' build directory (defconfig) when it is missing.
  const all = ['--tree', tree.root, 'kprobe', 'analyze', '--object', OBJECT, '--all', '', '--json'];
  await main(all, quiet);
  const file = path.join(new KernelBuild(tree, tree.root, { config: 'defconfig', distcc: false }).buildDir, OBJECT);
  let sites = 0;
  const ours = await best(async () => {
    const analysis = await analyzeObject(file, OBJECT);
    sites = analysis.functions().reduce((n, f) => n + analysis.sitesOf(f).length, 0);
  });
  const peer = await best(() => runRaw('objdump', ['-dr', file], { cwd: path.dirname(file) }));
  const command = await best(() => main(all, quiet));
  return [
    {
      name: `kprobe analyze --all, every function of ${OBJECT} (${sites} sites; best of ${RUNS} after ${WARM_UP} warm-up runs; the whole command with its start-up and JSON output: ${command.toFixed(3)} s)`,
      ours,
      peerName: 'objdump -dr of the same object',
      peer,
      target: '≤ 1.5×',
      ok: ours / peer <= 1.5,
    },
  ];
}

async function best(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARM_UP; i++) await fn();
  let min = Infinity;
  for (let i = 0; i < RUNS; i++) min = Math.min(min, (await timed(fn)).seconds);
  return min;
}
