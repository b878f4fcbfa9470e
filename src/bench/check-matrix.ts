// Bench case (issue 34): the builds of `kseries check` over the series `generate cocci` makes from string_choices.cocci
// over drivers/net (with force=true: net-next's clean-ups too, which netdev's rules leave out by default), with the bots' matrix (x86-64 gcc + sparse, clang, i386 and the cross compilers where a file
// needs them), beside (1) the very make commands those builds ran, run bare one after the other at the same
// checkouts — what kseries adds is the choosing — and (2) the x86-64 gcc builds alone, as check built before. Warm:
// every build directory configured and ccache filled by a first run, and kseries' kept results not read (--fresh).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { proveRange } from '../check/check.js';
import { BUILTIN_RECIPES, loadRecipe } from '../recipes/load.js';
import { generateSeries, type GenerateResult } from '../series/generate.js';
import { gitRaw, gitRun } from '../tools/git.js';
import { recordMakes, type MakeCall } from '../tools/make.js';
import { runRaw } from '../tools/run.js';
import { kseriesDir } from '../tree/worktree.js';
import type { KernelTree } from '../tree/tree.js';
import { timed, type BenchResult } from './measure.js';

const SCRIPT = 'scripts/coccinelle/api/string_choices.cocci';
const PATHS = 'drivers/net';

export async function benchCheckMatrix(tree: KernelTree): Promise<BenchResult[]> {
  const series = await generateSeries({ tree, recipe: loadRecipe('cocci', [BUILTIN_RECIPES]), given: { script: `tree:${SCRIPT}`, paths: PATHS, force: 'true' } });
  try {
    return await benchOn(tree, series);
  } finally {
    for (const s of series) {
      await gitRaw(tree.root, ['branch', '-D', s.branch]);
      fs.rmSync(path.join(kseriesDir(tree), 'series', s.name), { recursive: true, force: true });
    }
  }
}

async function benchOn(tree: KernelTree, series: GenerateResult[]): Promise<BenchResult[]> {
  // The matrix of issue 34 alone: the builds of the other side (issue 45) have a case of their own (config-sides).
  const opts = { tree, config: 'defconfig', distcc: false, fresh: true, noSides: true };
  const buildAll = async (more: { hostOnly?: boolean } = {}) => {
    const out = [];
    for (const s of series) out.push(await proveRange({ ...opts, ...more, base: s.base, tip: s.branch }));
    return out;
  };
  // Warm up both sides: every build directory configured, ccache filled.
  await buildAll();
  await buildAll({ hostOnly: true });

  const calls: { call: MakeCall; head: string }[] = [];
  recordMakes((call) => calls.push({ call, head: execFileSync('git', ['rev-parse', 'HEAD'], { cwd: call.cwd, encoding: 'utf8' }).trim() }));
  const ours = await timed(() => buildAll()).finally(() => recordMakes(undefined));
  const hostOnly = await timed(() => buildAll({ hostOnly: true }));

  const bare = await timed(async () => {
    for (const { call, head } of calls) {
      if ((await gitRaw(call.cwd, ['rev-parse', 'HEAD'])).trim() !== head) await gitRun(call.cwd, ['checkout', '-q', '--detach', head]);
      await runRaw(call.program, call.args, { cwd: call.cwd, env: call.env });
    }
  });

  const reports = ours.value.flatMap((r) => r.reports);
  const objects = new Set(reports.flatMap((r) => r.objects));
  const notBuilt = new Set(reports.flatMap((r) => r.notBuilt.map((n) => n.object)));
  const builds = new Set(reports.flatMap((r) => Object.values(r.builtOn ?? {}).flat()).filter((b) => !b.includes(': not built')));
  const what = `${series.length} series, ${reports.length} patches, ${objects.size} objects built (${notBuilt.size} not) by ${builds.size} builds: ${[...builds].join('; ')}`;
  return [
    {
      name: `check's builds of generate cocci ${path.basename(SCRIPT)} over ${PATHS}, the bots' matrix, warm (${what})`,
      ours: ours.seconds,
      peerName: `the same ${calls.length} make commands run bare at the same checkouts`,
      peer: bare.seconds,
      target: '≤ 1.0×',
      ok: ours.seconds <= bare.seconds,
    },
    {
      name: `the same builds, the bots' matrix against x86-64 gcc alone (check before issue 34), warm`,
      ours: ours.seconds,
      peerName: 'x86-64 gcc alone',
      peer: hostOnly.seconds,
      target: '≤ 1.5×',
      ok: ours.seconds <= 1.5 * hostOnly.seconds,
    },
  ];
}
