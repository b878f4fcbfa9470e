// Issue 34's objects that x86-64 can build but whose configuration kseries once gave up on: a dependency continued
// on the next line (smc91x's "|| \"), alternatives without COMPILE_TEST (rtl8366rb: "NET_DSA_REALTEK_SMI ||
// NET_DSA_REALTEK_MDIO"), symbols without a prompt that only a `select` sets (MLX4_CORE by MLX4_EN, QED_RDMA by
// INFINIBAND_QEDR), and an object a chain of dependencies reaches (mlx5's lib/hv.o: PCI_HYPERV_INTERFACE, HYPERV).
// One comment-only patch to each file's end, checked with --range: every object built, none "not build-tested".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import type { CheckReport } from '../../src/check/report.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { cli, git, userTree } from '../helpers/tree.js';

const FILES = [
  'drivers/net/dsa/realtek/rtl8366rb.c',
  'drivers/net/ethernet/mellanox/mlx4/main.c',
  'drivers/net/ethernet/mellanox/mlx5/core/lib/hv.c',
  'drivers/net/ethernet/qlogic/qed/qed_roce.c',
  'drivers/net/ethernet/smsc/smc91x.c',
];

let tree: KernelTree;
beforeAll(async () => {
  tree = await userTree();
});

/** A commit on `base` that adds a comment at the end of each file, made without touching the checkout. */
function commentCommit(root: string, base: string, files: string[]): string {
  const index = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-kconfig-')), 'index');
  const env = { ...process.env, GIT_INDEX_FILE: index, GIT_AUTHOR_NAME: 'K Tester', GIT_AUTHOR_EMAIL: 'k@tester.dev', GIT_COMMITTER_NAME: 'K Tester', GIT_COMMITTER_EMAIL: 'k@tester.dev' };
  const g = (args: string[], input?: string) => execFileSync('git', args, { cwd: root, env, encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 }).trim();
  g(['read-tree', base]);
  for (const f of files) {
    const blob = g(['hash-object', '-w', '--stdin'], `${g(['show', `${base}:${f}`])}\n/* Built by kseries' configuration test. */\n`);
    g(['update-index', '--cacheinfo', `100644,${blob},${f}`]);
  }
  const commit = g(['commit-tree', g(['write-tree']), '-p', base, '-m', 'net: note where each driver is built\n\nSigned-off-by: K Tester <k@tester.dev>']);
  fs.rmSync(path.dirname(index), { recursive: true, force: true });
  return commit;
}

test('objects x86-64 can build are built: continued lines, plain alternatives, selected symbols, dependency chains', async () => {
  const base = git(tree.root, 'rev-parse', 'HEAD').trim();
  const tip = commentCommit(tree.root, base, FILES);
  const r = await cli(['--tree', tree.root, 'check', '--range', `${base}..${tip}`, '--json']);
  const report = JSON.parse(r.out) as CheckReport;
  const [p] = report.patches;
  expect(p!.build.notBuilt, JSON.stringify(p!.build.notBuilt)).toEqual([]);
  expect(p!.build.objects).toEqual(FILES.map((f) => f.replace(/\.c$/, '.o')));
  expect(p!.build.status).toBe('ok');
  console.log(`built with ${report.compiler}; switched on: ${report.configAsBuilt?.on.join(' ')}`);
});
