// Hotness per event, not per second of an emulator: beside each candidate's tests, the same boot counts the events a
// kernel developer reasons in (system calls, page allocations, context switches, packets sent, task exits), each by a
// kprobe event on a function every one of them runs, phase by phase. A flag's rate is then "N tests per page
// allocation", against the event whose counts across the workload's phases are most nearly proportional to its own.
import type { Phase } from '../boot/workloads.js';

export interface Reference {
  /** What one occurrence is: "per page allocation". */
  name: string;
  /** "1 per 40 page allocations". */
  plural: string;
  /** The functions that count it, the first one the kernel has (names change between versions). */
  symbols: RegExp[];
  /** Why a kernel may have none of them. */
  absent: string;
  /**
   * Tests per occurrence from which a flag driven by it is on a hot path: one in a hundred for the events a busy
   * machine counts in tens of thousands a second; every one for task exits, which it counts in hundreds.
   */
  hotAt: number;
}

/** x86-64. Each function runs once per occurrence and takes a kprobe at its entry. */
export const REFERENCES: Reference[] = [
  { name: 'system call', plural: 'system calls', symbols: [/^x64_sys_call$/], absent: 'no x64_sys_call() (the syscall dispatch outside noinstr code, Linux 6.9 and its stable backports)', hotAt: 0.01 },
  { name: 'page allocation', plural: 'page allocations', symbols: [/^__alloc_pages_noprof$/, /^__alloc_pages$/], absent: 'neither __alloc_pages_noprof() nor __alloc_pages()', hotAt: 0.01 },
  { name: 'context switch', plural: 'context switches', symbols: [/^finish_task_switch$/, /^finish_task_switch\.[\w.]+$/], absent: 'no finish_task_switch()', hotAt: 0.01 },
  { name: 'packet sent', plural: 'packets sent', symbols: [/^__dev_queue_xmit$/], absent: 'no __dev_queue_xmit() (no networking)', hotAt: 0.01 },
  { name: 'task exit', plural: 'task exits', symbols: [/^do_exit$/], absent: 'no do_exit()', hotAt: 0.5 },
];

/** A reference event of one boot: the function it counted and its hits per phase, or why it was not counted. */
export interface ReferenceCount {
  name: string;
  plural: string;
  hotAt: number;
  symbol?: string;
  event?: string;
  /** As kprobe_events takes it: `p:kseries/ref1 __alloc_pages_noprof`. */
  definition?: string;
  phases?: Record<string, number>;
  notMeasured?: string;
}

/**
 * Where a flag's tests run, from its hits per phase and at boot:
 * - hot: in the phases of what a system does, at least its reference event's hotAt tests per occurrence of it;
 * - rare: there, but less often;
 * - setup: only in setup/teardown phases (something started or stopped);
 * - boot: only while the kernel booted;
 * - never: not at all.
 */
export type PathKind = 'hot' | 'rare' | 'setup' | 'boot' | 'never';

export interface PerEvent {
  event: string;
  events: string;
  /** The reference event's hotAt. */
  hotAt: number;
  /** Tests per occurrence, rounded to 3 significant digits. */
  per: number;
}

/**
 * The reference event whose counts over the system phases are most nearly proportional to the flag's (the largest
 * cosine of the two vectors), and the flag's tests per occurrence of it; undefined when the flag was not tested in
 * those phases or no reference event was counted.
 */
export function perEvent(hits: Record<string, number>, refs: ReferenceCount[], phases: Phase[]): PerEvent | undefined {
  const system = phases.filter((p) => !p.setup).map((p) => p.name);
  const mine = system.map((p) => hits[p] ?? 0);
  const total = sum(mine);
  if (total === 0) return undefined;
  let best: { ref: ReferenceCount; cos: number; per: number } | undefined;
  for (const r of refs) {
    if (!r.phases) continue;
    const theirs = system.map((p) => r.phases![p] ?? 0);
    if (sum(theirs) === 0) continue;
    const cos = dot(mine, theirs) / Math.sqrt(dot(mine, mine) * dot(theirs, theirs));
    if (!best || cos > best.cos + 1e-9) best = { ref: r, cos, per: total / sum(theirs) };
  }
  return best && { event: best.ref.name, events: best.ref.plural, hotAt: best.ref.hotAt, per: Number(best.per.toPrecision(3)) };
}

export function pathOf(hits: Record<string, number>, boot: number | null, per: PerEvent | undefined, phases: Phase[]): PathKind {
  const inPhases = (setup: boolean) => sum(phases.filter((p) => !!p.setup === setup).map((p) => hits[p.name] ?? 0));
  if (inPhases(false) > 0) return per && per.per >= per.hotAt ? 'hot' : 'rare';
  if (inPhases(true) > 0) return 'setup';
  return (boot ?? 0) > 0 ? 'boot' : 'never';
}

/** "12.5 per page allocation", "1 per 340 system calls". */
export function formatPerEvent(p: PerEvent): string {
  if (p.per >= 1) return `${p.per} per ${p.event}`;
  return `1 per ${Number((1 / p.per).toPrecision(2))} ${p.events}`;
}

/** How the reports name a path. */
export const PATH_WORDS: Record<PathKind, string> = {
  hot: 'hot path',
  rare: 'rare path',
  setup: 'setup/teardown path',
  boot: 'boot only',
  never: 'not tested',
};

function sum(xs: number[]): number {
  return xs.reduce((n, x) => n + x, 0);
}

function dot(a: number[], b: number[]): number {
  return a.reduce((n, x, i) => n + x * b[i]!, 0);
}

/** What ranking needs of a flag's hits. */
export interface Rated {
  path?: PathKind;
  perEvent?: PerEvent;
  perSecond: number | null;
}

const PATH_RANK: PathKind[] = ['hot', 'rare', 'setup', 'boot', 'never'];

/**
 * Hottest first: by path (hot, rare, setup/teardown, boot only, never; unmeasured last), then tests per event, then
 * tests per second.
 */
export function byHotness(a: Rated | undefined, b: Rated | undefined): number {
  const rank = (r: Rated | undefined) => (r?.path ? PATH_RANK.indexOf(r.path) : PATH_RANK.length);
  return rank(a) - rank(b) || (b?.perEvent?.per ?? -1) - (a?.perEvent?.per ?? -1) || (b?.perSecond ?? -1) - (a?.perSecond ?? -1);
}

/** "hot path, 2.5 per page allocation, 1633/s", "setup/teardown path, 4.5/s", "boot only (12 at boot)". */
export function formatHotness(r: Rated & { boot?: number | null }): string {
  const parts = [r.path ? PATH_WORDS[r.path] : 'not measured'];
  if (r.perEvent) parts.push(formatPerEvent(r.perEvent));
  if (r.perSecond) parts.push(`${r.perSecond}/s`);
  if (r.path === 'boot' && r.boot) parts.push(`${r.boot} at boot`);
  return parts.join(', ');
}
