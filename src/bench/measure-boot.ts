// Bench case: what `kseries measure` adds to a boot. The whole measurement without its build (boot with a kprobe event
// on every test, workload, readout) beside the same QEMU boot and workload with no kprobe events, in the same run.
import path from 'node:path';
import { chooseAccel } from '../boot/accel.js';
import { bootGuest } from '../boot/guest.js';
import { WORKLOADS } from '../boot/workloads.js';
import { measure } from '../recipes/static-key/measure.js';
import { cacheDir } from '../tree/paths.js';
import type { KernelTree } from '../tree/tree.js';
import { timed, type BenchResult } from './measure.js';

export async function benchMeasure(tree: KernelTree): Promise<BenchResult[]> {
  const log = (l: string) => console.error(`measure: ${l}`);
  // The first call builds the boot kernel (the auto flags', as npm start measures) when it is not built yet; the second
  // boots again with nothing to build.
  await measure({ tree, config: 'minimal', workload: 'default', candidates: 'auto', log });
  const r = await measure({ tree, config: 'minimal', workload: 'default', candidates: 'auto', fresh: true, log });
  const events = r.candidates.flatMap((c) => c.sites).filter((s) => s.event).length;
  const bzImage = path.join(r.buildDir, 'arch/x86/boot/bzImage');
  const accel = await chooseAccel(bzImage);
  const plain = await timed(() =>
    bootGuest({ bzImage, buildDir: r.buildDir, workDir: path.join(cacheDir(), 'bench', 'plain-boot'), workload: WORKLOADS.default!, params: [], lateEvents: [], accel, timeoutMs: 600_000 }),
  );
  return [
    {
      name: `measure, ${r.kernel} kernel with the auto flags' objects, default workload, build excluded (${events} kprobe events, ${r.candidates.filter((c) => c.hits).length} candidates measured; ${r.accel.toUpperCase()}; workload ${r.boot.workloadSeconds} s with events, ${plain.value.workloadSeconds} s without)`,
      ours: r.seconds.sites + r.seconds.boot,
      peerName: 'the same QEMU boot and workload without kprobe events',
      peer: plain.seconds,
      // Issue 21: the measurement's events may cost a boot and its workload at most half as much again.
      target: '≤ 1.5×',
      ok: r.seconds.sites + r.seconds.boot <= 1.5 * plain.seconds,
    },
  ];
}
