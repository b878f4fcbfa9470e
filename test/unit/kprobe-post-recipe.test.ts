// The kprobe-cold and kprobe-post recipes without a tree: their manifests read, and on a tree whose code differs from
// 6.12 they stop with one error naming the anchor and the file (the real tree is in the npm start integration test).
import { expect, test } from 'vitest';
import { ApplyError, RecipeError } from '../../src/errors.js';
import { BUILTIN_RECIPES, loadRecipe } from '../../src/recipes/load.js';
import { planSeries } from '../../src/series/plan.js';

const recipe = loadRecipe('kprobe-post', [BUILTIN_RECIPES]);
const fix = loadRecipe('kprobe-cold', [BUILTIN_RECIPES]);

test('the fix is a plain series of its own, whose KUnit run without the fix must fail; the RFC applies on top of it', () => {
  expect(fix.manifest.rfc).toBe(false);
  expect(fix.manifest.patches.map((p) => p.subject)).toEqual([
    'x86/kprobes: Factor the instruction scan out of can_optimize()',
    'x86/kprobes: Check the .cold part of a function in can_optimize()',
    'x86/kprobes: Add a KUnit test of a jump from a .cold part',
  ]);
  expect(fix.manifest.kunit?.without).toBe(fix.manifest.patches[1]!.subject);
  // To: the kprobes maintainers, who apply arch/x86/kernel/kprobes/ (get_maintainer.pl names x86's first); objtool's
  // people, who own how GCC splits a function, on every patch of the fix.
  expect(fix.manifest.patches.map((p) => [p.to, p.cc])).toEqual(Array(3).fill([['KPROBES'], ['OBJTOOL']]));
  expect(recipe.manifest.after).toBe('kprobe-cold');
});

test('the manifest asks for an RFC and the kprobes KUnit suite with the census', () => {
  expect(recipe.code).toBeUndefined();
  expect(recipe.manifest.rfc).toBe(true);
  expect(recipe.manifest.kunit).toEqual({
    config: ['CONFIG_KUNIT=y', 'CONFIG_DEBUG_KERNEL=y', 'CONFIG_KPROBES=y', 'CONFIG_KRETPROBES=y', 'CONFIG_KPROBES_SANITY_TEST=y', 'CONFIG_X86_KPROBES_KUNIT_TEST=y', 'CONFIG_MODULES=y', 'CONFIG_ACPI=n'],
    kprobeCensus: true,
    show: ['CONFIG_PREEMPT_NONE', 'CONFIG_PREEMPT_VOLUNTARY', 'CONFIG_PREEMPT', 'CONFIG_PREEMPT_DYNAMIC', 'CONFIG_OPTPROBES', 'CONFIG_X86_KERNEL_IBT', 'CONFIG_CPU_MITIGATIONS', 'CONFIG_SPECULATION_MITIGATIONS', 'CONFIG_MITIGATION_RETPOLINE', 'CONFIG_RETPOLINE', 'CONFIG_SMP', 'CONFIG_MODULES', 'CONFIG_BUG', 'CONFIG_CC_OPTIMIZE_FOR_SIZE'],
  });
  expect(recipe.manifest.patches.map((p) => p.subject)).toEqual([
    'kprobes: Move a probe with only a post_handler to the next instruction',
    'x86/kprobes: Implement arch_kprobe_next_insn()',
    'samples/kprobes: Add a sample of a probe with only a post_handler',
    'x86/kprobes: Test probes with only a post_handler',
    'Documentation: kprobes: Describe probes with only a post_handler',
  ]);
});

test('a tree whose opt.c differs stops the plan with the anchor and the file', async () => {
  const tree = { root: '/nonexistent', version: '6.99' };
  const files: Record<string, string> = { 'arch/x86/kernel/kprobes/opt.c': 'static int can_optimize(unsigned long paddr)\n{\n}\n' };
  const plan = planSeries({ recipe: fix, given: {}, tree, readBase: async (f) => files[f] });
  await expect(plan).rejects.toThrow(ApplyError);
  await expect(plan).rejects.toThrow(/^kprobe-cold: patches\[0\]\.edits\[0\]: anchor ".*Check whether insn jumps.*" matches 0 lines of arch\/x86\/kernel\/kprobes\/opt\.c$/);
});

test('a tree whose register_kprobe() is split into __register_kprobe() with guard() is refused in one line, before any edit', async () => {
  const tree = { root: '/nonexistent', version: '6.99' };
  const files: Record<string, string> = { 'kernel/kprobes.c': 'int x;\nstatic int __register_kprobe(struct kprobe *p)\n{\n\tguard(mutex)(&kprobe_mutex);\n}\n' };
  const plan = planSeries({ recipe, given: {}, tree, readBase: async (f) => files[f] });
  await expect(plan).rejects.toThrow(RecipeError);
  await expect(plan).rejects.toThrow(/^kprobe-post does not fit this tree: kernel\/kprobes\.c:2: register_kprobe\(\) is split into __register_kprobe\(\), which takes its locks with guard\(\)/);
});
