// `kseries measure`: how often each static-key candidate's test runs in a booted kernel. Build a bootable kernel of
// the tree, find every test of every candidate in its objects (the instructions the object-code proof finds), place a
// kprobe event on each, boot it under QEMU with a workload, and read the hits from kprobe_profile.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { chooseAccel } from '../boot/accel.js';
import type { ObjectPlan } from '../boot/config.js';
import { bootGuest, EVENT_GROUP, initScript, type GuestRun } from '../boot/guest.js';
import { WORKLOADS, workloadDigestText, type Workload } from '../boot/workloads.js';
import { ToolFailedError, UsageError } from '../errors.js';
import { elfSections, elfSymbols, elfSymbolValues } from '../object-code/elf.js';
import { flagTests } from '../object-code/flag-tests.js';
import type { ObjSymbol } from '../object-code/parse.js';
import type { OnProgress } from '../progress.js';
import type { FlagCandidate } from '../recipes/static-key/scan.js';
import { archiveMembers, readObjectCode } from '../tools/binutils.js';
import { cacheDir } from '../tree/paths.js';
import { commitOf, type KernelTree } from '../tree/tree.js';
import { packEvents, type ProbeEvent } from './events.js';
import { pathOf, perEvent, REFERENCES, type PathKind, type PerEvent, type ReferenceCount } from './hotness.js';
import { withBootKernel, type MeasuredKinds } from './kernel.js';

export type { MeasuredKinds } from './kernel.js';

/** Bumped when what a cached measurement holds changes. */
const FORMAT = 4;

/** TCG boots a small kernel in seconds; a kernel with every hot test probed runs its workload slower. */
const BOOT_TIMEOUT_MS = 600_000;

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

export interface MeasuredCandidate {
  file: string;
  variable: string;
  line: number;
  verdict: FlagCandidate['verdict'];
  /** For a `manual` one: what a person has to do (the scan's list). */
  needs: string[];
  object: string;
  sites: MeasureSite[];
  hits?: Hits;
  /** `not measured: <why>`, never a zero. */
  notMeasured?: string;
}

export interface MeasureReport {
  commit: string;
  /** The config family asked for: minimal, defconfig or a .config file. */
  config: string;
  /** The kernel measured, as messages name it: "minimal+lockdep". */
  kernel: string;
  workload: string;
  candidatesMeasured: MeasuredKinds;
  buildDir: string;
  accel: 'kvm' | 'tcg';
  accelWhy: string;
  boot: Pick<GuestRun, 'cmdline' | 'seconds' | 'reachedInit' | 'finished' | 'workloadSeconds' | 'workloadStatus' | 'phases' | 'placing' | 'timedOut' | 'consoleLog'>;
  /** The reference events counted beside the candidates, per phase. */
  references: ReferenceCount[];
  /** What went wrong with the boot itself; empty when the guest ran the workload to its end. */
  problems: string[];
  candidates: MeasuredCandidate[];
  /** Wall time of the steps: configure and build, finding the sites in the objects, boot + workload + readout. */
  seconds: { build: number; sites: number; boot: number };
  cached: boolean;
}

export interface MeasureOptions {
  tree: KernelTree;
  /** minimal (default), defconfig, or a .config file. */
  config: string;
  workload: string;
  /** Default `all`. */
  candidates?: MeasuredKinds;
  /** The commit to measure (default HEAD). */
  rev?: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /** Measure again even when a cached result exists. */
  fresh?: boolean;
  /** How far the kernel build and the boot got, every few seconds. */
  progress?: OnProgress;
}

export async function measure(opts: MeasureOptions): Promise<MeasureReport> {
  const { tree } = opts;
  const log = opts.log ?? (() => {});
  const workload = WORKLOADS[opts.workload];
  if (!workload) throw new UsageError(`--workload ${opts.workload}: no such workload`, `give one of: ${Object.keys(WORKLOADS).join(', ')}`);
  const commit = await commitOf(tree, opts.rev ?? 'HEAD');
  if (!commit) throw new UsageError(`${opts.rev ?? 'HEAD'} is not a commit of ${tree.root}`, 'give a branch, tag or commit of the kernel tree');
  const kinds = opts.candidates ?? 'all';

  const cached = cacheFile(commit, opts);
  if (!opts.fresh && fs.existsSync(cached)) {
    const known = JSON.parse(fs.readFileSync(cached, 'utf8')) as MeasureReport & { format?: number };
    if (known.format === FORMAT) return { ...known, cached: true };
  }
  const started = Date.now();
  const since = (t: number) => Math.round((Date.now() - t) / 100) / 10;
  log(`configuring the ${opts.config} boot kernel`);
  return withBootKernel(tree, commit, { config: opts.config, candidates: kinds, env: opts.env, progress: opts.progress }, async ({ build, label: kernelLabel, candidates, plans, off }) => {
    const label = `the ${kernelLabel} kernel with the objects of ${kinds === 'auto' ? 'the auto flags' : 'every candidate'}`;
    log(`building ${label} (${build.compiler}) in ${build.buildDir}`);
    const built = await build.buildImage(`building ${label}`);
    if (!built.ok) throw new ToolFailedError(`the ${kernelLabel} boot kernel does not build: ${built.log.slice(-3).join(' / ')}`, `see make's output in ${build.buildDir}`);

    const buildSeconds = since(started);
    const sitesStarted = Date.now();
    const inKernel = new Set(await archiveMembers(path.join(build.buildDir, 'vmlinux.a')));
    const kernel = kernelSymbols(path.join(build.buildDir, 'vmlinux'));
    const measured: MeasuredCandidate[] = [];
    const objects = new Map<string, Awaited<ReturnType<typeof readObjectCode>>>();
    for (const c of candidates) {
      const object = objectOf(c);
      const m: MeasuredCandidate = { file: c.file, variable: c.variable, line: c.line, verdict: c.verdict, needs: c.needs, object, sites: [] };
      measured.push(m);
      if (!inKernel.has(object)) {
        m.notMeasured = `${object} not built in ${kernelLabel}${whyNotBuilt(plans.find((p) => p.object === object), off)}`;
        continue;
      }
      if (!objects.has(object)) objects.set(object, await readObjectCode(path.join(build.buildDir, object)));
      const code = objects.get(object)!;
      const tests = flagTests(code, c.variable);
      if (tests.length === 0) {
        m.notMeasured = `no test of ${c.variable} with a conditional jump in ${object} (the compiler folded it, or it is read only as a value)`;
        continue;
      }
      for (const t of tests) {
        const fn = code.symbols.find((s) => s.kind === 'F' && s.name === t.function && s.section === t.section);
        const offset = t.address - (fn?.value ?? t.address);
        const site = `${t.function}+0x${offset.toString(16)}`;
        const where = fn && kernel.locate(t.function, path.posix.basename(c.file));
        m.sites.push({
          site,
          probe: where ? (where.unique ? site : `0x${(where.address + BigInt(offset)).toString(16)}`) : site,
          event: '',
          atBoot: false,
          init: where?.symbol.section === '.init.text',
          boot: null,
          workload: null,
          notMeasured: where ? undefined : `${t.function} is not ${fn ? "in vmlinux's symbol table (or not once in its source file)" : `a function symbol of ${object}`}`,
        });
      }
    }

    const events = packEvents(measured.flatMap((m) => m.sites.filter((s) => !s.notMeasured)));
    const references = referenceEvents(kernel);
    const sitesSeconds = since(sitesStarted);
    const bootStarted = Date.now();
    const accel = await chooseAccel(path.join(build.buildDir, 'arch/x86/boot/bzImage'), opts.env);
    log(`booting under ${accel.accel.toUpperCase()} (${accel.why}) with ${events.atBoot.length} kprobe events on the command line and ${events.late.length} added after boot, ${references.filter((r) => r.event).length} reference events; workload ${workload.name}`);
    const workDir = path.dirname(cached);
    const run = await bootGuest({
      bzImage: path.join(build.buildDir, 'arch/x86/boot/bzImage'),
      buildDir: build.buildDir,
      workDir,
      workload,
      params: events.params,
      lateEvents: [...references.filter((r) => r.event).map((r) => `p:${EVENT_GROUP}/${r.event} ${r.symbol}`), ...events.late.map((e) => e.definition)],
      accel,
      timeoutMs: BOOT_TIMEOUT_MS,
      env: opts.env,
      progress: opts.progress && { what: `booting ${label}`, report: opts.progress },
    });
    const problems = bootProblems(run);
    countReferences(references, run, workload);
    for (const m of measured) countHits(m, run, problems, { workload, config: kernelLabel, references }, events.byEvent);
    const report: MeasureReport = {
      commit,
      config: opts.config,
      kernel: kernelLabel,
      workload: workload.name,
      candidatesMeasured: kinds,
      buildDir: build.buildDir,
      accel: accel.accel,
      accelWhy: accel.why,
      boot: { cmdline: run.cmdline, seconds: run.seconds, reachedInit: run.reachedInit, finished: run.finished, workloadSeconds: run.workloadSeconds, workloadStatus: run.workloadStatus, phases: run.phases, placing: run.placing, timedOut: run.timedOut, consoleLog: run.consoleLog },
      references,
      problems,
      candidates: measured,
      seconds: { build: buildSeconds, sites: sitesSeconds, boot: since(bootStarted) },
      cached: false,
    };
    fs.writeFileSync(cached, `${JSON.stringify({ format: FORMAT, ...report }, null, 2)}\n`);
    return report;
  });
}

function objectOf(c: { file: string }): string {
  return c.file.replace(/\.c$/, '.o');
}

/**
 * `measure/<commit>-<config>[-auto]-<workload>-<scripts>/report.json` in kseries' cache (a commit names the same source
 * in every clone; <scripts> changes with /init or the workload); the console log is kept beside it.
 */
function cacheFile(commit: string, opts: MeasureOptions): string {
  const config = ['minimal', 'defconfig'].includes(opts.config) ? opts.config : `file-${createHash('sha1').update(fs.readFileSync(path.resolve(opts.config))).digest('hex').slice(0, 12)}`;
  const kinds = (opts.candidates ?? 'all') === 'all' ? '' : `-${opts.candidates}`;
  const scripts = createHash('sha1').update(`${FORMAT}\n${initScript()}\n${workloadDigestText(WORKLOADS[opts.workload]!)}`).digest('hex').slice(0, 8);
  const dir = path.join(cacheDir(opts.env), 'measure', `${commit.slice(0, 12)}-${config}${kinds}-${opts.workload}-${scripts}`);
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, 'report.json');
}

function whyNotBuilt(plan: ObjectPlan | undefined, off: Map<string, string>): string {
  if (plan?.leftOff) return ` (${plan.leftOff})`;
  const reason = plan?.symbols.map((s) => off.get(s)).find(Boolean);
  return reason ? ` (${reason})` : '';
}

/** vmlinux's function symbols: where a function of a given source file is, and whether its name is unique. */
function kernelSymbols(vmlinux: string) {
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

function bootProblems(run: GuestRun): string[] {
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
function referenceEvents(kernel: ReturnType<typeof kernelSymbols>): ReferenceCount[] {
  return REFERENCES.map((r, i) => {
    const symbol = r.symbols.map((re) => kernel.unique(re)).find(Boolean);
    const ref = { name: r.name, plural: r.plural, hotAt: r.hotAt };
    return symbol ? { ...ref, symbol, event: `ref${i}` } : { ...ref, notMeasured: r.absent };
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

function countReferences(refs: ReferenceCount[], run: GuestRun, workload: Workload): void {
  for (const r of refs) {
    if (!r.event) continue;
    const why = run.eventErrors.get(r.event);
    const hits = run.refused.some((d) => d.startsWith(`p:${EVENT_GROUP}/${r.event} `)) ? `the kernel refused a kprobe at ${r.symbol}${why ? `: ${why}` : ''}` : phaseHits(run, workload, r.event);
    if (typeof hits === 'string') r.notMeasured = hits;
    else r.phases = hits.phases;
  }
}

/** Sum each candidate's sites: hits at boot (command-line events only), per phase and per second of the workload. */
export function countHits(m: MeasuredCandidate, run: GuestRun, problems: string[], label: { workload: Workload; config: string; references: ReferenceCount[] }, byEvent: Map<MeasureSite, ProbeEvent>): void {
  if (m.notMeasured) return;
  const refused = new Set(run.refused);
  const phases: Record<string, number> = {};
  for (const s of m.sites) {
    const e = byEvent.get(s);
    if (s.notMeasured || !e) {
      s.notMeasured ??= 'the command line had no room for its init-code probe';
      continue;
    }
    s.event = e.name;
    s.atBoot = e.atBoot;
    if (refused.has(e.definition) || (run.profiles.before && !run.profiles.before.has(e.name))) {
      const why = run.eventErrors.get(e.name);
      s.notMeasured = `the kernel refused a kprobe at ${s.site}${why ? `: ${why}` : ''}`;
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
