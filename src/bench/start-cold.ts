// Bench case (issue 42): npm start's kernels from an empty cache. The build plan's whole kernels (the boot kernel, the
// KUnit kernel of both kprobe series), each built as the run builds it (`make` of its planned build) in a scratch
// KSERIES_CACHE with an empty ccache, beside the very commands those builds ran (make, scripts/config, kunit.py
// config), run bare one after the other into a second scratch cache, also cold, with CC the compiler itself (kseries'
// helper that keeps Kbuild's questions to the compiler is kseries' own). What kseries adds is the deciding: the scan
// of the tree for candidates, the source folder, the Kconfig rounds' bookkeeping.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPlan } from '../commands/start.js';
import { objectsIn } from '../progress.js';
import { resolveCommit } from '../series/generate.js';
import { recordMakes, withoutHelper, type MakeCall } from '../tools/make.js';
import { runRaw } from '../tools/run.js';
import type { KernelTree } from '../tree/tree.js';
import { timed, type BenchResult } from './measure.js';

/** What npm start built cold before the build plan: the boot kernel, tinyconfig's KUnit kernel and kunit.py's. */
const KERNELS_BEFORE = 3;

export async function benchStartCold(tree: KernelTree): Promise<BenchResult[]> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-bench-cold-'));
  try {
    return await benchIn(tree, scratch);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

async function benchIn(tree: KernelTree, scratch: string): Promise<BenchResult[]> {
  const ours = path.join(scratch, 'ours');
  const bare = path.join(scratch, 'bare');
  const env: NodeJS.ProcessEnv = { ...process.env, KSERIES_CACHE: ours };
  // ccache in the scratch cache, empty: a cold machine's.
  delete env.CCACHE_DIR;
  const base = await resolveCommit(tree, 'HEAD');
  const kernels = (await startPlan(tree, { recipes: [] }, env)).builds.filter((b) => b.kind === 'kernel');
  const calls: MakeCall[] = [];
  recordMakes((c) => calls.push(c));
  const built = await timed(async () => {
    for (const k of kernels) if (!(await k.make!(base))) throw new Error(`the ${k.name} does not build`);
  }).finally(() => recordMakes(undefined));
  const objects = kernels.map((k) => `${k.name} ${objectsIn(k.dir)} objects`).join(', ');

  // The same commands into the second cache: its build folders and its own empty ccache; the source folders are ours.
  const moved = (s: string) => s.split(path.join(ours, 'build')).join(path.join(bare, 'build')).split(path.join(ours, 'ccache')).join(path.join(bare, 'ccache'));
  for (const k of kernels) {
    fs.mkdirSync(moved(k.dir), { recursive: true });
    // What kseries writes beside a build folder for kunit.py (the kunitconfig) is input, not work.
    if (fs.existsSync(`${k.dir}.kunitconfig`)) fs.copyFileSync(`${k.dir}.kunitconfig`, `${moved(k.dir)}.kunitconfig`);
  }
  const plain = await timed(async () => {
    for (const c of calls.map(withoutHelper)) {
      const res = await runRaw(c.program, c.args.map(moved), { cwd: c.cwd, env: c.env && Object.fromEntries(Object.entries(c.env).map(([k, v]) => [k, moved(v)])) });
      if (res.code !== 0) throw new Error(`bare ${c.program} ${c.args.slice(-1)[0]} failed: ${res.stderr.trim().split('\n').slice(-2).join(' ')}`);
    }
  });
  return [
    {
      name: `start-cold: npm start's build plan from an empty cache and ccache, ${kernels.length} kernels built (before the plan: ${KERNELS_BEFORE}): ${objects}`,
      ours: built.seconds,
      peerName: `the same ${calls.length} commands (make, scripts/config, kunit.py config) run bare, cold too`,
      peer: plain.seconds,
      target: '≤ 1.1×',
      ok: built.seconds <= 1.1 * plain.seconds,
    },
  ];
}
