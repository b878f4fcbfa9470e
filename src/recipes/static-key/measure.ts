// `kseries measure`: how often each static-key candidate's test runs in a booted kernel. Build a bootable kernel of
// the tree, find every test of every candidate in its objects (the instructions the object-code proof finds), place a
// kprobe event on each, boot it under QEMU with a workload, and read the hits from kprobe_profile.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { chooseAccel } from '../../boot/accel.js';
import type { ObjectPlan } from '../../boot/config.js';
import { bootGuest, initScript, type GuestRun } from '../../boot/guest.js';
import { WORKLOADS, workloadDigestText } from '../../boot/workloads.js';
import { ToolFailedError, UsageError } from '../../errors.js';
import { flagTests } from '../../object-code/flag-tests.js';
import type { OnProgress } from '../../progress.js';
import type { FlagCandidate } from './scan.js';
import { archiveMembers, readObjectCode } from '../../tools/binutils.js';
import { codeDigest } from '../../kept.js';
import { cacheDir } from '../../tree/paths.js';
import { commitOf, type KernelTree } from '../../tree/tree.js';
import { packEvents } from '../../measure/events.js';
import { BOOT_TIMEOUT_MS, bootProblems, countHits, countReferences, kernelSymbols, referenceEvents, type Measured } from '../../measure/counts.js';
import type { ReferenceCount } from '../../measure/hotness.js';
import { withBootKernel, type MeasuredKinds } from '../../measure/kernel.js';

export type { MeasuredKinds } from '../../measure/kernel.js';
export type { Hits, MeasureSite } from '../../measure/counts.js';

/** Bumped when what a cached measurement holds changes. */
const FORMAT = 5;


export interface MeasuredCandidate extends Measured {
  file: string;
  variable: string;
  line: number;
  verdict: FlagCandidate['verdict'];
  /** For a `manual` one: what a person has to do (the scan's list). */
  needs: string[];
  object: string;
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
      lateEvents: [...references.flatMap((r) => (r.definition ? [r.definition] : [])), ...events.late.map((e) => e.definition)],
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
  // What the guest runs, and how the kernel is configured (boot/config.ts, measure/kernel.ts: ACPI kept off, say).
  const scripts = createHash('sha1').update(`${FORMAT}\n${initScript()}\n${workloadDigestText(WORKLOADS[opts.workload]!)}\n${codeDigest(['boot/config', 'measure/kernel'])}`).digest('hex').slice(0, 8);
  const dir = path.join(cacheDir(opts.env), 'measure', `${commit.slice(0, 12)}-${config}${kinds}-${opts.workload}-${scripts}`);
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, 'report.json');
}

function whyNotBuilt(plan: ObjectPlan | undefined, off: Map<string, string>): string {
  if (plan?.leftOff) return ` (${plan.leftOff})`;
  const reason = plan?.symbols.map((s) => off.get(s)).find(Boolean);
  return reason ? ` (${reason})` : '';
}

