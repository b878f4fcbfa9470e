// The boot test of a static-key series: build the series' kernel (the boot config family with lockdep, might_sleep
// and the static-key-before-init check on), boot it under QEMU with the parameters that make its __setup/early_param
// writers run (initcall writers run on every boot), run the default workload, and read the console for what went wrong.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { chooseAccel } from '../../boot/accel.js';
import { bootGuest, initScript } from '../../boot/guest.js';
import { WORKLOADS, withPhases, workloadDigestText, type Workload } from '../../boot/workloads.js';
import type { KernelBuild } from '../../build/builder.js';
import { codeDigest, keptResult } from '../../kept.js';
import type { OnProgress } from '../../progress.js';
import { gitRaw, readAtCommit } from '../../tools/git.js';
import { cacheDir } from '../../tree/paths.js';
import type { KernelTree } from '../../tree/tree.js';
import { bootKernelNeed, withBootKernel } from '../../measure/kernel.js';
import type { SeriesCheck } from '../../check/plugins.js';
import { keptNote } from '../../check/report.js';
import { judgeToggles, toggleProbes, toggleScript, type ToggleProbe } from './toggle-probes.js';
import { addsStaticKey, keysAdded, keyWriters, writerParams, type KeyWriter } from './key-writers.js';

export interface BootReport {
  /** `minimal+lockdep`, or the config file's name with +lockdep. */
  config: string;
  accel: 'kvm' | 'tcg';
  accelWhy: string;
  /** The parameters given so that the writers run. */
  params: string[];
  writers: (KeyWriter & { file: string })[];
  /** The run-time interfaces that switch the keys, read back and written by the workload. */
  toggles: (Pick<ToggleProbe, 'path' | 'where'> & { ok: boolean })[];
  seconds: number;
  consoleLog: string;
  /** The console lines that fail the boot (a warning, a BUG, a lockdep report), or why the boot did not finish. */
  failures: string[];
  ok: boolean;
  /** One line for reports and emitted cover letters. */
  statement: string;
  /** When the same tree, configuration and workload booted clean before (ISO time): that boot's report, kept. */
  keptFrom?: string;
}

/** What fails a boot on the console: warnings, BUGs, lockdep and might_sleep reports, a static key used too early. */
const FAILURE = /WARNING:|BUG:|Kernel panic|Oops|possible circular locking|possible recursive locking|inconsistent lock state|Invalid wait context|sleeping function called from invalid context|used before call to jump_label_init|blocked for more than/;

/** The lockdep kernel boots slower under TCG; the default workload takes seconds. */
const BOOT_TIMEOUT_MS = 900_000;

declare module '../../check/plugins.js' {
  interface SeriesResults {
    /** The boot of a static-key series under lockdep with its writers exercised. */
    boot?: BootReport;
  }
}

/** The recipes whose series add static keys. */
const STATIC_KEY_RECIPES = ['static-key', 'static-keys', 'static-key-toggle'];

/**
 * The series check the static-key recipes register: a range that adds a static key or a write of one (whoever wrote
 * it) boots in the config family of --boot (minimal by default) with lockdep; --no-boot skips it.
 */
export const staticKeyBootCheck: SeriesCheck<'boot'> = {
  id: 'static-key-boot',
  field: 'boot',
  wanted: async (r) => r.opts.build && r.opts.boot !== false && addsStaticKey(await gitRaw(r.opts.tree.root, ['diff', r.opts.base, r.opts.tip, '--', '*.c', '*.h'])),
  // Before the series exists, a series of the static-key recipes is one that adds a static key.
  kernels: async (c) =>
    c.build && c.boot !== false && (c.range ? addsStaticKey(await gitRaw(c.tree.root, ['diff', c.range.base, c.range.tip, '--', '*.c', '*.h'])) : STATIC_KEY_RECIPES.includes(c.recipe ?? ''))
      ? [bootKernelNeed(c.tree, c.boot || 'minimal', 'auto', `${c.series}: the series booted under lockdep, its writers run`, c.env)]
      : [],
  run: (r) => bootCheck(r.opts.tree, r.opts, { config: r.opts.boot || 'minimal', sandbox: r.opts.sandbox, env: r.opts.env, log: r.opts.log, progress: r.opts.progress, fresh: r.opts.fresh }),
  format: formatBoot,
  headline: (b) => (b.ok ? 'boots clean' : 'does not boot clean'),
  statement: (b) => `the series ${b.statement}`,
};

/** The boot of the series: the statement, what each writer is, and the console lines that failed it. */
export function formatBoot(b: BootReport): string[] {
  const out = [`boot ${b.ok ? 'ok' : 'FAILED'}: ${b.statement} (${b.seconds} s; ${b.accelWhy})${keptNote(b.keptFrom)}`];
  for (const w of b.writers) out.push(`  writer ${w.file}:${w.line} ${w.function}(): ${w.runs === 'param' ? `runs with ${w.param}` : w.runs === 'initcall' ? 'an initcall: runs on every boot' : 'called from elsewhere: whether booting runs it is not checked'}`);
  for (const t of b.toggles ?? []) out.push(`  interface ${t.path} (${t.where}): ${t.ok ? 'reads and takes what it did before' : 'differs from what it was'}`);
  for (const f of b.failures) out.push(`  | ${f}`);
  if (b.consoleLog) out.push(`  console log: ${b.consoleLog}`);
  return out;
}

/** `sandbox`: the series is someone else's code (review): its kernel is built under bubblewrap, as its patches are. */
export async function bootCheck(
  tree: KernelTree,
  range: { base: string; tip: string },
  opts: { config: string; sandbox?: boolean; env?: NodeJS.ProcessEnv; log?: (line: string) => void; progress?: OnProgress; fresh?: boolean },
): Promise<BootReport> {
  const log = opts.log ?? (() => {});
  const files = (await gitRaw(tree.root, ['diff', '--name-only', range.base, range.tip])).split('\n').filter((f) => f.endsWith('.c'));
  // The writers of the keys the series adds or writes, not of every key those files switch.
  const keys = keysAdded(await gitRaw(tree.root, ['diff', range.base, range.tip, '--', '*.c', '*.h']));
  const writers: BootReport['writers'] = [];
  const probes: ToggleProbe[] = [];
  for (const file of files) {
    const text = (await readAtCommit(tree.root, range.tip, file)) ?? '';
    for (const w of keyWriters(text)) if (w.key && keys.has(w.key)) writers.push({ ...w, file });
    probes.push(...toggleProbes(file, text, keys, (k) => new RegExp(`DEFINE_STATIC_KEY_TRUE(?:_RO)?\\(\\s*${k}\\s*\\)`).test(text)));
  }
  const toggleNames = new Set(probes.map((p) => p.path));
  const params = writerParams(writers);
  // The kernel measure counts in (its objects: the auto flags' at the base), with the series' own objects, at the tip.
  const kernel = { config: opts.config, candidates: 'auto' as const, candidatesAt: range.base, also: files.map((f) => f.replace(/\.c$/, '.o')), sandbox: opts.sandbox, env: opts.env, progress: opts.progress };
  return withBootKernel(tree, range.tip, kernel, async ({ build, label }) => {
    // The default workload, then each interface read back, written and read back again.
    const workload = probes.length ? withPhases(WORKLOADS.default!, [{ name: 'toggles', what: 'each switched interface read, written and read back', setup: true, script: toggleScript(probes) }]) : WORKLOADS.default!;
    // What decides the boot: the series' tree, the kernel's configuration, what the guest runs and how the console is
    // judged. A clean boot of the same is kept, so a repeated check (or generate, then check) does not boot again.
    const key = {
      tree: (await gitRaw(tree.root, ['rev-parse', `${range.tip}^{tree}`])).trim(),
      label,
      config: createHash('sha1').update(fs.readFileSync(path.join(build.buildDir, '.config'))).digest('hex'),
      init: initScript(),
      workload: workloadDigestText(workload),
      params,
      code: codeDigest(['boot', 'recipes/static-key/boot-check', 'recipes/static-key/toggle-probes', 'recipes/static-key/key-writers']),
    };
    const booted = await keptResult('boot', key, () => buildAndBoot(build, { label, params, workload, probes, writers, toggleNames, tip: range.tip }, opts), (r) => r.ok, { env: opts.env, fresh: opts.fresh });
    if (booted.keptFrom) log(`boot: the same tree, configuration and workload booted clean at ${booted.keptFrom}: kept`);
    return { ...booted.value, ...(booted.keptFrom ? { keptFrom: booted.keptFrom } : {}) };
  });
}

async function buildAndBoot(
  build: KernelBuild,
  b: { label: string; params: string[]; workload: Workload; probes: ToggleProbe[]; writers: BootReport['writers']; toggleNames: Set<string>; tip: string },
  opts: { env?: NodeJS.ProcessEnv; log?: (line: string) => void; progress?: OnProgress },
): Promise<BootReport> {
  const { label, params, writers } = b;
  const log = opts.log ?? (() => {});
  log(`boot: building the series' ${label} kernel (${build.compiler}) in ${build.buildDir}`);
  const built = await build.buildImage(`building the series' ${label} kernel`);
  const workDir = path.join(cacheDir(opts.env), 'boot-check', path.basename(path.dirname(build.buildDir)), b.tip.slice(0, 12));
  fs.mkdirSync(workDir, { recursive: true });
  if (!built.ok) {
    const why = `the ${label} kernel does not build: ${built.log.slice(-3).join(' / ')}`;
    return { config: label, accel: 'tcg', accelWhy: 'not booted', params, writers, toggles: [], seconds: 0, consoleLog: '', failures: [why], ok: false, statement: why };
  }
  const bzImage = path.join(build.buildDir, 'arch/x86/boot/bzImage');
  const accel = await chooseAccel(bzImage, opts.env);
  log(`boot: booting it under ${accel.accel.toUpperCase()}${params.length ? ` with ${params.join(' ')}` : ''}`);
  const progress = opts.progress && { what: `booting the series' ${label} kernel`, report: opts.progress };
  const run = await bootGuest({ bzImage, buildDir: build.buildDir, workDir, workload: b.workload, params, lateEvents: [], accel, timeoutMs: BOOT_TIMEOUT_MS, env: opts.env, progress });
  const consoleText = fs.readFileSync(run.consoleLog, 'utf8');
  const failures = consoleFailures(consoleText);
  const toggleFailures = run.finished ? judgeToggles(b.probes, consoleText) : [];
  failures.push(...toggleFailures);
  const toggles = b.probes.map((p) => ({ path: p.path, where: p.where, ok: !toggleFailures.some((f) => f.startsWith(`${p.path} `)) }));
  if (run.timedOut) failures.push(`the guest was stopped after ${BOOT_TIMEOUT_MS / 1000} s`);
  else if (!run.reachedInit) failures.push('the kernel did not reach init');
  else if (!run.finished) failures.push('init did not run the workload to its end');
  else if (run.workloadStatus !== 0) failures.push(`the workload exited with status ${run.workloadStatus}`);
  const ok = failures.length === 0;
  return { config: label, accel: accel.accel, accelWhy: accel.why, params, writers, toggles, seconds: run.seconds, consoleLog: run.consoleLog, failures, ok, statement: statementOf(label, accel.accel, writers, params, ok, [...b.toggleNames]) };
}

/** Each line that fails the boot, with the line after it (lockdep and might_sleep put the culprit there). */
export function consoleFailures(text: string): string[] {
  const lines = text.split(/\r?\n/).map((l) => l.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').trimEnd());
  const out: string[] = [];
  for (const [i, l] of lines.entries()) {
    if (!FAILURE.test(l)) continue;
    out.push(l.replace(/^\[\s*[\d.]+\]\s*/, ''));
    const next = lines[i + 1]?.replace(/^\[\s*[\d.]+\]\s*/, '');
    if (next && !FAILURE.test(next)) out.push(`  ${next}`);
    if (out.length >= 12) break;
  }
  return out;
}

/** "boots on x86-64 minimal+lockdep in QEMU/TCG, writers exercised: cgroup.memory=nosocket,nobpf" */
function statementOf(label: string, accel: string, writers: KeyWriter[], params: string[], ok: boolean, toggles: string[] = []): string {
  const initcalls = [...new Set(writers.filter((w) => w.runs === 'initcall').map((w) => `${w.function}()`))];
  const exercised = [...params, ...initcalls.map((f) => `${f} (initcall)`)];
  const elsewhere = [...new Set(writers.filter((w) => w.runs === 'elsewhere').map((w) => `${w.function}()`))];
  const what = exercised.length ? `writers exercised: ${exercised.join(', ')}` : 'no writer is an initcall or boot option';
  // A writer called from elsewhere may still run at boot (build_all_zonelists() from mm_core_init()): not claimed either way.
  const rest = elsewhere.length ? `; ${toggles.length ? 'switched through' : 'called from elsewhere, not checked to run'}: ${elsewhere.join(', ')}` : '';
  const back = toggles.length ? `; read back and written: ${toggles.join(', ')}` : '';
  return `${ok ? 'boots clean' : 'does not boot clean'} on x86-64 ${label} in QEMU/${accel.toUpperCase()}, ${what}${rest}${back}`;
}
