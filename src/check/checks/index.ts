// The checks every range gets, registered in the order of the report's table. Recipes register their own beside
// these (src/recipes/registry.ts).
import { registerPatchCheck, registerSeriesCheck } from '../plugins.js';
import { buildCheck } from './build.js';
import { checkpatchCheck } from './checkpatch.js';
import { kunitCheck } from './kunit.js';
import { proofCheck } from './proof.js';
import { rulesCheck } from './rules.js';
import { treeCheck } from './tree.js';

registerPatchCheck(buildCheck);
registerPatchCheck(proofCheck);
registerPatchCheck(checkpatchCheck);
registerPatchCheck(rulesCheck);
registerPatchCheck(treeCheck);
registerSeriesCheck(kunitCheck);
