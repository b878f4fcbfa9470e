// One boot of a built kernel under QEMU: kseries' /init mounts what it needs, reads kprobe_profile when init starts,
// adds the kprobe events that did not fit on the command line, runs the workload between two more readings, and
// ends the guest. Everything it reports is a line starting with MARK on the serial console.
import fs from 'node:fs';
import path from 'node:path';
import { withProgress, type OnProgress } from '../progress.js';
import { runQemu } from '../tools/qemu.js';
import type { Accel } from './accel.js';
import { makeInitramfs } from './initramfs.js';
import type { Workload } from './workloads.js';

const MARK = '@@kseries';

/** The group of kseries' kprobe events in tracefs. */
export const EVENT_GROUP = 'kseries';

export interface GuestSpec {
  bzImage: string;
  /** The build directory (its usr/gen_init_cpio packs the initramfs). */
  buildDir: string;
  /** Where the initramfs and the console log go. */
  workDir: string;
  workload: Workload;
  /** Kernel command-line parameters beyond the console's. */
  params: string[];
  /** kprobe_events lines /init adds through tracefs after boot. */
  lateEvents: string[];
  accel: Accel;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  /** Names the boot in progress reports ("booting the measured kernel"), which then say how far the guest got. */
  progress?: { what: string; report: OnProgress };
}

/** kprobe_profile: hits per event name. */
export type Profile = Map<string, number>;

export interface GuestRun {
  accel: Accel['accel'];
  cmdline: string;
  seconds: number;
  /** QEMU's exit code; 137 when it was killed at the timeout. */
  code: number;
  timedOut: boolean;
  /** /init ran (the kernel booted to user space). */
  reachedInit: boolean;
  /** /init ran the workload to its end and was about to power off. */
  finished: boolean;
  workloadStatus?: number;
  workloadSeconds?: number;
  /** kprobe_profile when init started, just before the workload, and after it. */
  profiles: { boot?: Profile; before?: Profile; after?: Profile };
  /** Late event definitions tracefs refused. */
  refused: string[];
  /** Why the kernel refused an event, by event name, as it said it on the console. */
  eventErrors: Map<string, string>;
  consoleLog: string;
}

/** The /init of every kseries boot (busybox sh). */
export function initScript(): string {
  return `#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
# Kernel messages go to the log buffer only from here, so they cannot cut the readings in two; the buffer (what the
# console already showed is cleared from it) is printed at the end.
dmesg -c > /dev/null
dmesg -n 1
say() { echo "${MARK} $*"; }
say init
T=/sys/kernel/tracing
mount -t tracefs tracefs $T 2>/dev/null
if [ -e $T/kprobe_profile ]; then
  echo 0 > $T/tracing_on
  say profile boot; cat $T/kprobe_profile; say end
  while read -r def; do
    echo "$def" >> $T/kprobe_events 2>/dev/null || say refused "$def"
  done < /kseries/events
  [ -d $T/events/${EVENT_GROUP} ] && echo 1 > $T/events/${EVENT_GROUP}/enable
  say profile before; cat $T/kprobe_profile; say end
fi
say workload-start $(cut -d' ' -f1 /proc/uptime)
sh /kseries/workload
status=$?
say workload-end $(cut -d' ' -f1 /proc/uptime) $status
if [ -e $T/kprobe_profile ]; then say profile after; cat $T/kprobe_profile; say end; fi
say kernel-log; dmesg; say end
say done
reboot -f
`;
}

/** The command line every boot starts with: the serial console, no address randomization, QEMU exits on a panic. */
export const BASE_PARAMS = ['console=ttyS0', 'panic=-1', 'nokaslr'];

export async function bootGuest(spec: GuestSpec): Promise<GuestRun> {
  fs.mkdirSync(spec.workDir, { recursive: true });
  const initrd = await makeInitramfs(spec.buildDir, path.join(spec.workDir, 'initramfs.cpio'), initScript(), {
    workload: spec.workload.script,
    events: spec.lateEvents.map((e) => `${e}\n`).join(''),
  }, spec.env);
  const cmdline = [...BASE_PARAMS, ...spec.params];
  const started = Date.now();
  const phase = guestPhase();
  const boot = () =>
    runQemu({
      bzImage: spec.bzImage,
      initrd,
      cmdline,
      accelArgs: spec.accel.qemuArgs,
      cpu: spec.accel.accel === 'kvm' ? 'host' : 'max',
      memoryMiB: 512,
      timeoutMs: spec.timeoutMs,
      onConsole: phase.read,
    });
  const what = spec.progress && `${spec.progress.what} under ${spec.accel.accel.toUpperCase()}`;
  const r = await withProgress(what ?? '', spec.progress?.report, () => ({ phase: phase.now() }), boot);
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  const consoleLog = path.join(spec.workDir, 'console.log');
  const text = `${r.stdout}${r.stderr ? `\n--- qemu stderr ---\n${r.stderr}` : ''}`;
  fs.writeFileSync(consoleLog, text);
  return { accel: spec.accel.accel, cmdline: cmdline.join(' '), seconds, code: r.code, timedOut: r.code === 137, consoleLog, ...parseConsole(r.stdout) };
}

/** How far a guest got, from the serial console as it arrives: the kernel's first line, then /init's marks. */
export function guestPhase(): { read: (chunk: Buffer) => void; now: () => string } {
  let phase = 'starting QEMU';
  let tail = '';
  const steps: [RegExp, string][] = [
    [/\S/, 'kernel booting'],
    [new RegExp(`${MARK} init\\b`), 'init running'],
    [new RegExp(`${MARK} workload-start\\b`), 'workload running'],
    [new RegExp(`${MARK} workload-end\\b`), 'workload done, reading the counts'],
    [new RegExp(`${MARK} done\\b`), 'powering off'],
  ];
  let next = 0;
  return {
    read: (chunk) => {
      // A mark may be cut in two by the chunking: look at the end of the last chunk too.
      const text = tail + chunk.toString('latin1');
      tail = text.slice(-64);
      for (let i = next; i < steps.length; i++) {
        if (steps[i]![0].test(text)) {
          phase = steps[i]![1];
          next = i + 1;
        }
      }
    },
    now: () => phase,
  };
}

export function parseConsole(text: string): Pick<GuestRun, 'reachedInit' | 'finished' | 'workloadStatus' | 'workloadSeconds' | 'profiles' | 'refused' | 'eventErrors'> {
  const lines = text.split(/\r?\n/);
  const out: ReturnType<typeof parseConsole> = { reachedInit: false, finished: false, profiles: {}, refused: [], eventErrors: new Map() };
  let profile: Profile | undefined;
  let start: number | undefined;
  let said = '';
  for (const line of lines) {
    const at = line.indexOf(MARK);
    // trace_kprobe says why (a notrace function, ...), then "Failed to add event(-22): p:group/name ...".
    const failed = /trace_kprobe: Failed to add event\((-?\d+)\): p:\w+\/(\w+)/.exec(line);
    if (failed) out.eventErrors.set(failed[2]!, said || `error ${failed[1]}`);
    const why = /trace_kprobe: (?!Failed to add event)(.*)$/.exec(line);
    said = why ? why[1]!.trim() : failed ? '' : said;
    if (at < 0) {
      const m = profile && /^\s*(\S+)\s+(\d+)\s+(\d+)\s*$/.exec(line);
      if (m) profile!.set(m[1]!, Number(m[2]));
      continue;
    }
    const [word = '', ...rest] = line.slice(at + MARK.length).trim().split(/\s+/);
    if (word === 'init') out.reachedInit = true;
    else if (word === 'done') out.finished = true;
    else if (word === 'end') profile = undefined;
    else if (word === 'profile') {
      profile = new Map();
      out.profiles[rest[0] as 'boot' | 'before' | 'after'] = profile;
    } else if (word === 'refused') out.refused.push(rest.join(' '));
    else if (word === 'workload-start') start = Number(rest[0]);
    else if (word === 'workload-end' && start !== undefined) {
      out.workloadSeconds = Math.round((Number(rest[0]) - start) * 100) / 100;
      out.workloadStatus = Number(rest[1]);
    }
  }
  return out;
}
