// `kseries check [series] | --range base..tip`: validate every patch; report.json beside the emitted series.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkRange } from '../check/check.js';
// The built-in recipes register their object-code proofs with check.
import '../recipes/registry.js';
import { formatReport } from '../check/report.js';
import { formatPlan, planBuilds } from '../plan/builds.js';
import { UsageError } from '../errors.js';
import { loadSeries } from '../series/store.js';
import { gitRaw } from '../tools/git.js';
import { commitOf, openTree } from '../tree/tree.js';
import { loadRecipe, recipeDirs } from '../recipes/load.js';
import type { KunitSpec } from '../templates/manifest.js';
import { liveView, lineView } from './check-view.js';
import { printJson, processErr, progressReporter, type GlobalOptions, type Io } from './io.js';

export interface CheckArgs {
  series?: string;
  version?: number;
  range?: string;
  out?: string;
  config: string;
  full: boolean;
  strict: boolean;
  build: boolean;
  distcc: boolean;
  /** gcc, and clang where named (--compilers). */
  compilers?: string[];
  /** Machines files outside arch/ are built for too (--arches); undefined: what the series' recipe names. */
  arches?: string[];
  /** Build the other side of the symbols the patches' lines depend on, and COMPILE_TEST drivers on another machine (--sides, default). */
  sides?: boolean;
  /** A .kunitconfig to run on the base and the tip; false: none, even when the series' recipe asks. */
  kunit?: string | false;
  /** The boot config family of a static-key series' boot test; false: no boot. */
  boot?: string | false;
  /** Build, boot and run KUnit again even when the same was checked before. */
  fresh?: boolean;
  /** Print the build plan and stop. */
  dryRun?: boolean;
}

export const REPORT_FILE = 'report.json';

/** Exit 0 when nothing failed, 1 when a patch does not build, has a checkpatch ERROR or breaks a rule. */
export async function check(io: Io, g: GlobalOptions, a: CheckArgs): Promise<number> {
  const tree = await openTree({ cwd: io.cwd, tree: g.tree, env: io.env });
  let base: string;
  let tip: string;
  let series: { name: string; version: number } | undefined;
  let cover: { subject: string; body: string } | undefined;
  let dir: string | undefined;
  let recipe: string | undefined;
  if (a.range) {
    const m = /^(.+?)\.\.(.+)$/.exec(a.range);
    const [b, t] = m ? [await commitOf(tree, m[1]!), await commitOf(tree, m[2]!)] : [];
    if (!b || !t) throw new UsageError(`--range ${a.range} is not base..tip of this tree`, 'e.g. --range v6.12.117..my-branch');
    [base, tip] = [b, t];
  } else {
    const rec = await loadSeries(tree, a.series, a.version);
    [base, tip, series, cover, recipe] = [rec.base, rec.tip, { name: rec.name, version: rec.version }, rec.cover, rec.recipe];
    dir = path.join(path.resolve(io.cwd, a.out ?? 'out'), rec.name, `v${rec.version}`);
  }
  if (a.dryRun) {
    const planned = { tree, series: series?.name ?? `${base.slice(0, 12)}..${tip.slice(0, 12)}`, recipe, range: { base, tip }, config: a.config, compilers: a.compilers, arches: a.arches ?? recipeArches(g, io, recipe), kunit: kunitSpec(io, g, a.kunit, recipe), boot: a.boot, build: a.build, noSides: a.sides === false, env: io.env };
    const plan = await planBuilds([planned]);
    if (g.json) printJson(io, plan);
    else for (const l of formatPlan(plan, os.homedir())) io.out(l);
    return 0;
  }
  const mails = dir ? emittedMails(dir) : undefined;
  const view = g.json ? undefined : process.stderr.isTTY && io.err === processErr ? liveView(await subjectsOf(tree.root, base, tip)) : lineView(io);
  const report = await checkRange({
    tree,
    base,
    tip,
    series,
    cover,
    mailed: a.range === undefined,
    mails,
    build: a.build,
    full: a.full,
    strict: a.strict,
    config: a.config,
    distcc: a.distcc,
    compilers: a.compilers,
    arches: a.arches ?? recipeArches(g, io, recipe),
    noSides: a.sides === false,
    fresh: a.fresh,
    env: io.env,
    onStep: view?.onStep,
    kunit: kunitSpec(io, g, a.kunit, recipe),
    boot: a.boot,
    log: g.json ? undefined : (l) => io.err(l),
    progress: g.json ? undefined : view?.progress ?? progressReporter(io),
  }).finally(() => view?.finish());
  if (dir) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, REPORT_FILE), `${JSON.stringify(report, null, 2)}\n`);
  }
  if (g.json) printJson(io, report);
  else io.out(formatReport(report));
  return report.failed ? 1 : 0;
}

/** The emitted patches of a series folder by index (1..n); their To/Cc are what a check of recipients reads. */
function emittedMails(dir: string): Map<number, string> | undefined {
  if (!fs.existsSync(dir)) return undefined;
  const mails = new Map<number, string>();
  for (const f of fs.readdirSync(dir)) {
    const m = /^(\d{4})-.*\.patch$/.exec(f);
    if (m && m[1] !== '0000') mails.set(Number(m[1]), fs.readFileSync(path.join(dir, f), 'utf8'));
  }
  return mails.size ? mails : undefined;
}

async function subjectsOf(root: string, base: string, tip: string): Promise<string[]> {
  return (await gitRaw(root, ['log', '--reverse', '--format=%s', `${base}..${tip}`])).trim().split('\n').filter(Boolean);
}

/** The machines the series' recipe asks its files to be built for (manifest `arches`). */
function recipeArches(g: GlobalOptions, io: Io, recipe: string | undefined): string[] | undefined {
  if (!recipe) return undefined;
  try {
    return loadRecipe(recipe, recipeDirs(g.recipes, io.env)).manifest.arches;
  } catch {
    return undefined;
  }
}

/** --kunit FILE (its CONFIG_ lines), else what the series' recipe asks for; --no-kunit: none. */
function kunitSpec(io: Io, g: GlobalOptions, given: string | false | undefined, recipe: string | undefined): KunitSpec | undefined {
  if (given === false) return undefined;
  if (given !== undefined) {
    const file = path.resolve(io.cwd, given);
    let text: string;
    try {
      text = fs.readFileSync(fs.statSync(file).isDirectory() ? path.join(file, '.kunitconfig') : file, 'utf8');
    } catch {
      throw new UsageError(`--kunit ${given}: no such .kunitconfig`, 'give a file of CONFIG_X=y lines, or a folder holding .kunitconfig');
    }
    const config = text.split('\n').map((l) => l.trim()).filter((l) => /^CONFIG_\w+=/.test(l));
    if (config.length === 0) throw new UsageError(`--kunit ${given}: holds no CONFIG_X= line`, 'e.g. CONFIG_KUNIT=y and the options of the tests');
    return { config, kprobeCensus: false, show: [] };
  }
  if (!recipe) return undefined;
  try {
    return loadRecipe(recipe, recipeDirs(g.recipes, io.env)).manifest.kunit;
  } catch {
    return undefined;
  }
}
