// The closed, sorted map of built-in recipe code. A recipe folder without code here is template-only. Loading it
// registers the recipes' object-code proofs and checks with check, after check's own (the report's order).
import '../check/checks/index.js';
import { registerSeriesCheck } from '../check/plugins.js';
import { registerProver } from '../check/proofs/registry.js';
import { cocci } from './cocci/index.js';
import { staticKeyBootCheck } from './static-key/boot-check.js';
import { kprobePostProver } from '../kprobe/prover.js';
import { staticKey } from './static-key/index.js';
import { staticKeyToggle } from './static-key/toggle/index.js';
import { staticKeys } from './static-key/tree-wide/index.js';
import type { RecipeCode } from './types.js';

export const RECIPE_CODE: Readonly<Record<string, RecipeCode>> = {
  cocci,
  'static-key': staticKey,
  'static-key-toggle': staticKeyToggle,
  'static-keys': staticKeys,
};

for (const code of Object.values(RECIPE_CODE)) if (code.verify) registerProver(code.verify);
// A series that adds a static key, whoever wrote it, boots under lockdep with its writers exercised.
registerSeriesCheck(staticKeyBootCheck);
// The kprobe-post recipe is template-only; its analyzer proves what a patch's post_handler-only kprobes may do.
registerProver(kprobePostProver);
