// `kseries start` (npm start): set up, provision the default tree, generate and emit the built-in series.
import path from 'node:path';
import { checkRequirements, installPackages, missingPackages } from '../doctor.js';
import { isRoot } from '../system.js';
import { MissingToolError } from '../errors.js';
import { loadRecipe, recipeDirs } from '../recipes/load.js';
import { emitSeries } from '../series/emit.js';
import { authorIdent, generateSeries } from '../series/generate.js';
import { provisionTree } from '../tree/provision.js';
import { printJson, type GlobalOptions, type Io } from './io.js';
import { printEmitted, printGenerated } from './series.js';

/**
 * Flags of Linux 6.12 that were read and found safe to convert: each is written only from the
 * "cgroup.memory=" __setup() handler, which runs in process context from parse_args() in start_kernel(), after
 * jump_label_init() on every architecture; each is read only in if() conditions; neither has its address taken.
 */
export const DEMO_SITES = [
  { recipe: 'static-key', set: { file: 'mm/memcontrol.c', flag: 'cgroup_memory_nosocket' } },
  { recipe: 'static-key', set: { file: 'mm/memcontrol.c', flag: 'cgroup_memory_nobpf' } },
];

const DEMO_AUTHOR = 'kseries demo <kseries-demo@example.org>';

export async function start(io: Io, g: GlobalOptions): Promise<number> {
  const missing = missingPackages(await checkRequirements(io.env));
  if (missing.length > 0) {
    if (!isRoot()) throw new MissingToolError(`missing Debian packages: ${missing.join(' ')}`, `run: sudo apt-get install -y ${missing.join(' ')}  then npm start again`);
    await installPackages(missing, (l) => io.err(l));
  }
  const { tree } = await provisionTree({ cwd: io.cwd, tree: g.tree, env: io.env, log: (l) => io.err(l) });
  io.err(`tree: Linux ${tree.version} at ${tree.root}`);
  const from = await authorIdent(tree).catch(() => {
    io.err(`no git identity configured: committing as "${DEMO_AUTHOR}" (set git config user.name/user.email to sign as yourself)`);
    return DEMO_AUTHOR;
  });
  const results = [];
  for (const site of DEMO_SITES) {
    const recipe = loadRecipe(site.recipe, recipeDirs(g.recipes, io.env));
    const gen = await generateSeries({ tree, recipe, given: site.set, from });
    const out = await emitSeries({ tree, name: gen.name, version: gen.version, out: path.resolve(io.cwd, 'out') });
    results.push({ gen, out });
    if (!g.json) {
      printGenerated(io, gen);
      printEmitted(io, out);
    }
  }
  if (g.json) {
    printJson(io, { tree: tree.root, series: results.map((r) => ({ series: r.gen.name, version: r.gen.version, branch: r.gen.branch, dir: r.out.dir })) });
    return 0;
  }
  const first = results[0]!;
  io.out('\nnext:');
  io.out(`  less ${path.relative(io.cwd, first.out.mbox)}                      # read the series`);
  io.out(`  kseries send ${first.gen.name}                    # dry run of git send-email; --send to send`);
  io.out(`  git -C ${tree.root} log --stat ${first.gen.base.slice(0, 12)}..${first.gen.branch}   # the series branch`);
  return 0;
}
