// Runtime evidence on the real 6.12 tree: the minimal+lockdep kernel boots under QEMU and counts the tests of the auto
// flags (the kernel npm start measures in, test/helpers/kernels.ts);
// a series whose static-key writer runs under a spinlock fails its boot with the might_sleep report quoted.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CheckReport } from '../../src/check/report.js';
import type { MeasureReport } from '../../src/recipes/static-key/measure.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { MEASURED, X86_GCC } from '../helpers/kernels.js';
import { cli, FIXTURE_RECIPES, userTree } from '../helpers/tree.js';

let tree: KernelTree;
let out: string;
const run = (...args: string[]) => cli(['--tree', tree.root, '--recipes', FIXTURE_RECIPES, ...args]);

beforeAll(async () => {
  tree = await userTree();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-measure-'));
});
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

// npm start measured in the same kernel at the same commit (it runs first): its kept boot is read, as a second
// `measure` would; run alone, this file boots.
test('measure boots the minimal+lockdep kernel under QEMU and counts at least one flag at a nonzero rate; what is not built is never a zero', async () => {
  const r = await run('measure', ...MEASURED, '--json');
  expect(r.code, r.err).toBe(0);
  const m = JSON.parse(r.out) as MeasureReport;
  console.log(`measure: ${m.accel} (${m.accelWhy}); boot ${m.boot.seconds} s, workload ${m.boot.workloadSeconds} s; ${m.candidates.filter((c) => c.hits).length} of ${m.candidates.length} measured${m.cached ? ' (kept from an earlier boot)' : ''}`);
  expect(m).toMatchObject({ config: 'minimal', kernel: 'minimal+lockdep', candidatesMeasured: 'auto', workload: 'default', problems: [] });
  expect(m.boot).toMatchObject({ reachedInit: true, finished: true, workloadStatus: 0, timedOut: false });
  expect(fs.readFileSync(m.boot.consoleLog, 'utf8')).toContain('@@kseries done');
  expect(['kvm', 'tcg']).toContain(m.accel);
  const hot = m.candidates.filter((c) => (c.hits?.perSecond ?? 0) > 0);
  expect(hot.length).toBeGreaterThan(0);
  // The reference events beside them, each counted in the phases that do what it counts.
  const ref = (name: string) => m.references.find((x) => x.name === name)!;
  console.log(`measure: references ${m.references.map((x) => `${x.name} ${x.symbol ?? x.notMeasured} ${JSON.stringify(x.phases ?? {})}`).join('; ')}`);
  expect(m.references.map((x) => x.name)).toEqual(['system call', 'page allocation', 'context switch', 'packet sent', 'task exit']);
  expect(m.references.every((x) => x.phases)).toBe(true);
  expect(ref('packet sent').phases!.net).toBeGreaterThan(0);
  expect(ref('task exit').phases!.build).toBeGreaterThan(ref('task exit').phases!.idle!);
  expect(ref('page allocation').phases!.memory).toBeGreaterThan(ref('page allocation').phases!.idle!);
  expect(m.boot.phases.map((p) => [p.name, p.status])).toEqual([['build', 0], ['net', 0], ['memory', 0], ['idle', 0], ['services', 0]]);
  // Every measured flag has a path; one tested in the phases of what a system does has its tests per event too.
  for (const c of hot) expect(['hot', 'rare', 'setup']).toContain(c.hits!.path);
  for (const c of hot.filter((x) => ['hot', 'rare'].includes(x.hits!.path!))) expect(c.hits!.perEvent!.per).toBeGreaterThan(0);
  // memcg's flags are read when a cgroup is made or freed: only in the services phase, a setup/teardown path.
  for (const c of m.candidates.filter((x) => x.variable.startsWith('cgroup_memory_no') && x.hits?.perSecond)) expect(c.hits!.path).toBe('setup');
  for (const c of m.candidates) {
    if (c.hits) {
      expect(c.notMeasured).toBeUndefined();
      expect(c.sites.filter((s) => !s.notMeasured).length).toBeGreaterThan(0);
      expect(c.hits).toMatchObject({ workload: 'default', config: 'minimal+lockdep' });
    } else {
      expect(c.notMeasured).toMatch(/\S/);
    }
  }
  const notBuilt = m.candidates.filter((c) => /not built in minimal\+lockdep/.test(c.notMeasured ?? ''));
  expect(notBuilt.length).toBeGreaterThan(0);
  expect(notBuilt.every((c) => c.hits === undefined)).toBe(true);

  // The same boot, read again from the cache, gives scan --measure its hits.
  const s = await run('scan', 'static-keys', '--path', path.dirname(hot[0]!.file), '--measure', ...MEASURED, '--json');
  expect(s.code, s.err).toBe(0);
  const found = (JSON.parse(s.out).candidates as { file: string; variable: string; hits?: unknown }[]).find((c) => c.file === hot[0]!.file && c.variable === hot[0]!.variable);
  expect(found?.hits).toEqual(hot[0]!.hits);
});

test('a series whose static-key writer holds a spinlock fails its lockdep boot, with the report quoted', async () => {
  const g = await run('generate', 'planted-spinlock-key', '--json');
  expect(g.code, g.err).toBe(0);
  const r = await run('check', JSON.parse(g.out).series, '--out', out, ...X86_GCC, '--json');
  const report = JSON.parse(r.out) as CheckReport;
  expect(r.code).toBe(1);
  expect(report.patches[0]!.build.status).toBe('ok');
  const boot = report.boot!;
  expect(boot).toMatchObject({ config: 'minimal+lockdep', ok: false });
  expect(boot.writers).toEqual([expect.objectContaining({ file: 'kernel/panic.c', function: 'panic_planted_init', runs: 'initcall' })]);
  expect(boot.failures.join('\n')).toMatch(/BUG: sleeping function called from invalid context/);
  expect(boot.statement).toMatch(/^does not boot clean on x86-64 minimal\+lockdep in QEMU\/(KVM|TCG), writers exercised: panic_planted_init\(\) \(initcall\)$/);
  expect(fs.readFileSync(boot.consoleLog, 'utf8')).toContain('panic_planted_init');
});

test('a sysctl turned into a static key with a setter: proven in the object code, and read back and written in the booted kernel', async () => {
  const g = await run('generate', 'static-key-toggle', '--only', 'fs/namei.c:sysctl_protected_symlinks', '--json');
  expect(g.code, g.err).toBe(0);
  const r = await run('check', JSON.parse(g.out).series, '--out', out, ...X86_GCC, '--json');
  const report = JSON.parse(r.out) as CheckReport;
  expect(r.code, JSON.stringify(report.boot?.failures)).toBe(0);
  const [p] = report.patches;
  expect(p!.build).toMatchObject({ status: 'ok', newWarnings: [] });
  expect(p!.proofs.map((x) => [x.claim, x.ok])).toEqual([['sysctl_protected_symlinks -> sysctl_protected_symlinks_key', true]]);
  const boot = report.boot!;
  expect(boot).toMatchObject({ config: 'minimal+lockdep', ok: true, failures: [] });
  expect(boot.toggles).toEqual([{ path: '/proc/sys/fs/protected_symlinks', where: expect.stringMatching(/^fs\/namei\.c:\d+$/), ok: true }]);
  expect(boot.statement).toMatch(/read back and written: \/proc\/sys\/fs\/protected_symlinks$/);
  // What the workload read and wrote, as the console shows it: the value the sysctl had, each write, each refusal.
  const lines = fs.readFileSync(boot.consoleLog, 'utf8').split(/\r?\n/).filter((l) => l.includes('@@kseries toggle'));
  expect(lines.map((l) => l.replace(/^.*@@kseries toggle \S+ /, ''))).toEqual(['read 1', 'write 1 ok 1', 'write 0 ok 0', 'write 2 refused 0', 'write -1 refused 0']);
});
