// The kernel tier's last file: every build folder the tier used is one the build plan names (helpers/kernels.ts), so
// the list of kernels the tier builds cannot drift from what it builds; and `kseries cache` shows them.
import path from 'node:path';
import { expect, inject, test } from 'vitest';
import { cacheFolders } from '../../src/build/cache-folders.js';
import { formatPlan } from '../../src/plan/builds.js';
import { tierPlan } from '../helpers/kernels.js';
import { cli, userTree } from '../helpers/tree.js';

/** A build folder's configuration: the folder without the symbol set a run asked for (`defconfig+<digest>`). */
const home = (dir: string) => dir.replace(/\+[0-9a-f]+$/, '');

test('every build folder the tier used is in the build plan; a board\'s defconfig only where a patch\'s path asks for one', async () => {
  const tree = await userTree();
  const plan = await tierPlan(tree);
  console.log(formatPlan(plan).join('\n'));
  const planned = new Set(plan.builds.map((b) => home(b.dir)));
  const used = (await cacheFolders()).filter((f) => f.kind === 'build' && Date.parse(f.used) >= inject('runStarted'));
  expect(used.length).toBeGreaterThan(0);
  // A board's build (arm's ixp4xx_defconfig) is chosen by the path of the driver a patch touches: named by its config.
  const unplanned = used.map((f) => f.path).filter((d) => !planned.has(home(d)) && !/_defconfig-[a-z0-9]+$/.test(home(path.basename(d))));
  expect(unplanned).toEqual([]);
  const kernels = plan.builds.filter((b) => b.kind === 'kernel');
  console.log(`the kernel tier: ${kernels.length} kernels (${kernels.map((k) => k.name).join(', ')}), ${plan.builds.length - kernels.length} object builds; ${used.length} build folders used this run`);
  expect(kernels.map((k) => k.name).sort()).toEqual(['KUnit kernel', 'boot kernel']);
});

test('kseries cache lists what the cache keeps, each folder with its size', async () => {
  const r = await cli(['cache', '--json']);
  expect(r.code, r.err).toBe(0);
  const listed = JSON.parse(r.out) as { folders: { kind: string; bytes: number }[] };
  expect(listed.folders.filter((f) => f.kind === 'build').length).toBeGreaterThan(0);
  expect(listed.folders.every((f) => f.bytes > 0)).toBe(true);
});
