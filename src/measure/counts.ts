// Counting how often instructions run in a booted kernel, whatever asks: each site's kprobe event read from the
// console readings around every phase of the workload, the reference events beside them, and a kernel's function
// symbols to place the events on. The static-key family's measurement (recipes/static-key/measure.ts) is one user.
import fs from 'node:fs';
import { EVENT_GROUP, type GuestRun } from '../boot/guest.js';
import type { Workload } from '../boot/workloads.js';
import { elfSections, elfSymbols, elfSymbolValues } from '../object-code/elf.js';
import type { ObjSymbol } from '../object-code/parse.js';
import type { ProbeEvent } from './events.js';
import { pathOf, perEvent, REFERENCES, type PathKind, type PerEvent, type ReferenceCount } from './hotness.js';

/** TCG boots a small kernel in seconds; a kernel with every hot test probed runs its workload slower. */
export const BOOT_TIMEOUT_MS = 600_000;

/** What is counted: sites (instructions) of one thing, its hits, or why it was not counted. */
export interface Measured {
  sites: MeasureSite[];
  hits?: Hits;
  /** `not measured: <why>`, never a zero. */
  notMeasured?: string;
}

export interface Hits {
  /** Hits from the kernel's start of tracing (fs_initcall) until init ran; null when the probe was placed after boot. */
  boot: number | null;
  /** Hits per second of the workload; null for the `boot` workload. */
  perSecond: number | null;
  workload: string;
  config: string;
  /** Hits in each phase of the workload. */
  phases: Record<string, number>;
  /** Tests per occurrence of the reference event that drives them (hotness.ts). */
  perEvent?: PerEvent;
  /** Where the tests run; undefined for a workload without phases of what a system does (`boot`). */
  path?: PathKind;
}

export interface MeasureSite {
  /** `function+0xoffset` in the built kernel. */
  site: string;
  /** What the kprobe event was placed on: the site, or its address where the function name is not unique. */
  probe: string;
  event: string;
  /** Placed on the command line (counts from boot), else through tracefs after boot. */
  atBoot: boolean;
  /** In __init code (freed after boot: it can only be counted from the command line). */
  init: boolean;
  boot: number | null;
  workload: number | null;
  /** Why this site was not counted. */
  notMeasured?: string;
}

/** vmlinux's function symbols: where a function of a given source file is, and whether its name is unique. */
export function kernelSymbols(vmlinux: string) {
  const image = fs.readFileSync(vmlinux);
  const sections = elfSections(vmlinux, image);
  const { symbols } = elfSymbols(image, sections);
  const values = elfSymbolValues(image, sections);
  type Found = { symbol: ObjSymbol; address: bigint; file: string };
  const byName = new Map<string, Found[]>();
  let file = '';
  for (const [i, s] of symbols.entries()) {
    if (s.kind === 'f') file = s.name;
    if (s.kind !== 'F') continue;
    const list = byName.get(s.name) ?? [];
    list.push({ symbol: s, address: values[i]!, file });
    byName.set(s.name, list);
  }
  return {
    /** The first function whose name `re` matches and that is the only one of that name. */
    unique(re: RegExp): string | undefined {
      return [...byName].find(([name, all]) => re.test(name) && all.length === 1)?.[0];
    },
    /** The function `name` of the source file `basename` (a static function may have namesakes in other files). */
    locate(name: string, basename: string): (Found & { unique: boolean }) | undefined {
      const all = byName.get(name) ?? [];
      if (all.length === 1) return { ...all[0]!, unique: true };
      const mine = all.filter((x) => x.file === basename);
      return mine.length === 1 ? { ...mine[0]!, unique: false } : undefined;
    },
  };
}

export function bootProblems(run: GuestRun): string[] {
  const problems: string[] = [];
  if (run.timedOut) problems.push(`the guest was stopped after ${BOOT_TIMEOUT_MS / 1000} s`);
  if (!run.reachedInit) problems.push('the kernel did not reach init');
  else if (!run.finished) problems.push('init did not run the workload to its end');
  if (run.workloadStatus !== undefined && run.workloadStatus !== 0) problems.push(`the workload exited with status ${run.workloadStatus}`);
  if (run.reachedInit && !run.profiles.boot && run.garbled.length === 0) problems.push('the guest has no kprobe_profile (tracefs or kprobe events missing from the config)');
  for (const g of run.garbled) problems.push(`the serial console garbled the kprobe_profile reading ${g}: the readings are not trusted`);
  return problems;
}

/** A reference event per REFERENCES entry the kernel has a function for (named ref<N>), or why it has none. */
export function referenceEvents(kernel: ReturnType<typeof kernelSymbols>): ReferenceCount[] {
  return REFERENCES.map((r, i) => {
    const symbol = r.symbols.map((re) => kernel.unique(re)).find(Boolean);
    const ref = { name: r.name, plural: r.plural, hotAt: r.hotAt };
    return symbol ? { ...ref, symbol, event: `ref${i}`, definition: `p:${EVENT_GROUP}/ref${i} ${symbol}` } : { ...ref, notMeasured: r.absent };
  });
}

/**
 * An event's hits in each phase (the difference of the readings around it; an event with no row after the first
 * reading had no hit) and over the whole workload; a string says why there is no count.
 */
function phaseHits(run: GuestRun, workload: Workload, event: string): { phases: Record<string, number>; total: number } | string {
  const { before, after } = run.profiles;
  const start = before?.get(event);
  if (start === undefined || !after) return `kprobe_profile has no reading of ${event}`;
  const end = after.get(event) ?? 0;
  // kprobe_profile's counts only grow: a reading that went down is no reading (never a negative rate).
  if (end < start) return `its count in kprobe_profile went down from ${start} to ${end} during the workload, which a kprobe's hit count never does: the readings are not trusted`;
  const phases: Record<string, number> = {};
  let last = start;
  for (const p of workload.phases) {
    const reading = run.profiles.phases.get(p.name);
    if (!reading) continue;
    const now = reading.get(event) ?? 0;
    if (now < last) return `its count in kprobe_profile went down from ${last} to ${now} in the ${p.name} phase, which a kprobe's hit count never does: the readings are not trusted`;
    phases[p.name] = now - last;
    last = now;
  }
  return { phases, total: end - start };
}

/**
 * Why the kernel has no event `name` (`definition` as written to kprobe_events; `at` as reports name the place):
 * tracefs refused it after boot, or it is missing from the first reading after the events were placed (a
 * command-line event the kernel refused at boot, with what trace_kprobe said); undefined when it was placed.
 */
function refusal(run: GuestRun, name: string, definition: string, at: string): string | undefined {
  if (!run.refused.includes(definition) && !(run.profiles.before && !run.profiles.before.has(name))) return undefined;
  const why = run.eventErrors.get(name);
  return `the kernel refused a kprobe at ${at}${why ? `: ${why}` : ''}`;
}

export function countReferences(refs: ReferenceCount[], run: GuestRun, workload: Workload): void {
  for (const r of refs) {
    if (!r.event || !r.definition) continue;
    const hits = refusal(run, r.event, r.definition, r.symbol!) ?? phaseHits(run, workload, r.event);
    if (typeof hits === 'string') r.notMeasured = hits;
    else r.phases = hits.phases;
  }
}

/** Sum each candidate's sites: hits at boot (command-line events only), per phase and per second of the workload. */
export function countHits(m: Measured, run: GuestRun, problems: string[], label: { workload: Workload; config: string; references: ReferenceCount[] }, byEvent: Map<MeasureSite, ProbeEvent>): void {
  if (m.notMeasured) return;
  const phases: Record<string, number> = {};
  for (const s of m.sites) {
    const e = byEvent.get(s);
    if (s.notMeasured || !e) {
      s.notMeasured ??= 'the command line had no room for its init-code probe';
      continue;
    }
    s.event = e.name;
    s.atBoot = e.atBoot;
    const refused = refusal(run, e.name, e.definition, s.site);
    if (refused) {
      s.notMeasured = refused;
      continue;
    }
    const hits = phaseHits(run, label.workload, e.name);
    if (typeof hits === 'string') {
      s.notMeasured = hits.startsWith('kprobe_profile has no') ? `${hits} (${s.site})` : hits;
      continue;
    }
    s.boot = e.atBoot ? (run.profiles.boot?.get(e.name) ?? null) : null;
    s.workload = hits.total;
    for (const [p, n] of Object.entries(hits.phases)) phases[p] = (phases[p] ?? 0) + n;
  }
  const counted = m.sites.filter((s) => !s.notMeasured);
  if (problems.length > 0 || counted.length === 0) {
    m.notMeasured = problems[0] ?? m.sites.map((s) => s.notMeasured).find(Boolean) ?? 'no site could be probed';
    return;
  }
  const sum = (xs: (number | null)[]) => (xs.some((x) => x === null) ? null : xs.reduce<number>((n, x) => n + x!, 0));
  const seconds = run.workloadSeconds;
  const workloadHits = sum(counted.map((s) => s.workload));
  const boot = sum(counted.map((s) => s.boot));
  const phased = label.workload.phases.some((p) => !p.setup);
  const per = phased ? perEvent(phases, label.references, label.workload.phases) : undefined;
  m.hits = {
    boot,
    perSecond: label.workload.phases.length === 0 || !seconds || workloadHits === null ? null : Math.round((workloadHits / seconds) * 10) / 10,
    workload: label.workload.name,
    config: label.config,
    phases,
    ...(per ? { perEvent: per } : {}),
    ...(phased ? { path: pathOf(phases, boot, per, label.workload.phases) } : {}),
  };
}
