// `npm run bench`: every performance target of the issues, each beside the peer it names, from one run.
import { provisionTree } from '../tree/provision.js';
import { benchCheck10 } from './check-10.js';
import { benchCheckMatrix } from './check-matrix.js';
import { benchCocci } from './cocci.js';
import { benchConfigSides } from './config-sides.js';
import { benchEmit30 } from './emit-30.js';
import { benchInboxIndex } from './inbox-index.js';
import { benchWatchCycle } from './watch-cycle.js';
import { benchKprobeAnalyze } from './kprobe-analyze.js';
import { benchScan } from './scan-tree.js';
import { benchMeasure } from './measure-boot.js';
import { benchStartCold } from './start-cold.js';
import { formatResult } from './measure.js';

/** Every case by name; `npm run bench -- start-cold measure` runs those alone. */
const CASES = { 'emit-30': benchEmit30, 'check-10': benchCheck10, 'check-matrix': benchCheckMatrix, cocci: benchCocci, scan: benchScan, 'kprobe-analyze': benchKprobeAnalyze, measure: benchMeasure, 'start-cold': benchStartCold, 'inbox-index': benchInboxIndex, 'watch-cycle': benchWatchCycle, 'config-sides': benchConfigSides };
const asked = process.argv.slice(2);
const unknown = asked.filter((a) => !(a in CASES));
if (unknown.length) {
  console.error(`bench: no case ${unknown.join(', ')}; the cases: ${Object.keys(CASES).join(', ')}`);
  process.exit(2);
}
const tree = (await provisionTree({ cwd: process.cwd(), log: (l) => console.error(l) })).tree;
console.log(`kseries bench on Linux ${tree.version} at ${tree.root}`);
for (const [name, bench] of Object.entries(CASES)) if (!asked.length || asked.includes(name)) for (const r of [await bench(tree)].flat()) console.log(formatResult(r));
