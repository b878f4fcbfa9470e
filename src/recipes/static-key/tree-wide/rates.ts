// How often a flag's tests ran in a booted kernel (kseries measure), as the commit messages and cover letters say it:
// per occurrence of the event that drives them first, per second of the workload beside it.
import { formatPerEvent } from '../../../measure/hotness.js';
import type { FlagCandidate } from '../scan.js';
import type { RuntimeEvidence } from '../../types.js';

/** How often the flag's tests ran in the measured boot, as the messages say it. */
export function rateVars(runtime: RuntimeEvidence | undefined, c: FlagCandidate): { perSecond: number | null; rateText: string; rateShort: string } {
  const none = { perSecond: null, rateText: 'Its tests were not measured in a running kernel.', rateShort: 'not measured' };
  const h = runtime?.of(c.file, c.variable);
  if (!runtime || !h) return none;
  const kernel = `an x86-64 ${runtime.config} kernel under QEMU/${runtime.accel.toUpperCase()}, a kprobe event on each test`;
  if ('notMeasured' in h) return { ...none, rateText: `Its tests were not measured in a running kernel (${kernel}): ${h.notMeasured}.` };
  const boot = h.boot === null ? '' : ` and ${times(h.boot)} during boot`;
  const perSecond = `${h.perSecond} times per second of the ${runtime.workload} workload`;
  const rate =
    h.perSecond === null ? `ran ${times(h.boot ?? 0)} during boot`
    : h.perEvent ? `ran ${formatPerEvent(h.perEvent)} (${perSecond})${boot}`
    : h.path === 'setup' ? `ran only while the ${runtime.workload} workload started and stopped services (${perSecond}), on a setup/teardown path${boot}`
    : `ran ${perSecond}${boot}`;
  const short = [h.perEvent ? formatPerEvent(h.perEvent) : '', h.perSecond === null ? '' : `${h.perSecond} per second`, h.boot === null ? '' : `${h.boot} at boot`].filter(Boolean).join(', ');
  return { perSecond: h.perSecond, rateText: `Measured in ${kernel}: its tests ${rate}.`, rateShort: short || 'not measured' };
}

function times(n: number): string {
  return n === 1 ? 'once' : `${n} times`;
}
