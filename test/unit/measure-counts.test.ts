// How a measured candidate's sites become its rate: the readings of kprobe_profile before and after the workload.
import { expect, test } from 'vitest';
import type { GuestRun } from '../../src/boot/guest.js';
import { countHits, type MeasuredCandidate, type MeasureSite } from '../../src/measure/measure.js';
import type { ProbeEvent } from '../../src/measure/events.js';

const site = (name: string): MeasureSite => ({ site: `${name}+0x4`, probe: `${name}+0x4`, event: '', atBoot: false, init: false, boot: null, workload: null });

test('a site whose count went down between the readings is not measured, and the rate is never negative', () => {
  const [up, down] = [site('pci_create_sysfs_dev_files'), site('pci_remove_sysfs_dev_files')];
  const m: MeasuredCandidate = { file: 'fs/sysfs/mount.c', variable: 'sysfs_initialized', line: 1, verdict: 'auto', object: 'fs/sysfs/mount.o', sites: [up, down] };
  const byEvent = new Map<MeasureSite, ProbeEvent>([
    [up, { name: 'ks0', definition: 'p:kseries/ks0 x', atBoot: false }],
    [down, { name: 'ks1', definition: 'p:kseries/ks1 y', atBoot: false }],
  ]);
  const run = {
    profiles: { boot: new Map(), before: new Map([['ks0', 10], ['ks1', 9]]), after: new Map([['ks0', 14], ['ks1', 6]]) },
    refused: [],
    eventErrors: new Map(),
    workloadSeconds: 2,
  } as unknown as GuestRun;
  countHits(m, run, [], { workload: 'default', config: 'minimal+lockdep' }, byEvent);
  expect(down.notMeasured).toMatch(/^its count in kprobe_profile went down from 9 to 6 during the workload/);
  expect(up.workload).toBe(4);
  expect(m.hits).toMatchObject({ perSecond: 2 });
});
