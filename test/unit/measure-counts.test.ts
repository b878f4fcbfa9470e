// How a measured candidate's sites become its rates: the readings of kprobe_profile around each phase, the reference
// events beside them, and the path the tests are on.
import { describe, expect, test } from 'vitest';
import type { GuestRun } from '../../src/boot/guest.js';
import type { Phase, Workload } from '../../src/boot/workloads.js';
import { countHits, type Hits, type MeasureSite } from '../../src/measure/counts.js';
import type { MeasuredCandidate, MeasureReport } from '../../src/recipes/static-key/measure.js';
import { demoFlags } from '../../src/commands/start.js';
import { describeHot } from '../../src/recipes/static-key/tree-wide/index.js';
import type { ProbeEvent } from '../../src/measure/events.js';
import { formatPerEvent, pathOf, perEvent, type ReferenceCount } from '../../src/measure/hotness.js';

const site = (name: string): MeasureSite => ({ site: `${name}+0x4`, probe: `${name}+0x4`, event: '', atBoot: false, init: false, boot: null, workload: null });
const phases: Phase[] = [
  { name: 'build', what: '', script: '' },
  { name: 'net', what: '', script: '' },
  { name: 'services', what: '', setup: true, script: '' },
];
const workload: Workload = { name: 'default', what: '', phases };
const refs: ReferenceCount[] = [
  { name: 'task exit', plural: 'task exits', hotAt: 0.5, phases: { build: 100, net: 10, services: 3 } },
  { name: 'packet sent', plural: 'packets sent', hotAt: 0.01, phases: { build: 0, net: 600, services: 0 } },
  { name: 'system call', plural: 'system calls', hotAt: 0.01, phases: { build: 9000, net: 3000, services: 50 } },
  { name: 'page allocation', plural: 'page allocations', hotAt: 0.01, notMeasured: 'no such function' },
];

function candidate(...sites: MeasureSite[]): MeasuredCandidate {
  return { file: 'fs/sysfs/mount.c', variable: 'sysfs_initialized', line: 1, verdict: 'auto', needs: [], object: 'fs/sysfs/mount.o', sites };
}

function run(readings: Partial<Record<'before' | 'build' | 'net' | 'services' | 'after', [string, number][]>>): GuestRun {
  const map = (k: keyof typeof readings) => readings[k] && new Map(readings[k]);
  return {
    profiles: { boot: new Map(), before: map('before'), after: map('after'), phases: new Map((['build', 'net', 'services'] as const).filter((p) => readings[p]).map((p) => [p, map(p)!])) },
    refused: [],
    eventErrors: new Map(),
    workloadSeconds: 2,
  } as unknown as GuestRun;
}

const events = (...sites: MeasureSite[]) => new Map<MeasureSite, ProbeEvent>(sites.map((s, i) => [s, { name: `ks${i}`, definition: `p:kseries/ks${i} x${i}`, atBoot: false }]));

test('a site whose count went down between the readings is not measured, and the rate is never negative', () => {
  const [up, down] = [site('pci_create_sysfs_dev_files'), site('pci_remove_sysfs_dev_files')];
  const m = candidate(up, down);
  countHits(m, run({ before: [['ks0', 10], ['ks1', 9]], after: [['ks0', 14], ['ks1', 6]] }), [], { workload, config: 'minimal+lockdep', references: refs }, events(up, down));
  expect(down.notMeasured).toMatch(/^its count in kprobe_profile went down from 9 to 6 during the workload/);
  expect(up.workload).toBe(4);
  expect(m.hits).toMatchObject({ perSecond: 2 });
});

test('a count that goes down within a phase (a garbled reading that passed) is no reading either', () => {
  const s = site('f');
  const m = candidate(s);
  countHits(m, run({ before: [['ks0', 10]], build: [['ks0', 30]], net: [['ks0', 3]], after: [['ks0', 40]] }), [], { workload, config: 'c', references: refs }, events(s));
  expect(s.notMeasured).toMatch(/went down from 30 to 3 in the net phase/);
  expect(m.hits).toBeUndefined();
});

test('hits per phase: an event missing from a later reading had no hit there; absent from the first one, it was refused', () => {
  const [a, b] = [site('a'), site('b')];
  const m = candidate(a, b);
  countHits(m, run({ before: [['ks0', 5]], build: [['ks0', 105]], net: [['ks0', 165]], services: [['ks0', 166]], after: [['ks0', 166]] }), [], { workload, config: 'c', references: refs }, events(a, b));
  expect(b.notMeasured).toBe('the kernel refused a kprobe at b+0x4');
  expect(m.hits).toMatchObject({ phases: { build: 100, net: 60, services: 1 }, perSecond: 80.5, path: 'hot' });
  // 160 tests in the system phases (100, 60): nearer the system calls' 9000 and 3000 than the task exits' 100 and 10.
  expect(m.hits!.perEvent).toEqual({ event: 'system call', events: 'system calls', hotAt: 0.01, per: 0.0133 });
});

describe('hotness per event', () => {
  test('the reference event is the one whose counts follow the flag across the phases, not the rarest one', () => {
    expect(perEvent({ build: 0, net: 1200 }, refs, phases)).toEqual({ event: 'packet sent', events: 'packets sent', hotAt: 0.01, per: 2 });
    expect(perEvent({ build: 90, net: 30 }, refs, phases)).toEqual({ event: 'system call', events: 'system calls', hotAt: 0.01, per: 0.01 });
    expect(perEvent({ build: 0, net: 0, services: 9 }, refs, phases)).toBeUndefined();
  });

  test('hot, rare, setup/teardown, boot only, never', () => {
    expect(pathOf({ build: 90, net: 30 }, null, { event: 'system call', events: 'system calls', hotAt: 0.01, per: 0.01 }, phases)).toBe('hot');
    expect(pathOf({ build: 9, net: 3 }, null, { event: 'system call', events: 'system calls', hotAt: 0.01, per: 0.001 }, phases)).toBe('rare');
    expect(pathOf({ build: 0, net: 0, services: 5 }, 3, undefined, phases)).toBe('setup');
    // Task exits are rarer: a flag driven by them is hot only when tested at most every second exit.
    expect(pathOf({ build: 4, net: 0 }, null, { event: 'task exit', events: 'task exits', hotAt: 0.5, per: 0.026 }, phases)).toBe('rare');
    expect(pathOf({ build: 150, net: 0 }, null, { event: 'task exit', events: 'task exits', hotAt: 0.5, per: 1 }, phases)).toBe('hot');
    expect(pathOf({ build: 0, services: 0 }, 3, undefined, phases)).toBe('boot');
    expect(pathOf({}, 0, undefined, phases)).toBe('never');
  });

  test('as messages say it', () => {
    expect(formatPerEvent({ event: 'page allocation', events: 'page allocations', hotAt: 0.01, per: 2.5 })).toBe('2.5 per page allocation');
    expect(formatPerEvent({ event: 'context switch', events: 'context switches', hotAt: 0.01, per: 0.0125 })).toBe('1 per 80 context switches');
  });
});

describe('what npm start converts', () => {
  const c = (variable: string, verdict: 'auto' | 'manual', hits?: Partial<Hits>): MeasuredCandidate => ({
    ...candidate(),
    variable,
    verdict,
    needs: verdict === 'manual' ? ['a param setter'] : [],
    ...(hits ? { hits: { boot: null, perSecond: 1, workload: 'default', config: 'c', phases: {}, ...hits } } : { notMeasured: 'not built' }),
  });
  const report = (...candidates: MeasuredCandidate[]) => ({ candidates }) as unknown as MeasureReport;

  test('only auto flags on a hot path, hottest by tests per event; the hottest of any verdict are named when none is', () => {
    const per = (n: number) => ({ event: 'system call', events: 'system calls', hotAt: 0.01, per: n });
    const m = report(
      c('setup_only', 'auto', { path: 'setup', perSecond: 900 }),
      c('warm', 'auto', { path: 'hot', perEvent: per(0.05), perSecond: 20 }),
      c('hotter', 'auto', { path: 'hot', perEvent: per(2), perSecond: 10 }),
      c('manual_hot', 'manual', { path: 'hot', perEvent: per(5), perSecond: 4000 }),
      c('unmeasured', 'auto'),
    );
    expect(demoFlags(m).pool.map((x) => x.variable)).toEqual(['hotter', 'warm']);
    const none = demoFlags(report(c('setup_only', 'auto', { path: 'setup', perSecond: 900 }), c('manual_hot', 'manual', { path: 'hot', perEvent: per(5), perSecond: 4000 })));
    expect(none.pool).toEqual([]);
    expect(none.hottest.map((x) => describeHot(x, x.hits!))).toEqual([
      'manual_hot (manual, needs a param setter; hot path, 5 per system call, 4000/s)',
      'setup_only (auto; setup/teardown path, 900/s)',
    ]);
  });
});
