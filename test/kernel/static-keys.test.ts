// generate static-keys and its object-code proof on the real 6.12 tree: one patch per maintainer group, figures in
// the commit messages, and check proving (or refusing) each conversion from the built objects.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CheckReport } from '../../src/check/report.js';
import type { KeyProof } from '../../src/recipes/static-key/verify.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { cli, git, userTree } from '../helpers/tree.js';
import { X86_GCC } from '../helpers/kernels.js';

let tree: KernelTree;
let out: string;
const run = (...args: string[]) => cli(['--tree', tree.root, ...args]);

beforeAll(async () => {
  tree = await userTree();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-static-keys-'));
});
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

interface Generated {
  series: string;
  base: string;
  commits: { sha: string; subject: string }[];
  unproven: string[];
}

test('generate static-keys --path mm --min-rate 0: every auto flag, a series per maintainer tree, one patch per maintainer group, the figures and rates in the messages', async () => {
  const g = await run('generate', 'static-keys', '--path', 'mm', '--min-rate', '0', '--json');
  expect(g.code, g.err).toBe(0);
  // MAINTAINERS: percpu.c is applied by the percpu tree, the rest by akpm/mm; prefixes from the entries' names
  // (the Debian tree has no history).
  const [r, percpu] = (JSON.parse(g.out) as { series: Generated[] }).series;
  expect(r!.series).toBe('static-keys-mm');
  expect(percpu!.series).toBe('static-keys-mm-percpu');
  // vmap_initialized is set in vmalloc_init() from start_kernel(), which its object cannot show, so its test is a
  // jmp there until boot switches it; percpu's helper stops being inlined.
  expect(r!.unproven).toEqual(['mm: Convert 2 boot-time flags to static keys']);
  expect(percpu!.unproven).toEqual(['percpu: Convert pcpu_async_enabled to a static key']);
  expect(r!.commits.map((c) => c.subject)).toEqual([
    'hugetlb: Convert hugetlb_sysfs_initialized to a static key',
    'kmemleak: Convert kmemleak_late_initialized to a static key',
    'memcg: Convert 2 boot-time flags to static keys',
    'mm: Convert 2 boot-time flags to static keys',
  ]);
  expect(percpu!.commits.map((c) => c.subject)).toEqual(['percpu: Convert pcpu_async_enabled to a static key']);
  const cover = JSON.parse(fs.readFileSync(path.join(tree.gitCommonDir, 'kseries', 'series', 'static-keys-mm-percpu', 'v1.json'), 'utf8')) as { cover: { body: string } };
  expect(cover.cover.body.replace(/\n/g, ' ')).toContain('The patches are for dennis/percpu, as MAINTAINERS says for that file');
  expect(cover.cover.body).not.toContain('memcontrol');
  const message = git(tree.root, 'log', '-1', '--format=%B', r!.commits[2]!.sha);
  expect(message).toContain('cgroup_memory_nosocket in mm/memcontrol.c is a bool flag that is set\nonly by the __setup() handler cgroup_memory()');
  expect(message).toContain('\n    mem_cgroup_css_free(): cmpb+je 9 bytes -> nop 2 bytes\n');
  expect(message).toContain('\n    in all: 2 tests, 4 insns/22 bytes -> 2 jump labels, 2 insns/4 bytes\n');
  // The rate measured in the booted minimal kernel (kseries measure, cached per commit), or why there is none.
  expect(message.replace(/\n/g, ' ')).toMatch(/Measured in an x86-64 minimal\+lockdep kernel under QEMU\/(KVM|TCG), a kprobe event on each test: its tests ran .*?[\d.]+ times per second of the default workload/);
  const diff = git(tree.root, 'show', '--format=', r!.commits[2]!.sha);
  // memcontrol.c already uses static keys (memcontrol.h brings jump_label.h): no include is added.
  expect(diff).not.toMatch(/^\+#include/m);
  expect(diff).toContain('+static DEFINE_STATIC_KEY_FALSE_RO(cgroup_memory_nobpf_key);');
  expect(git(tree.root, 'show', '--stat', '--format=', r!.commits[2]!.sha).trim()).toMatch(/^mm\/memcontrol\.c \| +\d+ [+-]+\n 1 file changed/);

  // check builds each patch and proves each conversion again; percpu's helper stops being inlined, which it reports.
  const c = await run('check', 'static-keys-mm', '--out', out, '--no-boot', ...X86_GCC, '--json');
  expect(c.err).toBe('');
  expect(c.code).toBe(1);
  const report = JSON.parse(c.out) as CheckReport;
  expect(report.patches.map((p) => p.proofs.map((x) => [x.claim, x.ok]))).toEqual([
    [['hugetlb_sysfs_initialized -> hugetlb_sysfs_initialized_key', true]],
    [['kmemleak_late_initialized -> kmemleak_late_initialized_key', true]],
    [
      ['cgroup_memory_nosocket -> cgroup_memory_nosocket_key', true],
      ['cgroup_memory_nobpf -> cgroup_memory_nobpf_key', true],
    ],
    [
      ['default_dram_perf_error -> default_dram_perf_error_key', true],
      ['vmap_initialized -> vmap_initialized_key', false],
    ],
  ]);
  const nosocket = report.patches[2]!.proofs[0] as KeyProof;
  expect(nosocket.before.map((t) => [t.function, t.instructions.length, t.bytes])).toEqual([
    ['mem_cgroup_css_free', 2, 9],
    ['mem_cgroup_css_alloc', 2, 13],
  ]);
  expect(nosocket.after.map((s) => [s.function, s.bytes, s.nop, s.compiled.split(' ')[0]])).toEqual([
    ['mem_cgroup_css_free', 2, true, 'jmp'],
    ['mem_cgroup_css_alloc', 2, true, 'jmp'],
  ]);
  expect(report.patches[3]!.proofs[1]!.errors.join('\n')).toMatch(/runs as `jmp [0-9a-f]+`, not as a NOP/);
  for (const p of report.patches) expect(p.checkpatch.errors).toBe(0);
  const pc = await run('check', 'static-keys-mm-percpu', '--out', out, '--no-boot', ...X86_GCC, '--json');
  expect(pc.code).toBe(1);
  const pcpu = JSON.parse(pc.out) as CheckReport;
  expect(pcpu.patches[0]!.proofs[0]!.errors.join('\n')).toMatch(/calls pcpu_schedule_balance_work\(\), no longer inlined, for the jump label: its fast path grew a call/);
});
