// The builds the kernel test robot's random configurations and NIPA's allmodconfig make by chance, made on purpose
// (issue 45): the touched objects once more with the symbols their lines depend on flipped (config-sides.ts), on a
// 32-bit build where a line depends on the word size; and a COMPILE_TEST driver of x86 on a machine that is not its
// platform. Only the objects that need it, in build folders kept like the others.
import path from 'node:path';
import { buildWays, configSymbolsFor, type ReadText } from '../build/kbuild.js';
import type { KernelBuild } from '../build/builder.js';
import { kconfigIndexAt, type KconfigIndex } from '../build/kconfig.js';
import { gitRaw, readAtCommit } from '../tools/git.js';
import { linkWarnings, type LineCall } from './link-deps.js';
import { I386, installedCross, targetFor, type Target } from '../build/targets.js';
import type { KernelTree } from '../tree/tree.js';
import type { Commit } from './commits.js';
import type { ObjectPlan } from './builds.js';
import { HeaderReader, sidesOf, type Sides } from './config-sides.js';

/** The machines a COMPILE_TEST driver of x86 is built for, the first installed that is not its platform. */
const REACH = ['riscv', 'arm64'];

/** How many times a side is configured again without the flips that switched an object off. */
const SIDE_ROUNDS = 3;

/** A build of the other side, or of another machine: the objects it builds and why it exists. */
export interface SideBuild {
  build: KernelBuild;
  objects: string[];
  why: string[];
}

/**
 * The sides of each object a range builds (a .c file's own, and a changed header's for the objects sampled for it;
 * a file a patch's select brings into the build, of all the range changed in it so far), and each patch's link
 * warnings (link-deps.ts) of the .c files it changes.
 */
export async function rangeSides(tree: KernelTree, source: string, tip: string, commits: Commit[], plans: Pick<ObjectPlan, 'objects' | 'brought'>[]): Promise<{ sides: Map<string, Sides>; linkWarnings: Promise<string[][]>; headers: HeaderSides[] }> {
  const changedHeaders: HeaderSides[] = [];
  const headers = new HeaderReader(source, 'x86');
  const out = new Map<string, Sides>();
  const linkWarningsOf: string[][] = [];
  /** The calls of each patch's .c files, for one search of the tree's exports. */
  const uses: { index: number; file: string; calls: LineCall[] }[] = [];
  const index = await kconfigIndexAt(tree, tip);
  const read = (f: string) => readAtCommit(tree.root, tip, f);
  for (const [i, c] of commits.entries()) {
    const objects = plans[i]!.objects.filter((o) => o.endsWith('.o'));
    linkWarningsOf.push([]);
    const files = [...c.files.map((f) => ({ ...f, from: undefined as string | undefined })), ...(plans[i]!.brought ?? []).map((b) => ({ status: 'M', file: b.source, from: `${commits[0]!.sha}^` }))];
    for (const { status, file, from } of files) {
      if (status.startsWith('D') || !/\.[ch]$/.test(file)) continue;
      const own = file.replace(/\.c$/, '.o');
      const to = file.endsWith('.c') ? objects.filter((o) => o === own) : objects;
      if (!to.length) continue;
      const sides = await sidesOf(tree.root, c.sha, file, headers, from);
      if (file.endsWith('.h') && sides.symbols.length) changedHeaders.push({ index: i, sha: c.sha, header: file, sides });
      if (file.endsWith('.c') && sides.calls) uses.push({ index: i, file, calls: sides.calls });
      for (const o of to) {
        const was = out.get(o) ?? { symbols: [] };
        const known = new Set(was.symbols.map((s) => s.symbol));
        out.set(o, { symbols: [...was.symbols, ...sides.symbols.filter((s) => !known.has(s.symbol))], wordSize: was.wordSize ?? sides.wordSize, divides: was.divides ?? sides.divides });
      }
    }
  }
  // The search of the tree's exports (2 s) runs beside the builds' configuring; awaited once they are done.
  const warned = linkWarnings(tree.root, tip, uses, index, read).then((all) => {
    all.forEach((w, u) => linkWarningsOf[uses[u]!.index]!.push(...w));
    return linkWarningsOf;
  });
  warned.catch(() => undefined);
  return { sides: out, linkWarnings: warned, headers: changedHeaders };
}

/** A header a patch changes, with its sides. */
export interface HeaderSides {
  /** The patch's index in the range. */
  index: number;
  sha: string;
  header: string;
  sides: Sides;
}

/** How many dependents of a changed header only the other side builds are added to it. */
const OTHER_SIDE_SAMPLE = 3;

/**
 * The files including a changed header that only its other side builds: those a Makefile line builds under a symbol
 * of the header's sides that the host's .config leaves off (watchdog_pretimeout.c, built only with
 * CONFIG_WATCHDOG_PRETIMEOUT_GOV, for watchdog.h's `#if IS_ENABLED(CONFIG_WATCHDOG_PRETIMEOUT_GOV)`), a few per
 * header; per patch, each object with the sides that bring it.
 */
export async function otherSideDependents(root: string, tip: string, headers: HeaderSides[], set: ReadonlySet<string>, includers: (sha: string, header: string) => Promise<string[]>): Promise<Map<number, Map<string, Sides>>> {
  const out = new Map<number, Map<string, Sides>>();
  for (const h of headers) {
    const off = h.sides.symbols.filter((s) => !set.has(s.symbol));
    if (!off.length) continue;
    const lines = await gitRaw(root, ['grep', '-n', '-E', `\\$\\(CONFIG_(${off.map((s) => s.symbol).join('|')})\\)`, tip, '--', '*Makefile*', '*Kbuild*']).catch(() => '');
    const built = new Set<string>();
    for (const l of lines.split('\n').filter(Boolean)) {
      const m = /^[^:]+:([^:]+):\d+:(.*)$/.exec(l);
      if (!m) continue;
      const dir = path.posix.dirname(m[1]!);
      for (const o of m[2]!.matchAll(/([\w-]+\.o)\b/g)) built.add(path.posix.join(dir, o[1]!));
    }
    const chosen = (await includers(h.sha, h.header)).filter((o) => built.has(o)).slice(0, OTHER_SIDE_SAMPLE);
    const mine = out.get(h.index) ?? out.set(h.index, new Map()).get(h.index)!;
    for (const o of chosen) mine.set(o, { symbols: off });
  }
  return out;
}

export interface SideContext {
  host: KernelBuild;
  /** The objects the host's build makes. */
  objects: string[];
  sides: Map<string, Sides>;
  index: KconfigIndex;
  read: ReadText;
  env?: NodeJS.ProcessEnv;
  /** The x86-64 build of the other side: clang where the range is built with clang too (its flow analysis warns of a
   * variable used uninitialized on one side only: nct6686's `wdt` with CONFIG_DYNAMIC_DEBUG), else the host's gcc. */
  sideTarget: Target;
  /** The machines the check was asked to build for (--arches; [] for `--arches x86_64`); undefined: none named. */
  arches?: string[];
  /** Whether an object is built for a machine already (check --arches). */
  has: (object: string, arch: string) => boolean;
  /** A build for `target`, with the symbols of `side` flipped. */
  make: (target: Target, side?: { on: string[]; off: string[] }, debugInfo?: boolean) => KernelBuild;
  /** Configure a build for objects: those it builds, and those left off with why. */
  configure: (b: KernelBuild, list: string[], known: string[], how?: { prepare?: boolean }) => Promise<{ on: string[]; left: Map<string, string> }>;
}

/**
 * The builds of the other side: every symbol the objects' lines depend on set the other way from the host's .config
 * (on → off, off → on), on i386 with gcc (with debug information, for the libgcc calls), then on x86-64 with clang
 * where the range is built with clang (else with gcc, for what i386 cannot build). A flip that switches an object
 * off (the driver depends on CONFIG_OF) is given up for the others; one Kconfig does not allow (a symbol selected by
 * one the objects need) is named with why.
 */
export async function sideBuilds(ctx: SideContext): Promise<{ builds: SideBuild[]; refused: string[] }> {
  const objects = ctx.objects;
  if (!objects.length) return { builds: [], refused: [] };
  const set = await ctx.host.setNow();
  const reasons = new Map<string, string>();
  for (const o of objects) for (const s of (ctx.sides.get(o)?.symbols ?? [])) if (!reasons.has(s.symbol)) reasons.set(s.symbol, s.why);
  const wordSize = objects.map((o) => ctx.sides.get(o)?.wordSize).find(Boolean);
  const divides = objects.map((o) => ctx.sides.get(o)?.divides).find(Boolean);
  const refused: string[] = [];
  const builds: SideBuild[] = [];
  // A flip an object's own Makefile line needs (watchdog_pretimeout.o and CONFIG_WATCHDOG_PRETIMEOUT_GOV) leaves that
  // object out of the side; a flip every object it concerns needs is given up.
  const needs = new Map<string, string[]>();
  // What the Makefile line needs and what that needs in turn (SENSORS_INA233 → PMBUS → I2C).
  for (const o of objects) needs.set(o, [...new Set(((await configSymbolsFor(o.replace(/\.o$/, '.c'), ctx.read, set)) ?? []).flatMap((s) => [s, ...ctx.index.implied(s)]))]);
  // Only a flip to off can take away what an object needs; one to on (what only the other side builds) brings it.
  for (const f of [...reasons.keys()].filter((x) => set.has(x))) {
    const concerned = objects.filter((o) => (ctx.sides.get(o)?.symbols ?? []).some((x) => x.symbol === f));
    if (concerned.every((o) => needs.get(o)!.includes(f))) {
      reasons.delete(f);
      refused.push(`CONFIG_${f}=${set.has(f) ? 'n' : 'y'}: ${concerned.join(', ')} ${concerned.length === 1 ? 'is' : 'are'} built only with it`);
    }
  }
  let wanted = objects.filter((o) => ![...reasons.keys()].some((f) => set.has(f) && needs.get(o)!.includes(f)));
  // A 32-bit build first, with gcc as 0-day's i386 configurations (clang's -Wformat is off in the kernel: a size_t
  // printed with %lu goes unsaid), the flips with it; then x86-64 with clang where the range is built with clang (its
  // flow analysis warns of a variable used uninitialized on one side only), else for what i386 cannot build.
  // A line that divides: i386 at -Os, where gcc calls libgcc for a 64-bit division by a constant as clang does.
  const forSize = new Map(divides ? [['CC_OPTIMIZE_FOR_PERFORMANCE', 'the other choice of CONFIG_CC_OPTIMIZE_FOR_SIZE'], ['CC_OPTIMIZE_FOR_SIZE', `${divides}: at -Os gcc calls libgcc for a 64-bit division, as clang does at -O2`]] : []);
  const all = wanted;
  for (const target of sidesOnI386(ctx.arches) ? [I386, ctx.sideTarget] : [ctx.sideTarget]) {
    if (!wanted.length) break;
    const because = target === I386 ? new Map([...reasons, ...forSize]) : reasons;
    let flips = [...because.keys()];
    let done: { build: KernelBuild; on: string[]; left: Map<string, string> } | undefined;
    for (let round = 0; round < SIDE_ROUNDS && (flips.length || (target === I386 && (wordSize || divides))); round++) {
      const side = { on: flips.filter((s) => !set.has(s)), off: flips.filter((s) => set.has(s)) };
      const build = ctx.make(target, side, target === I386);
      // Not prepared here, where the range's tip is checked out: a patch that breaks a header asm-offsets.c includes
      // with a symbol flipped (gpio/consumer.h's stubs without CONFIG_GPIOLIB) fails the make of its objects, at its
      // line, as it fails the robot's build, rather than this configuration.
      const { on, left } = await ctx.configure(build, wanted, target === I386 ? [] : ctx.host.switchedOn.filter((x) => !flips.includes(x)), { prepare: false });
      // A flip an object's reason names (it needs CONFIG_OF) goes; the rest are tried again.
      const blocking = flips.filter((f) => [...left.values()].some((why) => new RegExp(`\\b(CONFIG_)?${f}\\b`).test(why)));
      const now = await build.setNow();
      const stuck = flips.filter((f) => now.has(f) !== !set.has(f));
      for (const f of blocking) refused.push(`CONFIG_${f}=${set.has(f) ? 'n' : 'y'}: not built so, the objects need it (${[...left.values()][0]})`);
      for (const f of stuck.filter((x) => !blocking.includes(x))) refused.push(`CONFIG_${f}=${set.has(f) ? 'n' : 'y'}: Kconfig keeps it ${set.has(f) ? 'set' : 'unset'} with what the objects need`);
      done = { build, on, left };
      if (!blocking.length && !stuck.length) break;
      flips = flips.filter((f) => !blocking.includes(f) && !stuck.includes(f));
      done = undefined;
    }
    if (done && done.on.length) builds.push({ build: done.build, objects: done.on, why: [...because].filter(([s]) => flips.includes(s)).map(([s, why]) => `CONFIG_${s}=${set.has(s) ? 'n' : 'y'}: ${why}`).concat(target === I386 && (wordSize || divides) ? [`a 32-bit build: ${wordSize ?? divides}`] : []) });
    wanted = target === I386 && ctx.sideTarget.llvm ? all : done ? [...done.left.keys()] : wanted;
  }
  return { builds, refused: [...new Set(refused)] };
}

/** Whether the other side is built on i386 too: unless the machines asked for (--arches x86_64, arm64) leave it out. */
export function sidesOnI386(arches: string[] | undefined): boolean {
  return arches === undefined || arches.some((a) => a === 'all' || a === I386.arch);
}

/**
 * The objects of COMPILE_TEST drivers whose platform is x86 (`depends on X86 || COMPILE_TEST`), built on the first
 * machine here that is not their platform, as 0-day's and NIPA's allmodconfig builds of other machines build them.
 * A driver of another platform needs none: its x86-64 build is already one off its platform.
 */
export async function reachBuilds(ctx: SideContext): Promise<SideBuild[]> {
  // Machines asked for by name are the builds asked for: no other.
  if (ctx.arches !== undefined) return [];
  const byTarget = new Map<string, { target: Target; objects: string[] }>();
  for (const o of ctx.objects) {
    const ways = await buildWays(o.replace(/\.o$/, '.c'), ctx.read);
    if (!ways?.length || !ways.some((w) => w.some((s) => ctx.index.compileTestable(s)))) continue;
    const arches = ctx.index.archesOfWays(ways);
    if (arches === 'any' || !arches.includes('x86')) continue;
    const machine = REACH.find((a) => installedCross(ctx.env).includes(a) && !arches.includes(a));
    const target = machine && targetFor(machine, ctx.env);
    if (!target || 'missing' in target || ctx.has(o, target.arch)) continue;
    const entry = byTarget.get(target.arch) ?? byTarget.set(target.arch, { target, objects: [] }).get(target.arch)!;
    entry.objects.push(o);
  }
  const out: SideBuild[] = [];
  for (const { target, objects } of byTarget.values()) {
    const build = ctx.make(target);
    const { on } = await ctx.configure(build, objects, []);
    if (on.length) out.push({ build, objects: on, why: on.map((o) => `${o}: a COMPILE_TEST driver of x86, built on ${target.arch} as allmodconfig builds it`) });
  }
  return out;
}
