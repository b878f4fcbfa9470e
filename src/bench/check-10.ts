// Bench case: `kseries check` of a 10-patch series, beside the same make and checkpatch.pl commands run bare.
import path from 'node:path';
import { KernelBuild } from '../build/builder.js';
import { checkRange } from '../check/check.js';
import { applyPlan, resolveCommit } from '../series/generate.js';
import type { SeriesPlan } from '../series/plan.js';
import { worktreeAt } from '../tree/worktree.js';
import { gitRaw, gitRun, readAtCommit } from '../tools/git.js';
import { CHECKPATCH_FLAGS } from '../tools/kernel-scripts.js';
import { run, runRaw } from '../tools/run.js';
import type { KernelTree } from '../tree/tree.js';
import { timed, type BenchResult } from './measure.js';

const FILES = ['lib/bcd.c', 'lib/sort.c', 'lib/parser.c', 'lib/debug_locks.c', 'lib/random32.c', 'lib/hexdump.c', 'lib/kasprintf.c', 'lib/bitmap.c', 'lib/string.c', 'lib/cmdline.c'];

async function plan(tree: KernelTree, base: string, name: string): Promise<SeriesPlan> {
  const patches = [];
  for (const file of FILES) {
    const before = (await readAtCommit(tree.root, base, file))!;
    patches.push({
      subject: `lib/${path.basename(file, '.c')}: Add a bench comment`,
      body: `Bench patch for kseries: appends one comment line to ${file}.`,
      // The run's own name in the comment: new trees every run, so check builds them and does not read a kept result.
      changes: [{ file, before, after: `${before.replace(/\n*$/, '\n')}\n/* ${name} */\n` }],
    });
  }
  return { recipe: 'bench', name, params: {}, cover: { subject: 'lib: Bench series', body: 'Ten one-line patches.' }, patches };
}

export async function benchCheck10(tree: KernelTree): Promise<BenchResult[]> {
  const base = await resolveCommit(tree, 'HEAD');
  const name = `bench-check-${Date.now()}`;
  const gen = await applyPlan({ tree, plan: await plan(tree, base, name), base, author: 'kseries bench <bench@example.org>' });
  const commits = (await gitRaw(tree.root, ['rev-list', '--reverse', `${base}..${gen.branch}`])).trim().split('\n');
  const opts = { tree, base, tip: gen.branch, build: true, full: false, strict: false, config: 'defconfig', distcc: false };
  // Warm up: configure the build directory once, so neither side pays for defconfig.
  await checkRange({ ...opts, tip: commits[0]! });

  const ours = await timed(() => checkRange(opts));

  const source = await worktreeAt(tree, base);
  const build = new KernelBuild(tree, source, { config: 'defconfig', distcc: false });
  const make = (args: string[]) => runRaw('make', ['-C', source, `O=${build.buildDir}`, '-j2', ...args], { cwd: source });
  const objects = FILES.map((f) => f.replace(/\.c$/, '.o'));
  const bareMake = await timed(async () => {
    await make(['olddefconfig']);
    await make(['prepare']);
    for (const o of objects) await make(['W=1', o]);
    for (const [i, c] of commits.entries()) {
      await gitRun(source, ['checkout', '-q', '--detach', c]);
      await make(['W=1', objects[i]!]);
    }
  });
  const bareCheckpatch = await timed(async () => {
    for (const c of commits) {
      const mail = (await gitRun(tree.root, ['format-patch', '-1', '--stdout', c])).stdout;
      await run('perl', ['scripts/checkpatch.pl', ...CHECKPATCH_FLAGS, '-'], { cwd: tree.root, input: mail, okCodes: [0, 1] });
    }
  });
  const serial = bareMake.seconds + bareCheckpatch.seconds;
  await gitRaw(tree.root, ['branch', '-D', gen.branch]);
  return [
    {
      name: 'check a 10-patch series',
      ours: ours.seconds,
      peerName: `the same make (${bareMake.seconds.toFixed(2)} s) and checkpatch.pl (${bareCheckpatch.seconds.toFixed(2)} s) commands run bare, one after the other`,
      peer: serial,
      target: '≤ 1.15×, and below the serial sum',
      ok: ours.seconds <= 1.15 * serial && ours.seconds < serial,
    },
  ];
}
