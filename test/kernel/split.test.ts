// kseries split on the real 6.12 tree, built: the three series a commit touching three maintainer trees becomes
// each build at every patch (COMPILE_TEST for the drivers of other machines), with no new warning.
import { beforeAll, expect, test } from 'vitest';
import type { CheckReport } from '../../src/check/report.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { forgetSeries, stringChoicesCommit } from '../helpers/series.js';
import { cli, userTree } from '../helpers/tree.js';
import { X86_GCC } from '../helpers/kernels.js';

let tree: KernelTree;

beforeAll(async () => {
  tree = await userTree();
  for (const t of ['spi', 'andi.shyti-linux', 'linux-gpio-intel']) forgetSeries(tree.root, `split-built-${t}`);
});

test('split of a commit touching three trees: every patch of every series builds alone', async () => {
  const r = await cli(['--tree', tree.root, 'split', stringChoicesCommit(tree.root), '--series', 'split-built', '--json']);
  expect(r.code, r.err).toBe(0);
  const made = (JSON.parse(r.out) as { series: { series: string }[] }).series.map((s) => s.series);
  expect(made).toEqual(['split-built-linux-gpio-intel', 'split-built-andi.shyti-linux', 'split-built-spi']);
  for (const name of made) {
    const c = await cli(['--tree', tree.root, 'check', name, ...X86_GCC, '--json']);
    const report = JSON.parse(c.out) as CheckReport;
    expect(report.patches.map((p) => [p.build.status, p.build.errors.length, p.build.newWarnings.length, p.checkpatch.errors + p.checkpatch.warnings]), name).toEqual([['ok', 0, 0, 0]]);
  }
}, 900_000);
