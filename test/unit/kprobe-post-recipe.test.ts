// The kprobe-post recipe without a tree: its manifest reads, and on a tree whose code differs from 6.12 it stops with
// one error naming the anchor and the file (the real tree is in the npm start integration test).
import { expect, test } from 'vitest';
import { ApplyError } from '../../src/errors.js';
import { BUILTIN_RECIPES, loadRecipe } from '../../src/recipes/load.js';
import { planSeries } from '../../src/series/plan.js';

const recipe = loadRecipe('kprobe-post', [BUILTIN_RECIPES]);

test('the manifest asks for an RFC and the kprobes KUnit suite with the census', () => {
  expect(recipe.code).toBeUndefined();
  expect(recipe.manifest.rfc).toBe(true);
  expect(recipe.manifest.kunit).toEqual({
    config: ['CONFIG_KUNIT=y', 'CONFIG_DEBUG_KERNEL=y', 'CONFIG_KPROBES=y', 'CONFIG_KRETPROBES=y', 'CONFIG_KPROBES_SANITY_TEST=y', 'CONFIG_ACPI=n'],
    kprobeCensus: true,
  });
  expect(recipe.manifest.patches.map((p) => p.subject)).toEqual([
    'kprobes: Move a probe with only a post_handler to the next instruction',
    'x86/kprobes: Implement arch_kprobe_next_insn()',
    'kprobes: Test probes with only a post_handler on x86-64',
    'Documentation: kprobes: Describe probes with only a post_handler',
  ]);
});

test('a tree whose struct kprobe differs stops the plan with the anchor and the file', async () => {
  const tree = { root: '/nonexistent', version: '6.99' };
  const files: Record<string, string> = { 'include/linux/kprobes.h': 'struct kprobe {\n\tkprobe_pre_handler_t pre_handler;\n};\n' };
  const plan = planSeries({ recipe, given: {}, tree, readBase: async (f) => files[f] });
  await expect(plan).rejects.toThrow(ApplyError);
  await expect(plan).rejects.toThrow(/^kprobe-post: patches\[0\]\.edits\[0\]: anchor ".*kprobe_post_handler_t post_handler;\$" matches 0 lines of include\/linux\/kprobes\.h$/);
});
