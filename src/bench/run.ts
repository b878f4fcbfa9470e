// `npm run bench`: every performance target of the issues, each beside the peer it names, from one run.
import { provisionTree } from '../tree/provision.js';
import { benchCheck10 } from './check-10.js';
import { benchCheckMatrix } from './check-matrix.js';
import { benchCocci } from './cocci.js';
import { benchEmit30 } from './emit-30.js';
import { benchKprobeAnalyze } from './kprobe-analyze.js';
import { benchScan } from './scan-tree.js';
import { benchMeasure } from './measure-boot.js';
import { formatResult } from './measure.js';

const tree = (await provisionTree({ cwd: process.cwd(), log: (l) => console.error(l) })).tree;
console.log(`kseries bench on Linux ${tree.version} at ${tree.root}`);
for (const bench of [benchEmit30, benchCheck10, benchCheckMatrix, benchCocci, benchScan, benchKprobeAnalyze, benchMeasure]) for (const r of [await bench(tree)].flat()) console.log(formatResult(r));
