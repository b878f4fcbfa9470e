// The kprobe events of a measurement: one per test site, named ks<N> in kseries' group. As many as fit go on the
// kernel command line (kprobe_event=, counted from boot); the rest are written to tracefs by /init after boot.
import { BASE_PARAMS, EVENT_GROUP } from '../boot/guest.js';

/** x86's COMMAND_LINE_SIZE is 2048 bytes; kseries leaves room for the console and other parameters. */
const COMMAND_LINE_ROOM = 2048 - 160;

export interface ProbeEvent {
  name: string;
  /** As kprobe_events takes it: `p:kseries/ks3 func+0x1a`. */
  definition: string;
  atBoot: boolean;
}

export interface PackedEvents<S> {
  /** The kernel parameters that place the boot events (none or one kprobe_event=). */
  params: string[];
  atBoot: ProbeEvent[];
  late: ProbeEvent[];
  byEvent: Map<S, ProbeEvent>;
}

/**
 * Name and place an event per site. Sites in __init code go first on the command line, because that code is freed
 * after boot and can only be probed from it; an init site that does not fit gets no event at all.
 */
export function packEvents<S extends { probe: string; init: boolean }>(sites: S[], room = COMMAND_LINE_ROOM - BASE_PARAMS.join(' ').length): PackedEvents<S> {
  const ordered = [...sites.filter((s) => s.init), ...sites.filter((s) => !s.init)];
  const out: PackedEvents<S> = { params: [], atBoot: [], late: [], byEvent: new Map() };
  let used = 'kprobe_event='.length;
  for (const [i, s] of ordered.entries()) {
    const name = `ks${i}`;
    const definition = `p:${EVENT_GROUP}/${name} ${s.probe}`;
    const cost = definition.length + (out.atBoot.length > 0 ? 1 : 0);
    const fits = used + cost <= room;
    if (!fits && s.init) continue;
    const e = { name, definition, atBoot: fits };
    if (fits) used += cost;
    (fits ? out.atBoot : out.late).push(e);
    out.byEvent.set(s, e);
  }
  if (out.atBoot.length > 0) out.params.push(`kprobe_event=${out.atBoot.map((e) => e.definition.replace(/ /g, ',')).join(';')}`);
  return out;
}
