// `kseries start` (npm start): set up, provision the default tree, generate, check and emit the built-in series.
import os from 'node:os';
import path from 'node:path';
import { checkRequirements, installPackages, missingPackages } from '../doctor.js';
import { isRoot } from '../system.js';
import { MissingToolError } from '../errors.js';
import { measure, type MeasuredCandidate, type MeasureReport } from '../recipes/static-key/measure.js';
import { byHotness } from '../measure/hotness.js';
import { describeHot } from '../recipes/static-key/tree-wide/index.js';
import type { KernelTree } from '../tree/tree.js';
import { loadRecipe, recipeDirs } from '../recipes/load.js';
import { emitSeries } from '../series/emit.js';
import { generateSeries } from '../series/generate.js';
import { authorIdent } from '../tree/identity.js';
import { provisionTree } from '../tree/provision.js';
import { formatReview } from '../review/format.js';
import { reviewSeries } from '../review/review.js';
import { compilerPath } from '../build/compiler.js';
import { ccacheMissCounter, recordRun, runTimes } from '../build/ledger.js';
import { onPath } from '../tools/which.js';
import { duration, formatPlan, planBuilds, type BuildPlan, type PlannedSeries } from '../plan/builds.js';
import { check } from './check.js';
import { printJson, progressReporter, type GlobalOptions, type Io } from './io.js';
import { printEmitted, printGenerated } from './series.js';

/**
 * How many flags npm start converts: the hottest `auto` flags on a hot path of a booted minimal kernel (kseries
 * measure, default workload) whose conversion the draft's object code proves.
 */
export const DEMO_FLAGS = 4;

/** The boot that picks them: the minimal kernel with the objects of the auto flags, the only ones it converts. */
export const DEMO_RUNTIME = { config: 'minimal', workload: 'default', candidates: 'auto' } as const;

/**
 * The built-in series npm start makes, in the order they are written to out/: the .cold fix of the kprobes optimizer,
 * sent on its own, and the kprobe-post RFC on top of it (one KUnit kernel serves both), then the hottest static-key
 * conversions, which wait for the boot kernel they are measured in.
 */
export const BUILT_IN_SERIES = ['kprobe-cold', 'kprobe-post', 'static-keys'];

/** Compiles ccache must miss for a run to count as cold: about half of the smaller kernel npm start builds (883 objects here). */
const COLD_MISSES = 400;

/** What the checks of a built-in series are asked: the same for every series, as `kseries check` defaults them. */
const CHECK_ARGS = { config: 'defconfig', full: false, strict: false, build: true, distcc: false } as const;

/** The build plan of npm start: what each built-in series' generate and check need, merged by folder. */
export function startPlan(tree: KernelTree, g: Pick<GlobalOptions, 'recipes'>, env: NodeJS.ProcessEnv): Promise<BuildPlan> {
  return planBuilds(startSeries(tree, g, env));
}

/** The built-in series as the build plan sees them: each recipe's checks (and measure) with npm start's options. */
export function startSeries(tree: KernelTree, g: Pick<GlobalOptions, 'recipes'>, env: NodeJS.ProcessEnv): PlannedSeries[] {
  return BUILT_IN_SERIES.map((id) => {
    const { manifest } = loadRecipe(id, recipeDirs(g.recipes, env));
    return {
      tree,
      series: id,
      recipe: id,
      ...CHECK_ARGS,
      arches: manifest.arches,
      kunit: manifest.kunit,
      boot: 'minimal',
      env,
      ...(manifest.measure ? { measure: { config: DEMO_RUNTIME.config, candidates: DEMO_RUNTIME.candidates } } : {}),
    };
  });
}

/**
 * The parameters of a built-in series, and for static-keys how to plan again without flags the draft refutes: the
 * measured `auto` flags on a hot path, hottest first (`file:flag` for --only). None there: static-keys is left out,
 * and start says which candidates are hottest, their verdicts and what a manual one needs.
 */
async function demoParams(recipe: string, tree: KernelTree, io: Io): Promise<{ given: Record<string, string>; replan?: (refuted: string[]) => Record<string, string> | undefined } | undefined> {
  if (recipe !== 'static-keys') return { given: {} };
  const m = await measure({ tree, ...DEMO_RUNTIME, env: io.env, log: (l) => io.err(`static-keys: ${l}`), progress: progressReporter(io, 'static-keys: ') });
  const { pool, hottest } = demoFlags(m);
  if (pool.length === 0) {
    io.err(`static-keys: no auto flag is on a hot path of the measured ${m.kernel} kernel (${m.problems.join('; ') || `the ${m.workload} workload`}), so no static-keys series is made; the hottest candidates:`);
    for (const c of hottest) io.err(`  ${c.file}:${c.line} ${describeHot(c, c.hits!)}`);
    io.err('  (kseries measure lists them all; kseries generate static-keys --only FLAG converts an auto one anyway)');
    return undefined;
  }
  let flags = pool.map((c) => ({ flag: c.variable, only: `${c.file}:${c.variable}` }));
  const given = () => ({ only: flags.slice(0, DEMO_FLAGS).map((p) => p.only).join(',') });
  return {
    given: given(),
    replan: (refuted) => {
      const out = new Set(refuted.map((claim) => claim.split(' ')[0]));
      flags = flags.filter((p) => !out.has(p.flag));
      return flags.length ? given() : undefined;
    },
  };
}

/** The auto flags on a hot path, hottest first; and the hottest measured candidates of any verdict. */
export function demoFlags(m: MeasureReport): { pool: MeasuredCandidate[]; hottest: MeasuredCandidate[] } {
  const measured = m.candidates.filter((c) => c.hits).sort((a, b) => byHotness(a.hits, b.hits));
  return { pool: measured.filter((c) => c.verdict === 'auto' && c.hits!.path === 'hot'), hottest: measured.slice(0, 5) };
}

const DEMO_AUTHOR = 'kseries demo <kseries-demo@example.org>';

export async function start(io: Io, g: GlobalOptions, opts: { dryRun?: boolean } = {}): Promise<number> {
  const began = Date.now();
  if (!opts.dryRun) {
    const reqs = await checkRequirements(io.env);
    const missing = missingPackages(reqs);
    if (missing.length > 0 && !isRoot()) throw new MissingToolError(`missing Debian packages: ${missing.join(' ')}`, `run: sudo apt-get install -y ${missing.join(' ')}  then npm start again`);
    // As root, what kseries would use (ccache) comes with what it needs.
    const install = isRoot() ? missingPackages(reqs, { optional: true }) : [];
    if (install.length > 0) await installPackages(install, (l) => io.err(l));
  }
  const { tree } = await provisionTree({ cwd: io.cwd, tree: g.tree, env: io.env, log: (l) => io.err(l) });
  io.err(`tree: Linux ${tree.version} at ${tree.root}`);
  // What this run will build, and what npm start took here before: said first, so nobody waits blind.
  const plan = await startPlan(tree, g, io.env);
  const cold = plan.builds.some((b) => b.kind === 'kernel' && b.holds.state !== 'built');
  if (g.json && opts.dryRun) {
    printJson(io, plan);
    return 0;
  }
  const say = opts.dryRun ? io.out : io.err;
  for (const l of formatPlan(plan, os.homedir())) say(l);
  const took = runTimes('start', io.env);
  say(`npm start here: ${took.cold || took.warm ? [took.cold && `${duration(took.cold.seconds)} cold`, took.warm && `${duration(took.warm.seconds)} warm`].filter(Boolean).join(', ') : 'never run on this machine'}; this run is ${cold ? 'cold (a kernel is not in the cache)' : 'warm'}`);
  if (opts.dryRun) return 0;
  const ccacheDir = compilerPath({ ccache: onPath('ccache', io.env), distcc: false }, io.env).env?.CCACHE_DIR;
  const misses = await ccacheMissCounter(ccacheDir);
  const from = await authorIdent(tree).catch(() => {
    io.err(`no git identity configured: committing as "${DEMO_AUTHOR}" (set git config user.name/user.email to sign as yourself)`);
    return DEMO_AUTHOR;
  });
  // Each series generated, checked, emitted and reviewed before the next begins: its mails are in out/ as soon as its
  // own builds are done.
  const made = [];
  for (const id of BUILT_IN_SERIES) {
    io.err(`${id}: generating`);
    const recipe = loadRecipe(id, recipeDirs(g.recipes, io.env));
    const build = { config: CHECK_ARGS.config, distcc: false, env: io.env, progress: progressReporter(io, `${id}: `) };
    const params = await demoParams(id, tree, io);
    if (!params) continue;
    const { given, replan } = params;
    for (const gen of await generateSeries({ tree, recipe, given, from, measure: build, runtime: DEMO_RUNTIME, replan, log: (l) => io.err(`${id}: ${l}`) })) {
      if ((await check(g.json ? { ...io, out: () => {} } : io, g, { series: gen.name, version: gen.version, ...CHECK_ARGS })) !== 0) return 1;
      // A rerun after the recipe (or your identity) changed makes a new version; its changelog says so, the range-diff shows what.
      const fallbackNotes = ['regenerated by kseries start; the range-diff below shows what changed'];
      const out = await emitSeries({ tree, name: gen.name, version: gen.version, out: path.resolve(io.cwd, 'out'), fallbackNotes });
      // The two halves agree: what kseries emits, kseries review (apply, checkpatch, rules, recipients) finds clean.
      const reviewed = await reviewSeries({ tree, input: out.mbox, build: false, trust: false, strict: false, config: CHECK_ARGS.config, distcc: false, env: io.env });
      io.err(`${gen.name}: kseries review of the emitted mails: ${reviewed.report.verdict}`);
      if (reviewed.report.verdict !== 'clean') {
        io.err(formatReview(reviewed.report));
        return 1;
      }
      io.err(`${gen.name}: written to ${path.relative(io.cwd, out.dir) || '.'}/ after ${duration((Date.now() - began) / 1000)}`);
      made.push({ gen, out, review: reviewed.report.verdict });
    }
  }
  // Cold: a kernel was not in the cache, and ccache did not have most of one either (a run after the build folders
  // went, on a warm ccache, is a warm run that relinks).
  const missed = await misses();
  recordRun('start', (Date.now() - began) / 1000, cold && (missed === undefined || missed >= COLD_MISSES) ? 'cold' : 'warm', io.env);
  if (g.json) {
    printJson(io, { tree: tree.root, series: made.map(({ gen, out, review }) => ({ series: gen.name, version: gen.version, branch: gen.branch, dir: out.dir, review })) });
    return 0;
  }
  for (const { gen, out, review } of made) {
    printGenerated(io, gen);
    printEmitted(io, out);
    io.out(`  kseries review of these mails: ${review}`);
  }
  io.out('\nnext:');
  for (const { gen, out } of made) {
    io.out(`  less ${path.relative(io.cwd, out.mbox)}    (read the series)`);
    io.out(`  kseries send ${gen.name}    (git send-email dry run; add --send to send)`);
    io.out(`  git -C ${tree.root} log -p ${gen.base.slice(0, 12)}..${gen.branch}    (the series branch)`);
  }
  return 0;
}
