// One static-key series on the real 6.12 tree from start to end: generate builds a draft for the figures of its
// message, check builds the patch and proves the conversion in the object code and boots it under lockdep, emit states
// what check showed, and git am of the mail gives the series tree back.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CheckReport } from '../../src/check/report.js';
import { getHeader, splitMail } from '../../src/mail/headers.js';
import { runCheckpatch } from '../../src/tools/kernel-scripts.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { TWO_LINE_CONFIG, X86_GCC } from '../helpers/kernels.js';
import { forgetSeries, verdictBesidesIdentity } from '../helpers/series.js';
import { snapshot, type Snapshot } from '../helpers/snapshot.js';
import { withoutProgress } from '../helpers/cli.js';
import { amTree, cli, git, userTree } from '../helpers/tree.js';

const series = 'static-key-cgroup_memory_nobpf';
let tree: KernelTree;
let out: string;
let before: Snapshot;
const run = (...args: string[]) => cli(['--tree', tree.root, ...args]);
const dir = () => path.join(out, series, 'v1');
const patchFile = () => path.join(dir(), fs.readdirSync(dir()).find((f) => f.endsWith('.patch'))!);

beforeAll(async () => {
  tree = await userTree();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-static-key-'));
  before = snapshot(tree.root, ['mm/memcontrol.c']);
});
afterAll(() => {
  fs.rmSync(out, { recursive: true, force: true });
  forgetSeries(tree.root, series);
});

test('generate builds a draft and commits one signed-off patch with its figures on kseries/<series>/v1', async () => {
  const r = await run('generate', 'static-key', '--set', 'file=mm/memcontrol.c', '--set', 'flag=cgroup_memory_nobpf', '--json');
  // The recipe proves its conversion, so a draft is built first for the figures of the commit message.
  expect(withoutProgress(r.err)).toBe('making a draft of 1 patch to build it (defconfig) to measure the object code');
  expect(r.code).toBe(0);
  const j = JSON.parse(r.out);
  expect(j).toMatchObject({ series, version: 1, branch: `kseries/${series}/v1`, unchanged: false });
  expect(j.commits).toHaveLength(1);
  const msg = git(tree.root, 'log', '-1', '--format=%an <%ae>%n%B', j.branch);
  expect(msg).toContain('Test Author <test.author@example.org>\nmm: memcontrol: Convert cgroup_memory_nobpf to a static key');
  expect(msg).toContain('Signed-off-by: Test Author <test.author@example.org>');
  expect(msg).toContain('\n  mem_cgroup_css_alloc(): cmpb+je 13 bytes -> nop 2 bytes\n  in all: 2 tests, 4 insns/22 bytes -> 2 jump labels, 2 insns/4 bytes\n');
  const diff = git(tree.root, 'diff', `${j.base}..${j.branch}`);
  expect(diff).toContain('+static DEFINE_STATIC_KEY_FALSE_RO(cgroup_memory_nobpf_key);');
  expect(diff).toContain('+\t\t\tstatic_branch_enable(&cgroup_memory_nobpf_key);');
  expect(git(tree.root, 'show', `${j.branch}:mm/memcontrol.c`)).not.toMatch(/\bcgroup_memory_nobpf\b/);
  const again = await run('generate', 'static-key', '--set', 'file=mm/memcontrol.c', '--set', 'flag=cgroup_memory_nobpf', '--json');
  expect(JSON.parse(again.out)).toMatchObject({ version: 1, unchanged: true });
  expect(git(tree.root, 'branch', '--list', `kseries/${series}/*`).trim().split('\n')).toHaveLength(1);
});

test('check: clean, the Kconfig symbol its object needs (CONFIG_MEMCG) switched on, the conversion proven, the lockdep boot clean', async () => {
  const r = await run('check', series, '--out', out, ...X86_GCC, '--json');
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  const report = JSON.parse(r.out) as CheckReport;
  expect(verdictBesidesIdentity(report)).toBe('clean');
  expect(report.patches[0]!.build).toMatchObject({ status: 'ok', objects: ['mm/memcontrol.o'], errors: [], newWarnings: [], notBuilt: [] });
  expect(report.patches[0]!.checkpatch).toEqual({ errors: 0, warnings: 0, checks: 0, findings: [] });
  expect(report.patches[0]!.proofs.map((p) => [p.claim, p.ok, p.sites.at(-1)])).toEqual([
    ['cgroup_memory_nobpf -> cgroup_memory_nobpf_key', true, 'in all: 2 tests, 4 insns/22 bytes -> 2 jump labels, 2 insns/4 bytes'],
  ]);
  // Builds, worktrees and boots all happened outside the user's checkout.
  expect(snapshot(tree.root, ['mm/memcontrol.c'])).toEqual(before);
});

test('emit: one checkpatch-clean patch with maintainers, base-commit, a stable Message-Id and what check showed', async () => {
  const r = await run('emit', series, '--out', out, '--json');
  expect(r.code).toBe(0);
  expect(fs.readdirSync(dir()).filter((f) => f.endsWith('.patch'))).toEqual(['0001-mm-memcontrol-Convert-cgroup_memory_nobpf-to-a-stati.patch']);
  const text = fs.readFileSync(patchFile(), 'utf8');
  const { headers, body } = splitMail(text);
  expect(getHeader(headers, 'Subject')).toBe('[PATCH] mm: memcontrol: Convert cgroup_memory_nobpf to a static key');
  expect(getHeader(headers, 'To')).toContain('Johannes Weiner <hannes@cmpxchg.org>');
  expect(getHeader(headers, 'To')).toContain('Andrew Morton <akpm@linux-foundation.org>');
  expect(getHeader(headers, 'Cc')).toContain('linux-mm@kvack.org');
  expect(getHeader(headers, 'Cc')).toContain('Muchun Song <muchun.song@linux.dev>');
  expect(getHeader(headers, 'In-Reply-To')).toBeUndefined();
  expect(body).toMatch(/^base-commit: [0-9a-f]{40}$/m);
  expect(body).toContain(' mm/memcontrol.c | ');
  expect((await runCheckpatch(tree.root, text, { strict: true })).findings).toEqual([]);
  const again = await run('emit', series, '--out', out, '--json');
  expect(JSON.parse(again.out).messages[0].messageId).toBe(getHeader(headers, 'Message-Id'));
  expect(fs.readFileSync(path.join(dir(), 'series.mbox'), 'utf8')).toBe(text);
  // The statement is wrapped to 72 columns like the rest of the message.
  const statement = text.slice(text.indexOf('Checked with kseries:')).split('\n\n')[0]!;
  expect(statement.split('\n').every((l) => l.length <= 72)).toBe(true);
  // The series adds a static key, so check booted it under lockdep with its __setup() writer run.
  expect(statement.replace(/\n/g, ' ')).toMatch(/^Checked with kseries: 1 of 1 patches built one by one \(x86_64 defconfig plus [^;]*CONFIG_MEMCG[^;]*, CONFIG_WERROR off with [^;]*gcc[^;]*; W=1\) with no new warnings; what each patch changes of its objects is below its ---; in the built objects \(objdump\), every test the patches convert is a __jump_table entry of its new key, a NOP in the code that runs \(1 conversion\); checkpatch\.pl reports no errors or warnings; the series boots clean on x86-64 minimal\+lockdep in QEMU\/(KVM|TCG), writers exercised: cgroup\.memory=nobpf\.$/);
  // Recipients of the emitted mail are checked against get_maintainer.pl on the next check.
  const recheck = await run('check', series, '--out', out, '--no-build', '--json');
  expect(JSON.parse(recheck.out).patches[0].problems).toEqual([]);
});

test('git am of the emitted patch gives exactly the series tree', () => {
  const base = git(tree.root, 'rev-parse', `kseries/${series}/v1~1`).trim();
  expect(amTree(tree.root, base, [patchFile()])).toBe(git(tree.root, 'rev-parse', `kseries/${series}/v1^{tree}`).trim());
});

test('--config FILE builds with that configuration in a build directory of its own', async () => {
  const own = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-config-'));
  const config = path.join(own, 'tiny.config');
  // A minimal config has neither MEMCG nor CGROUPS (the `if CGROUPS` around MEMCG): kseries switches both on.
  fs.writeFileSync(config, TWO_LINE_CONFIG);
  const r = await run('check', series, '--out', own, '--config', config, '--no-boot', ...X86_GCC, '--json');
  expect(r.err).toBe('');
  const report = JSON.parse(r.out) as CheckReport;
  expect(report.config).toBe(config);
  expect(report.patches[0]!.build).toMatchObject({ status: 'ok', objects: ['mm/memcontrol.o'], newWarnings: [] });
  fs.rmSync(own, { recursive: true, force: true });
});
