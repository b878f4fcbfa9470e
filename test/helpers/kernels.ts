// The kernels and object builds the kernel tier makes, derived from the build plan (src/plan/builds.ts): npm start's
// plan, which the start test builds first, and what the other files run beyond it, planned by the same code. All live
// in kseries' cache (~/.cache/kseries, or $KSERIES_CACHE), so a warm run rebuilds only what a change touched. The last
// file of the tier (plan.test.ts) holds every build folder the tier used against this plan.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSeries } from '../../src/commands/start.js';
import { planBuilds, type BuildPlan, type PlannedSeries } from '../../src/plan/builds.js';
import type { KernelTree } from '../../src/tree/tree.js';

/**
 * The boot kernel's candidates: the `auto` flags' objects (npm start and generate static-keys measure them), in
 * build/shared/minimal-lockdep. npm start measures in it; so do the measure and static-key tests.
 */
export const MEASURED = ['--candidates', 'auto'];

/**
 * check's builds for a file that tests something besides the bots' matrix (a recipe's series, split, cocci, measure's
 * sysctl): x86-64 with gcc and sparse only, no other side of the patches' #ifs. The matrix itself (clang, i386, arm64,
 * riscv, boards, the sides) is tested where it is the subject: npm start's series, check.test.ts, bots-build.test.ts
 * and config-sides.test.ts. Each other build is a configuration and a compile per patch more on two cores, for the
 * same finding.
 */
export const X86_GCC = ['--compilers', 'gcc', '--arches', 'x86_64', '--no-sides'];

/** The .config the static-key test checks a series with (`check --config FILE`): a build folder of its own. */
export const TWO_LINE_CONFIG = 'CONFIG_64BIT=y\nCONFIG_PRINTK=y\n';

/** What the tier's files run beyond npm start's series, as the plan sees them. */
function otherSeries(tree: KernelTree, env: NodeJS.ProcessEnv): PlannedSeries[] {
  const config = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-plan-')), 'tiny.config');
  fs.writeFileSync(config, TWO_LINE_CONFIG);
  const check = { tree, config: 'defconfig', build: true, boot: 'minimal' as const, env };
  return [
    // measure, static-keys, static-key, check, cocci, split, distcc, kprobe-analyze: npm start's builds, and:
    { ...check, series: 'static-key --config FILE', config, boot: false },
    // review in the sandbox: an x86 series (review.test; the other side of its lines on i386) and an arm64 patch
    // (bots-build.test), built for arm64.
    { ...check, series: 'review (sandboxed)', sandbox: true },
    { ...check, series: 'review (sandboxed)', sandbox: true, arches: ['arm64'] },
    // The bots' machines: i386 and every cross compiler here; a board's defconfig is chosen by a patch's path.
    { ...check, series: 'bots-build --arches all', arches: ['all'] },
  ];
}

/** Every build the kernel tier makes, merged by folder. */
export function tierPlan(tree: KernelTree, env: NodeJS.ProcessEnv = process.env): Promise<BuildPlan> {
  return planBuilds([...startSeries(tree, { recipes: [] }, env), ...otherSeries(tree, env)]);
}

/** test/kernel/<name>.test.ts in the order they run; a file not named here runs after these (plan.test.ts last). */
export const KERNEL_TIER_ORDER = ['start', 'measure', 'static-keys', 'static-key', 'check', 'kprobe-analyze', 'review', 'distcc'];
