// The builds of a range, patch by patch: the base, then each patch's touched objects (and a sample of a header's
// dependents) in one build directory, the new warnings against the step before, and the object-code proofs the
// registered provers make of what a patch converts. A range that built clean and proved is kept by its trees.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { KernelBuild, type BuildOptions } from '../build/builder.js';
import { kconfigIndexAt } from '../build/kconfig.js';
import { buildWays } from '../build/kbuild.js';
import { archOfPath, crossPackage, I386, installedCross, targetFor, type Target } from '../build/targets.js';
import type { ConfigAsBuilt } from '../build/config-line.js';
import { newWarnings, type CompilerMessage } from '../build/kbuild.js';
import { codeDigest, keptResult } from '../kept.js';
import type { ObjectCode } from '../object-code/parse.js';
import { sectionTotals } from '../object-code/sizes.js';
import { readObjectAsRun, readObjectCode } from '../tools/binutils.js';
import { gitRaw, readAtCommit } from '../tools/git.js';
import type { KernelTree } from '../tree/tree.js';
import { withLock, worktreeAt } from '../tree/worktree.js';
import type { Commit } from './commits.js';
import { registeredProvers } from './proofs/registry.js';
import type { ObjectAround, ObjectProof } from './proofs/types.js';
import type { BuildReport } from './report.js';

/** Dependents of a changed header built by default. */
export const HEADER_SAMPLE = 3;

export type OnStep = (index: number, step: string, state: 'start' | 'done', detail?: string) => void;

export interface BuiltRange {
  reports: BuildReport[];
  /** When the same trees and configuration were built before (ISO time): those builds and proofs, kept. */
  keptFrom?: string;
  proofs: ObjectProof[][];
  compiler: string;
  compilerVersion?: string;
  /** The .config as built, against its base. */
  config: ConfigAsBuilt;
  /** The builds for other architectures (targets.ts) that built some of the objects, each with its compiler. */
  others?: { config: ConfigAsBuilt; compiler: string }[];
}

/**
 * Build the base, then each patch in order, compiling the objects it touches (and a sample of header dependents).
 * Objects a recipe proves something about are read after every step, so each proof compares the patch's code with
 * the code of the step before it.
 */
export async function buildRange(opts: BuildOptions & { tree: KernelTree; base: string; tip: string; full: boolean }, commits: Commit[], mails: string[], step: OnStep): Promise<BuiltRange> {
  const { tree } = opts;
  return withLock(tree, async () => {
    const source = await worktreeAt(tree, opts.base);
    const build = new KernelBuild(tree, source, opts);
    const plans: { objects: string[]; note?: string }[] = [];
    for (const c of commits) plans.push(await objectsOf(tree, c, opts.full, build));
    const objects = [...new Set(plans.flatMap((p) => p.objects))];
    const placed = await placeObjects(opts, source, build, objects);
    const reasonFor = (o: string) => placed.get(o)?.reason;
    const builds = [...new Set([...placed.values()].flatMap((p) => (p.reason ? [] : [p.build])))];
    const config = await build.configAsBuilt();
    const others = await Promise.all(builds.filter((b) => b !== build).map(async (b) => ({ config: await b.configAsBuilt(), compiler: b.compiler })));
    // What decides the builds and proofs: the trees, what each patch builds, the .configs, the compilers and kseries'
    // code. A range whose patches all built is kept, so check after generate (the same trees) builds nothing.
    const treeOf = async (rev: string) => (await gitRaw(tree.root, ['rev-parse', `${rev}^{tree}`])).trim();
    const key = {
      base: await treeOf(opts.base),
      trees: await Promise.all(commits.map((c) => treeOf(c.sha))),
      plans,
      config: createHash('sha1').update(fs.readFileSync(path.join(build.buildDir, '.config'))).digest('hex'),
      compiler: [build.compiler, build.compilerVersion],
      others: [...placed].map(([o, p]) => [o, p.reason ?? p.build.buildDir, p.reason ? '' : createHash('sha1').update(fs.readFileSync(path.join(p.build.buildDir, '.config'))).digest('hex')]),
      code: codeDigest(['build', 'check', 'check/checks', 'check/proofs', 'object-code', 'kprobe', 'recipes', 'recipes/static-key']),
    };
    const planned: PlannedRange = { tree, base: opts.base, source, build, placed, commits, mails, plans, objects, reasonFor, config, step };
    // A proof that fails is a fact of the code and kept with the rest; a build that fails may be the machine's (a
    // killed make, a full disk), so it is done again.
    const kept = await keptResult('builds', key, () => buildEach(planned), (r) => r.reports.every((x) => x.status !== 'failed'), { env: opts.env, fresh: opts.fresh });
    const value = others.length ? { ...kept.value, others } : kept.value;
    if (kept.keptFrom) {
      for (const [i, r] of value.reports.entries()) step(i + 1, 'build', 'done', `${r.status} (kept)`);
      return { ...value, keptFrom: kept.keptFrom };
    }
    return value;
  });
}

/** Where an object is built: a configured build directory, or why none here builds it. */
interface Placement {
  build: KernelBuild;
  reason?: string;
}

/**
 * The build each object goes to, configured: the host's (x86-64) for everything outside another architecture's
 * folder; `arch/<a>/` files to a build for <a>; what x86-64 cannot build, to i386 where its dependencies want a
 * 32-bit kernel (`!64BIT`, ISA), else to the first architecture with a cross compiler here that its Kconfig
 * dependencies allow. An object no build here makes keeps the reasons of each one tried.
 */
async function placeObjects(opts: BuildOptions & { tree: KernelTree; tip: string }, source: string, host: KernelBuild, objects: string[]): Promise<Map<string, Placement>> {
  const { tree } = opts;
  const read = (f: string) => readAtCommit(tree.root, opts.tip, f);
  const placed = new Map<string, Placement>();
  const byArch = new Map<string, string[]>();
  for (const o of objects) {
    const a = archOfPath(o) ?? 'x86';
    byArch.set(a, [...(byArch.get(a) ?? []), o]);
  }
  /** Configure `build` for `list`; the objects left off, with why. */
  const configureFor = async (build: KernelBuild, list: string[]): Promise<Map<string, string>> => {
    const symbols = new Map<string, string[] | undefined>();
    for (const o of list) symbols.set(o, await build.symbolsFor(o, read));
    const off = await build.configure([...new Set([...symbols.values()].flatMap((s) => s ?? []))], opts.tip);
    const left = new Map<string, string>();
    for (const o of list) {
      const reason = (symbols.get(o) ?? []).map((x) => off.get(x)).find((r) => r !== undefined);
      if (reason) left.set(o, reason);
      else placed.set(o, { build });
    }
    return left;
  };
  const elsewhere = new Map<string, KernelBuild>();
  const buildFor = (target: Target) => {
    let b = elsewhere.get(target.arch);
    // Another architecture's base is its own defconfig (a .config file is the host's).
    if (!b) elsewhere.set(target.arch, (b = new KernelBuild(tree, source, { ...opts, config: ['defconfig', 'allmodconfig', 'minimal'].includes(opts.config) ? opts.config : 'defconfig', target })));
    return b;
  };
  const hostLeft = await configureFor(host, byArch.get('x86') ?? []);
  for (const [a, list] of byArch) {
    if (a === 'x86') continue;
    const target = targetFor(a, opts.env);
    if ('missing' in target) {
      for (const o of list) placed.set(o, { build: host, reason: `${o.replace(/\.o$/, '')} is ${a} code: ${target.missing}` });
      continue;
    }
    for (const [o, why] of await configureFor(buildFor(target), list)) placed.set(o, { build: host, reason: `${target.arch}: ${why}` });
  }
  if (hostLeft.size === 0) return placed;
  // What x86-64 cannot build: a 32-bit kernel, or a machine its dependencies name.
  const index = await kconfigIndexAt(tree, opts.tip);
  const tried = new Map<string, string[]>([...hostLeft].map(([o, why]) => [o, [`x86_64: ${why}`]]));
  const next = new Map<string, Target>();
  for (const [o, why] of hostLeft) {
    if (/\b(64BIT|X86_32|ISA)\b/.test(why)) next.set(o, I386);
    else {
      const arches = index.archesOfWays((await buildWays(o.replace(/\.o$/, '.c'), read)) ?? []);
      const here = installedCross(opts.env).filter((a) => arches === 'any' || arches.includes(a));
      const chosen = here[0] && targetFor(here[0], opts.env);
      if (chosen && !('missing' in chosen)) next.set(o, chosen);
      else if (arches !== 'any' && arches.length) tried.get(o)!.push(`it builds on ${arches.join(', ')}, for which no cross compiler is installed (${arches.map((x) => crossPackage(x)).filter(Boolean).join(', ') || 'none kseries knows'})`);
    }
  }
  for (const arch of new Set([...next.values()].map((t) => t.arch))) {
    const list = [...next].filter(([, t]) => t.arch === arch).map(([o]) => o);
    const target = next.get(list[0]!)!;
    for (const [o, why] of await configureFor(buildFor(target), list)) tried.get(o)!.push(`${arch}: ${why}`);
  }
  // Where x86-64 was all that was tried, its reason alone.
  for (const [o, reasons] of tried) if (!placed.has(o)) placed.set(o, { build: host, reason: reasons.length === 1 ? hostLeft.get(o)! : reasons.join('; ') });
  return placed;
}

/** A range whose build directory is configured: what each patch builds, and why an object cannot be. */
interface PlannedRange {
  tree: KernelTree;
  base: string;
  /** kseries' worktree, at the base. */
  source: string;
  /** The host's build, whose objects the provers read. */
  build: KernelBuild;
  /** Each object's build (the host's or another architecture's), or why none builds it. */
  placed: Map<string, Placement>;
  commits: Commit[];
  mails: string[];
  plans: { objects: string[]; note?: string }[];
  /** Every object some patch builds. */
  objects: string[];
  reasonFor: (object: string) => string | undefined;
  config: ConfigAsBuilt;
  step: OnStep;
}

async function buildEach({ tree, base, source, build, placed, commits, mails, plans, objects, reasonFor, config, step }: PlannedRange): Promise<BuiltRange> {
  // Each registered prover decides from a patch whether it has something to prove, and in which objects: the host's.
  const provers = registeredProvers();
  const onHost = (o: string) => placed.get(o)?.build === build;
  const wanted = mails.map((m) => provers.map((v) => ({ asRun: v.readsFinal === true, objects: v.objectsToProve(m).filter(onHost) })));
  const toProve = wanted.map((w) => w.flatMap((x) => x.objects));
  const proved = new Set(toProve.flat());
  const asRun = new Set(wanted.flat().flatMap((x) => (x.asRun ? x.objects : [])));
  const contents = [...new Set(provers.flatMap((v) => v.contents ?? []))];
  const code = new Map<string, ObjectCode>();
  const objectFile = (o: string) => path.join(build.buildDir, o);
  const objtool = path.join(build.buildDir, 'tools/objtool/objtool');
  /** Each build's objects of `list`, compiled in one make per build, one build after the other. */
  const compile = async (list: string[]) => {
    const results = [];
    for (const b of new Set(list.map((o) => placed.get(o)!.build))) results.push(...(await b.compileMany(list.filter((o) => placed.get(o)!.build === b))));
    return results;
  };
  const builtOn = (o: string) => `${placed.get(o)!.build.baseName}, ${placed.get(o)!.build.compiler}`;

  const last = new Map<string, CompilerMessage[]>();
  const atBase = [];
  for (const o of objects) if (!reasonFor(o) && (await exists(tree, base, o))) atBase.push(o);
  for (const r of await compile(atBase)) {
    last.set(r.object, r.messages);
    if (r.ok && proved.has(r.object)) code.set(r.object, await readObjectCode(objectFile(r.object), { contents }));
  }
  const reports: BuildReport[] = [];
  const proofs: ObjectProof[][] = [];
  for (const [i, c] of commits.entries()) {
    const plan = plans[i]!;
    proofs.push([]);
    if (plan.objects.length === 0) {
      reports.push(skipped('touches no C or assembly file'));
      continue;
    }
    step(i + 1, 'build', 'start', plan.objects.join(' '));
    await gitRaw(source, ['checkout', '-q', '--detach', c.sha]);
    const report: BuildReport = { status: 'ok', objects: [], errors: [], newWarnings: [], notBuilt: [], note: plan.note };
    for (const o of plan.objects) {
      const reason = reasonFor(o);
      if (reason) report.notBuilt.push({ object: o, reason });
      else report.objects.push(o);
    }
    const elsewhere = report.objects.filter((o) => !onHost(o));
    if (elsewhere.length) report.builtOn = Object.fromEntries(elsewhere.map((o) => [o, builtOn(o)]));
    const around = new Map<string, ObjectAround>(toProve[i]!.map((o) => [o, { before: code.get(o), notBuilt: reasonFor(o) ?? 'the build failed' }]));
    for (const r of await compile(report.objects)) {
      const o = r.object;
      if (!r.ok) {
        report.status = 'failed';
        const errors = r.messages.filter((m) => m.level === 'error').map((m) => m.text);
        report.errors.push(...(errors.length ? errors : [`${o}: make failed`]));
      }
      report.newWarnings.push(...newWarnings(last.get(o) ?? [], r.messages).map((w) => w.text));
      last.set(o, r.messages);
      if (!r.ok || !proved.has(o)) continue;
      const compiled = await readObjectCode(objectFile(o), { contents });
      if (around.has(o)) around.set(o, { before: code.get(o), compiled, final: asRun.has(o) ? await readObjectAsRun(objectFile(o), objtool) : undefined });
      const before = code.get(o) && sectionTotals(code.get(o)!);
      const after = sectionTotals(compiled);
      if (before && after) (report.sizes ??= []).push({ object: o, before, after });
      code.set(o, compiled);
    }
    if (report.objects.length === 0 && report.status === 'ok') report.status = 'skipped';
    if (around.size > 0) proofs[i] = provers.flatMap((v) => v.prove(mails[i]!, around));
    step(i + 1, 'build', 'done', report.status);
    reports.push(report);
  }
  return { reports, proofs, compiler: build.compiler, compilerVersion: build.compilerVersion, config };
}

/**
 * The objects a commit's changes ask to build: its .c/.S files, and for each header a sample of its dependents, those
 * the build's config builds as it is (a dependent that needs symbols switched on would change how every later object
 * of the directory compiles: common.h of x86 kprobes would bring in ftrace.o and the function tracer with it); only
 * when none is, the first ones.
 */
async function objectsOf(tree: KernelTree, c: Commit, full: boolean, build: KernelBuild): Promise<{ objects: string[]; note?: string }> {
  const objects = new Set<string>();
  const notes: string[] = [];
  for (const { status, file } of c.files) {
    if (status.startsWith('D')) continue;
    if (/\.[cS]$/.test(file)) objects.add(file.replace(/\.[cS]$/, '.o'));
    if (file.endsWith('.h')) {
      const dependents = [...new Set([...build.objectsDependingOn(file), ...(await headerIncluders(tree, c.sha, file))])];
      const chosen = full ? dependents : await sampleOf(dependents, build, (f) => readAtCommit(tree.root, c.sha, f));
      chosen.forEach((d) => objects.add(d));
      if (chosen.length < dependents.length) notes.push(`${file}: built ${chosen.length} of ${dependents.length} dependents (--full builds all)`);
    }
  }
  return { objects: [...objects].sort(), note: notes.join('; ') || undefined };
}

/** Up to HEADER_SAMPLE dependents the config builds as it is, in order; the first ones when it builds none. */
async function sampleOf(dependents: string[], build: KernelBuild, read: (f: string) => Promise<string | undefined>): Promise<string[]> {
  const ready: string[] = [];
  for (const d of dependents) {
    if (ready.length === HEADER_SAMPLE) break;
    if ((await build.symbolsFor(d, read))?.length === 0) ready.push(d);
  }
  return ready.length > 0 ? ready : dependents.slice(0, HEADER_SAMPLE);
}

/**
 * .c files that include a header directly: `<linux/x.h>` for include/ and arch/x86/include/, `"x.h"` beside it.
 * Other architectures' files are left out: this build is x86-64.
 */
async function headerIncluders(tree: KernelTree, commit: string, header: string): Promise<string[]> {
  const m = /^(?:arch\/x86\/)?include\/(?:uapi\/)?(.+)$/.exec(header);
  const pattern = m ? `#include <${m[1]}>` : `#include "${path.posix.basename(header)}"`;
  const where = m ? ['*.c'] : [`${path.posix.dirname(header)}/*.c`];
  const out = await gitRaw(tree.root, ['grep', '-l', '-F', pattern, commit, '--', ...where]).catch(() => '');
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(commit.length + 1))
    .filter((f) => !f.startsWith('arch/') || f.startsWith('arch/x86/'))
    .map((f) => f.replace(/\.c$/, '.o'))
    .sort();
}

async function exists(tree: KernelTree, commit: string, object: string): Promise<boolean> {
  const base = object.replace(/\.o$/, '');
  return (await readAtCommit(tree.root, commit, `${base}.c`)) !== undefined || (await readAtCommit(tree.root, commit, `${base}.S`)) !== undefined;
}

export function skipped(note: string): BuildReport {
  return { status: 'skipped', objects: [], errors: [], newWarnings: [], notBuilt: [], note };
}
