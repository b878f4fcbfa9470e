// One boot of a built kernel under QEMU: kseries' /init mounts what it needs, reads kprobe_profile when init starts,
// adds the kprobe events that did not fit on the command line, runs the workload's phases with a reading before and
// after each, and ends the guest. Everything it reports is a line starting with MARK on the serial console.
import { createHash } from 'node:crypto';
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
  /** The first nonzero exit status of a phase, else 0. */
  workloadStatus?: number;
  workloadSeconds?: number;
  /** Each phase of the workload that ran: its seconds and exit status. */
  phases: { name: string; seconds: number; status: number }[];
  /** kprobe_profile when init started, just before the workload, after each phase (by name), and after it. */
  profiles: { boot?: Profile; before?: Profile; after?: Profile; phases: Map<string, Profile> };
  /** Readings the console garbled (their rows or md5 differ from what /init announced): not used. */
  garbled: string[];
  /** Seconds /init spent adding the late events and enabling all of them. */
  placing?: { adding: number; enabling: number };
  /** Late event definitions tracefs refused. */
  refused: string[];
  /** Why the kernel refused an event, by event name, as it said it on the console. */
  eventErrors: Map<string, string>;
  consoleLog: string;
}

/**
 * The /init of every kseries boot (busybox sh). A kprobe_profile reading is printed twice as `name hits` rows between a
 * `profile <reading> <rows> <md5>` mark and an `end` mark (the md5 of the rows as /init printed them, so a copy the
 * console garbled is seen and the other one read); the readings before the workload list every event, the later
 * ones those with hits.
 */
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
uptime_() { cut -d' ' -f1 /proc/uptime; }
T=/sys/kernel/tracing
profile() {
  [ -e $T/kprobe_profile ] || return 0
  if [ "$2" = all ]; then awk '{ print $1, $2 }' $T/kprobe_profile > /kseries/reading
  else awk '$2 != 0 { print $1, $2 }' $T/kprobe_profile > /kseries/reading; fi
  # Twice: the serial console loses characters now and then (seen under TCG: "ks37 0" arrived as "7 0").
  for copy in 1 2; do
    say profile $1 $(wc -l < /kseries/reading) $(md5sum < /kseries/reading | cut -c1-32)
    cat /kseries/reading
    say end
  done
}
say init
mount -t tracefs tracefs $T 2>/dev/null
if [ -e $T/kprobe_profile ]; then
  echo 0 > $T/tracing_on
  profile boot all
  say events-adding $(uptime_)
  while read -r def; do
    echo "$def" >> $T/kprobe_events 2>/dev/null || say refused "$def"
  done < /kseries/events
  say events-enabling $(uptime_)
  [ -d $T/events/${EVENT_GROUP} ] && echo 1 > $T/events/${EVENT_GROUP}/enable
  profile before all
fi
say workload-start $(uptime_)
status=0
for phase in $(ls /kseries/phases 2>/dev/null); do
  say phase-start $phase $(uptime_)
  sh /kseries/phases/$phase
  s=$?
  [ $status -ne 0 ] || status=$s
  say phase-end $phase $(uptime_) $s
  profile phase:$phase
done
say workload-end $(uptime_) $status
profile after
say kernel-log; dmesg; say end
say done
reboot -f
`;
}

/** The phases as /init finds them: /kseries/phases/01-build, ... (ls sorts them in order). */
function phaseFiles(w: Workload): Record<string, string> {
  return Object.fromEntries(w.phases.map((p, i) => [`phases/${String(i + 1).padStart(2, '0')}-${p.name}`, p.script]));
}

/** The command line every boot starts with: the serial console, no address randomization, QEMU exits on a panic. */
export const BASE_PARAMS = ['console=ttyS0', 'panic=-1', 'nokaslr'];

export async function bootGuest(spec: GuestSpec): Promise<GuestRun> {
  fs.mkdirSync(spec.workDir, { recursive: true });
  const initrd = await makeInitramfs(spec.buildDir, path.join(spec.workDir, 'initramfs.cpio'), initScript(), {
    ...phaseFiles(spec.workload),
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

type Parsed = Pick<GuestRun, 'reachedInit' | 'finished' | 'workloadStatus' | 'workloadSeconds' | 'phases' | 'profiles' | 'garbled' | 'placing' | 'refused' | 'eventErrors'>;

export function parseConsole(text: string): Parsed {
  const lines = text.split(/\r?\n/);
  const out: Parsed = { reachedInit: false, finished: false, phases: [], profiles: { phases: new Map() }, garbled: [], refused: [], eventErrors: new Map() };
  // The reading being read: its name, the rows and md5 /init announced, the rows as printed.
  let reading: { name: string; rows: number; md5: string; lines: string[] } | undefined;
  const times = new Map<string, number>();
  const intact = new Set<string>();
  // The first garbled copy of each reading, as it was garbled.
  const spoiled = new Map<string, string>();
  let said = '';
  for (const line of lines) {
    const at = line.indexOf(MARK);
    // trace_kprobe says why (a notrace function, ...), then "Failed to add event(-22): p:group/name ...".
    const failed = /trace_kprobe: Failed to add event\((-?\d+)\): p:\w+\/(\w+)/.exec(line);
    if (failed) out.eventErrors.set(failed[2]!, said || `error ${failed[1]}`);
    const why = /trace_kprobe: (?!Failed to add event)(.*)$/.exec(line);
    said = why ? why[1]!.trim() : failed ? '' : said;
    if (at < 0) {
      reading?.lines.push(line);
      continue;
    }
    const [word = '', ...rest] = line.slice(at + MARK.length).trim().split(/\s+/);
    if (word === 'init') out.reachedInit = true;
    else if (word === 'done') out.finished = true;
    else if (word === 'end') {
      if (reading && !intact.has(reading.name)) {
        const garbled = keepReading(out, reading);
        if (garbled === undefined) intact.add(reading.name);
        else if (!spoiled.has(reading.name)) spoiled.set(reading.name, garbled);
      }
      reading = undefined;
    } else if (word === 'profile') reading = { name: rest[0] ?? '', rows: Number(rest[1]), md5: rest[2] ?? '', lines: [] };
    else if (word === 'refused') out.refused.push(rest.join(' '));
    else if (['events-adding', 'events-enabling', 'workload-start'].includes(word)) times.set(word, Number(rest[0]));
    else if (word === 'phase-start') times.set(`phase ${rest[0]}`, Number(rest[1]));
    else if (word === 'phase-end' && times.has(`phase ${rest[0]}`)) {
      out.phases.push({ name: phaseName(rest[0]!), seconds: seconds(Number(rest[1]) - times.get(`phase ${rest[0]}`)!), status: Number(rest[2]) });
    } else if (word === 'workload-end' && times.has('workload-start')) {
      out.workloadSeconds = seconds(Number(rest[0]) - times.get('workload-start')!);
      out.workloadStatus = Number(rest[1]);
    }
  }
  // A reading none of whose copies arrived intact is garbled (as its first copy says).
  out.garbled = [...spoiled].filter(([name]) => !intact.has(name)).map(([, how]) => how);
  const [adding, enabling, started] = ['events-adding', 'events-enabling', 'workload-start'].map((t) => times.get(t));
  if (adding !== undefined && enabling !== undefined && started !== undefined) out.placing = { adding: seconds(enabling - adding), enabling: seconds(started - enabling) };
  return out;
}

function seconds(s: number): number {
  return Math.round(s * 100) / 100;
}

/** `03-memory` -> `memory`. */
function phaseName(file: string): string {
  return file.replace(/^\d+-/, '');
}

/** A reading whose rows and md5 are those /init announced is kept (by its name); for another, how it was garbled. */
function keepReading(out: Parsed, r: { name: string; rows: number; md5: string; lines: string[] }): string | undefined {
  const rows = r.lines.map((l) => l.trim()).filter(Boolean);
  const md5 = createHash('md5').update(rows.map((l) => `${l}\n`).join('')).digest('hex');
  const parsed = rows.map((l) => /^(\S+) (\d+)$/.exec(l));
  if (rows.length !== r.rows || md5 !== r.md5 || parsed.some((m) => !m)) {
    return `${r.name} (${r.rows} rows announced, ${rows.length} read${md5 !== r.md5 ? ', md5 differs' : ''})`;
  }
  const profile: Profile = new Map(parsed.map((m) => [m![1]!, Number(m![2])]));
  if (r.name.startsWith('phase:')) out.profiles.phases.set(phaseName(r.name.slice('phase:'.length)), profile);
  else out.profiles[r.name as 'boot' | 'before' | 'after'] = profile;
  return undefined;
}
