// The builds of a range, patch by patch: the base, then each patch's touched objects (and a sample of a header's
// dependents) in one build directory, the new warnings against the step before, and the object-code proofs the
// registered provers make of what a patch converts. A range that built clean and proved is kept by its trees.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { KernelBuild, type BuildOptions } from '../build/builder.js';
import { kconfigIndexAt } from '../build/kconfig.js';
import { buildWays } from '../build/kbuild.js';
import { archOfPath, clangMissing, CLANG, crossPackage, DEFAULT_COMPILERS, HOST, I386, installedCross, isHost, srcarchOf, targetFor, targetNamed, type Target } from '../build/targets.js';
import type { ConfigAsBuilt } from '../build/config-line.js';
import { newWarnings, warningKey, type CompilerMessage } from '../build/kbuild.js';
import { codeDigest, keptResult } from '../kept.js';
import { onPath } from '../tools/which.js';
import type { ObjectCode } from '../object-code/parse.js';
import { elfSections } from '../object-code/elf.js';
import { codeBytesDigest, mergedStrings, sectionTotals, stringChanges, type SectionTotals } from '../object-code/sizes.js';
import { libgccCalls, readObjectAsRun, readObjectCode } from '../tools/binutils.js';
import { gitRaw, readAtCommit } from '../tools/git.js';
import type { KernelTree } from '../tree/tree.js';
import { withLock, worktreeAt } from '../tree/worktree.js';
import type { Commit } from './commits.js';
import { broughtIn, type BroughtIn } from './selected.js';
import { registeredProvers } from './proofs/registry.js';
import type { ObjectAround, ObjectProof } from './proofs/types.js';
import type { BuildReport, OtherBuild } from './report.js';
import type { Sides } from './config-sides.js';
import { otherSideDependents, rangeSides, reachBuilds, sideBuilds, type HeaderSides, type SideContext } from './side-builds.js';

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
  /** The other builds (architectures, clang) that built some of the objects, each with its compiler. */
  others?: OtherBuild[];
  /** The builds asked for that cannot run here, with why ("clang: ld.lld not installed (apt-get install ...)"). */
  missing?: string[];
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
    // The host's build runs sparse over what it compiles, as 0-day does (C=1), where sparse is installed.
    const build = new KernelBuild(tree, source, { ...opts, sparse: true });
    const plans: ObjectPlan[] = [];
    for (const c of commits) plans.push(await objectsOf(tree, opts.base, c, opts.full, build));
    const objects = [...new Set(plans.flatMap((p) => p.objects))];
    // Configured under the tip's Kconfig files, where a symbol the series adds (its test's) is defined; the base's
    // objects are built after with the base checked out again (Kbuild syncs the .config with its Kconfig each time).
    await gitRaw(source, ['checkout', '-q', '--detach', opts.tip]);
    const { sides, linkWarnings: linking, headers } = opts.hostOnly || opts.noSides ? { sides: new Map<string, Sides>(), linkWarnings: Promise.resolve([]), headers: [] } : await rangeSides(tree, source, opts.tip, commits, plans);
    const { placed, missing, why, extra } = await placeObjects(opts, source, build, objects, sides, headers);
    // A changed header's dependents that only its other side builds join the patch's objects, built there alone.
    for (const [i, list] of extra) {
      const plan = plans[i]!;
      plan.objects = [...new Set([...plan.objects, ...list])].sort();
      plan.note = [plan.note, `built only with the other side of ${list.length === 1 ? 'its' : 'their'} header: ${list.join(', ')}`].filter(Boolean).join('; ');
      objects.push(...list.filter((o) => !objects.includes(o)));
    }
    await gitRaw(source, ['checkout', '-q', '--detach', opts.base]);
    const reasonFor = (o: string) => placed.get(o)?.reason;
    const builds = [...new Set([...placed.values()].flatMap((p) => (p.reason ? [] : [p.build, ...p.also])))];
    const config = await build.configAsBuilt();
    const others = await Promise.all(builds.filter((b) => b !== build).map(async (b) => ({ config: await b.configAsBuilt(), compiler: b.compiler, ...(why.get(b) ? { why: why.get(b), reproduce: await b.reproduce([...placed].filter(([, p]) => p.also.includes(b)).map(([o]) => o)) } : {}) })));
    // What decides the builds and proofs: the trees, what each patch builds, the .configs, the compilers and kseries'
    // code. A range whose patches all built is kept, so check after generate (the same trees) builds nothing.
    const treeOf = async (rev: string) => (await gitRaw(tree.root, ['rev-parse', `${rev}^{tree}`])).trim();
    const configOf = (b: KernelBuild) => createHash('sha1').update(fs.readFileSync(path.join(b.buildDir, '.config'))).digest('hex');
    const key = {
      base: await treeOf(opts.base),
      trees: await Promise.all(commits.map((c) => treeOf(c.sha))),
      plans,
      config: configOf(build),
      compiler: [build.compiler, build.compilerVersion],
      others: [...placed].map(([o, p]) => [o, p.reason ?? [p.build, ...p.also].map((b) => [b.buildDir, b.compiler, configOf(b)]), p.notOn]),
      code: codeDigest(['build', 'check', 'check/checks', 'check/proofs', 'object-code', 'kprobe', 'recipes', 'recipes/static-key']),
    };
    const planned: PlannedRange = { tree, base: opts.base, source, build, placed, commits, mails, plans, objects, reasonFor, config, step };
    // A proof that fails is a fact of the code and kept with the rest; a build that fails may be the machine's (a
    // killed make, a full disk), so it is done again.
    const kept = await keptResult('builds', key, () => buildEach(planned), (r) => r.reports.every((x) => x.status !== 'failed'), { env: opts.env, fresh: opts.fresh });
    // What would not link with a symbol off (link-deps.ts): read from the text, a warning of the patch beside the compilers'.
    const linkWarnings = await linking;
    const reports = kept.value.reports.map((r, i) => (linkWarnings[i]?.length ? { ...r, newWarnings: [...r.newWarnings, ...linkWarnings[i]!] } : r));
    const value = { ...kept.value, reports, ...(others.length ? { others } : {}), ...(missing.length ? { missing } : {}) };
    if (kept.keptFrom) {
      for (const [i, r] of value.reports.entries()) step(i + 1, 'build', 'done', `${r.status} (kept)`);
      return { ...value, keptFrom: kept.keptFrom };
    }
    return value;
  });
}

/** Where an object is built: a configured build directory, or why none here builds it. */
interface Placement {
  /** The build whose messages are the object's own (x86-64 gcc, or the architecture it needs). */
  build: KernelBuild;
  /** The other builds that compile it too: clang, the --arches architectures. */
  also: KernelBuild[];
  /** The other builds that could not compile it, with why. */
  notOn: string[];
  reason?: string;
}

/** What the builds of a range are: each object's placement, the builds asked for that cannot run here, why each side build exists. */
interface Matrix {
  placed: Map<string, Placement>;
  missing: string[];
  why: Map<KernelBuild, string[]>;
  /** Per patch, the dependents of a changed header that only a side build makes. */
  extra: Map<number, string[]>;
}

/**
 * The build each object goes to, configured: the host's (x86-64) for everything outside another architecture's
 * folder; `arch/<a>/` files to a build for <a>; what x86-64 cannot build, to i386 where its dependencies want a
 * 32-bit kernel (`!64BIT`, ISA), else to the first architecture with a cross compiler here that its Kconfig
 * dependencies allow. An object no build here makes keeps the reasons of each one tried. Then the builds the bots
 * add: each x86-64 object with clang too (`compilers`), each object outside arch/ for every `arches` machine too.
 */
async function placeObjects(opts: BuildOptions & { tree: KernelTree; tip: string }, source: string, host: KernelBuild, objects: string[], sides: Map<string, Sides>, headers: HeaderSides[]): Promise<Matrix> {
  const { tree } = opts;
  const read = (f: string) => readAtCommit(tree.root, opts.tip, f);
  const placed = new Map<string, Placement>();
  const missing = onPath('sparse', opts.env) ? [] : ['sparse: not installed (apt-get install sparse)'];
  const byArch = new Map<string, string[]>();
  for (const o of objects) {
    const a = archOfPath(o) ?? 'x86';
    byArch.set(a, [...(byArch.get(a) ?? []), o]);
  }
  /** Configure `build` for `list`; the objects it builds, and those left off, with why. */
  const configureFor = async (build: KernelBuild, list: string[], known: string[] = [], how: { prepare?: boolean } = {}): Promise<{ on: string[]; left: Map<string, string> }> => {
    const symbols = new Map<string, string[] | undefined>();
    for (const o of list) symbols.set(o, await build.symbolsFor(o, read));
    const off = await build.configure([...new Set([...known, ...[...symbols.values()].flatMap((s) => s ?? [])])], opts.tip, [], how);
    const left = new Map<string, string>();
    for (const o of list) {
      const reason = (symbols.get(o) ?? []).map((x) => off.get(x)).find((r) => r !== undefined);
      if (reason) left.set(o, reason);
    }
    return { on: list.filter((o) => !left.has(o)), left };
  };
  /** An object no build here makes: its reasons, kept on the host's build for the report. */
  const unbuilt = (o: string, reason: string) => placed.set(o, { build: host, also: [], notOn: [], reason });
  const placeOn = async (build: KernelBuild, list: string[]) => {
    const { on, left } = await configureFor(build, list);
    for (const o of on) placed.set(o, { build, also: [], notOn: [] });
    return left;
  };
  /**
   * On another architecture, what its defconfig cannot build goes to the board defconfig that sets the platform it
   * waits for (ixp4xx_defconfig: ARCH_IXP4XX needs ARMv5 and big-endian, arm's defconfig is ARMv7), its reasons
   * joined where that fails too.
   */
  const place = async (build: KernelBuild, list: string[]) => {
    const left = await placeOn(build, list);
    if (isHost(build.target) || !left.size) return left;
    const boards = new Map<string, string[]>();
    const defconfigs = await defconfigsOf(srcarchOf(build.target));
    for (const [o, why] of left) {
      const board = boardConfig(defconfigs, why);
      if (board) boards.set(board, [...(boards.get(board) ?? []), o]);
    }
    for (const [board, objects] of boards) {
      const again = await placeOn(buildFor({ ...build.target, defconfig: board }), objects);
      for (const o of objects) {
        const first = left.get(o)!;
        left.delete(o);
        if (again.has(o)) left.set(o, `${first}; ${board}: ${again.get(o)}`);
      }
    }
    return left;
  };
  /** The board defconfigs of an architecture folder (arch/<srcarch>/configs/*_defconfig), read once per range. */
  const boardTexts = new Map<string, Promise<Defconfig[]>>();
  const defconfigsOf = (srcarch: string) => {
    let texts = boardTexts.get(srcarch);
    if (!texts) boardTexts.set(srcarch, (texts = readDefconfigs(tree, opts.tip, srcarch)));
    return texts;
  };
  const elsewhere = new Map<string, KernelBuild>();
  const buildFor = (target: Target) => {
    const name = [target.arch, target.llvm ? 'clang' : '', target.defconfig ?? ''].join('-');
    let b = elsewhere.get(name);
    if (!b) elsewhere.set(name, (b = new KernelBuild(tree, source, { ...opts, config: configOn(target, opts.config), target, sparse: false })));
    return b;
  };
  const hostLeft = await place(host, byArch.get('x86') ?? []);
  for (const [a, list] of byArch) {
    if (a === 'x86') continue;
    const target = opts.hostOnly ? { missing: 'only x86-64 was asked for' } : targetFor(a, opts.env);
    if ('missing' in target) {
      for (const o of list) unbuilt(o, `${o.replace(/\.o$/, '')} is ${a} code: ${target.missing}`);
      continue;
    }
    for (const [o, why] of await place(buildFor(target), list)) unbuilt(o, `${target.arch}: ${why}`);
  }
  if (opts.hostOnly) {
    for (const [o, why] of hostLeft) unbuilt(o, why);
    return { placed, missing, why: new Map(), extra: new Map() };
  }
  if (hostLeft.size) {
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
      for (const [o, why] of await place(buildFor(next.get(list[0]!)!), list)) tried.get(o)!.push(`${arch}: ${why}`);
    }
    // Where x86-64 was all that was tried, its reason alone.
    for (const [o, reasons] of tried) if (!placed.has(o)) unbuilt(o, reasons.length === 1 ? hostLeft.get(o)! : reasons.join('; '));
  }
  // The bots' other builds of what is built: an object one of them cannot configure is left to the others.
  const built = [...placed].filter(([, p]) => !p.reason).map(([o]) => o);
  const others = otherBuilds(opts);
  missing.push(...others.missing);
  // clang builds what x86-64 gcc built; another machine the generic files, and the files of its own arch/ folder (i386
  // builds arch/x86/ too), where their own build is another.
  const extra = others.targets.map((target) => ({
    target,
    list: target.llvm ? built.filter((o) => placed.get(o)!.build === host) : built.filter((o) => (archOfPath(o) ?? srcarchOf(target)) === srcarchOf(target) && placed.get(o)!.build.target.arch !== target.arch),
  }));
  // Configured side by side: Kconfig runs on one core, and each build's folder is its own. clang builds what x86-64
  // gcc built: the symbols gcc's configuration found, dependencies and all, in one round.
  const wanted = extra.filter((x) => x.list.length).map(({ target, list }) => ({ b: buildFor(target), list, known: target.arch === HOST.arch ? host.switchedOn : [] }));
  const configured = await Promise.all(wanted.map(({ b, list, known }) => configureFor(b, list, known)));
  for (const [i, { b }] of wanted.entries()) {
    const { on, left } = configured[i]!;
    for (const o of on) placed.get(o)!.also.push(b);
    for (const [o, why] of left) placed.get(o)!.notOn.push(`${b.baseName}, ${b.compiler}: not built: ${why}`);
  }
  const why = new Map<KernelBuild, string[]>();
  const sideOnly = new Map<number, string[]>();
  if (opts.noSides) return { placed, missing, why, extra: sideOnly };
  const dependents = await otherSideDependents(tree.root, opts.tip, headers, await host.setNow(), (sha, header) => headerIncluders(tree, sha, header));
  const only = new Map<string, number>();
  for (const [i, list] of dependents) for (const [o, s] of list) if (!placed.has(o) && !only.has(o)) only.set(o, i), sides.set(o, s);
  // The builds a bot's random configuration or another machine's allmodconfig would make by chance (side-builds.ts).
  const context: SideContext = {
    host,
    objects: [...built.filter((o) => placed.get(o)!.build === host), ...only.keys()],
    sides,
    index: await kconfigIndexAt(tree, opts.tip),
    read,
    env: opts.env,
    sideTarget: others.targets.some((t) => t.llvm) ? CLANG : HOST,
    ...(opts.arches ? { arches: opts.arches } : {}),
    has: (o, arch) => placed.get(o)!.also.some((b) => b.target.arch === arch && !b.target.llvm),
    // A 32-bit side compiles with debug information: its calls to libgcc's 64-bit division are found at their line.
    make: (target, side, debugInfo) => new KernelBuild(tree, source, { ...opts, config: configOn(target, opts.config), target, sparse: false, ...(side ? { side } : {}), ...(debugInfo ? { debugInfo } : {}) }),
    configure: configureFor,
  };
  const { builds: flipped, refused } = await sideBuilds(context);
  missing.push(...refused);
  for (const s of [...flipped, ...(await reachBuilds({ ...context, objects: context.objects.filter((o) => !only.has(o)) }))]) {
    for (const o of s.objects) {
      const p = placed.get(o);
      if (p) p.also.push(s.build);
      else {
        placed.set(o, { build: s.build, also: [], notOn: [] });
        sideOnly.set(only.get(o)!, [...(sideOnly.get(only.get(o)!) ?? []), o]);
      }
    }
    why.set(s.build, s.why);
  }
  return { placed, missing, why, extra: sideOnly };
}

/**
 * The builds the bots add to each object's own, as asked: x86-64 with clang (a check that names no compilers asks for
 * it), and each machine of `arches` ("all": i386 and every cross compiler here); with why an asked one cannot run here.
 */
export function otherBuilds(opts: Pick<BuildOptions, 'compilers' | 'arches' | 'env'>): { targets: Target[]; missing: string[] } {
  const targets: Target[] = [];
  const missing: string[] = [];
  if ((opts.compilers ?? DEFAULT_COMPILERS).includes('clang')) {
    const why = clangMissing(opts.env);
    if (why) missing.push(why);
    else targets.push(CLANG);
  }
  const arches = opts.arches?.[0] === 'all' ? ['i386', ...installedCross(opts.env)] : (opts.arches ?? []);
  for (const name of arches) {
    const target = targetNamed(name, opts.env);
    if ('missing' in target) missing.push(`${name}: ${target.missing}`);
    else targets.push(target);
  }
  return { targets, missing };
}

/** The libgcc calls of an object as compiler errors at their source line (the object's own file where none is known). */
async function libgccErrors(object: string, source: string): Promise<CompilerMessage[]> {
  return (await libgccCalls(object)).map(({ symbol, where }) => {
    const m = /^(.+):(\d+)/.exec(where ?? '');
    const file = m?.[1] ?? object;
    const line = m ? Number(m[2]) : 0;
    const rel = path.isAbsolute(file) ? path.relative(source, file) : file.replace(/^(\.\.\/)+/, '');
    const message = `undefined reference to \`${symbol}': a 64-bit division on a 32-bit machine, which the kernel does not link (div_u64(), div_s64(), do_div())`;
    return { level: 'error', file: rel, line, column: 0, message, flag: undefined, text: `${rel}:${line}: error: ${message}` };
  });
}

/** The config a build for `target` starts from: another architecture's is its own defconfig (a .config file is the host's); clang builds the host's. */
export function configOn(target: Target, config: string): string {
  return target.arch === HOST.arch || ['defconfig', 'allmodconfig', 'minimal'].includes(config) ? config : 'defconfig';
}

/** A board defconfig: its file name and text. */
interface Defconfig {
  name: string;
  text: string;
}

async function readDefconfigs(tree: KernelTree, commit: string, srcarch: string): Promise<Defconfig[]> {
  const folder = `arch/${srcarch}/configs/`;
  const files = (await gitRaw(tree.root, ['ls-tree', '--name-only', commit, folder]).catch(() => '')).split('\n').filter((f) => f.endsWith('_defconfig'));
  return Promise.all(files.map(async (f) => ({ name: path.posix.basename(f), text: `\n${(await readAtCommit(tree.root, commit, f)) ?? ''}` })));
}

/**
 * The board defconfig that sets most of the platform symbols a reason names as unmet ("CONFIG_IXP4XX_ETH needs
 * ARCH_IXP4XX (...)"), the shortest of those; none when none sets any.
 */
function boardConfig(defconfigs: Defconfig[], reason: string): string | undefined {
  const unmet = [...new Set((/needs (.+?) \(/.exec(reason)?.[1] ?? '').match(/\b(?:ARCH|MACH|PLAT|SOC|CPU|PPC)_\w+/g) ?? [])];
  let best: { name: string; sets: number; size: number } | undefined;
  for (const { name, text } of defconfigs) {
    const sets = unmet.filter((u) => text.includes(`\nCONFIG_${u}=y\n`)).length;
    if (sets && (!best || sets > best.sets || (sets === best.sets && text.length < best.size))) best = { name, sets, size: text.length };
  }
  return best?.name;
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
  plans: ObjectPlan[];
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
  const buildsOf = (o: string) => [placed.get(o)!.build, ...placed.get(o)!.also];
  /**
   * Each build's objects of `list`, in one make per build, the builds side by side (a make of a few objects spends
   * most of its time in Kbuild's own steps, which overlap well); the results with each object's own build first, so
   * the bots' other builds add only what it did not already say.
   */
  const compile = async (list: string[], which: (b: KernelBuild) => boolean = () => true) => {
    const builds = [...new Set(list.flatMap(buildsOf))].filter(which);
    const made = await Promise.all(builds.map(async (b) => (await b.compileMany(list.filter((o) => buildsOf(o).includes(b)))).map((r) => ({ ...r, build: b }))));
    // A 32-bit build's object that calls libgcc's 64-bit division does not link ("undefined reference to `__udivdi3'",
    // 0-day's i386 configurations): an error of the call's line, beside the compiler's.
    for (const r of made.flat()) {
      const calls = r.ok && r.build.withDebugInfo ? await libgccErrors(path.join(r.build.buildDir, r.object), source) : [];
      if (calls.length) Object.assign(r, { ok: false, messages: [...r.messages, ...calls] });
    }
    return made.flat();
  };
  const named = (b: KernelBuild) => `${b.baseName}, ${b.compiler}`;
  /** A message of a build besides the object's own names that build, as the robot's reports name the config. */
  const told = (r: { object: string; build: KernelBuild }, text: string) => (r.build === placed.get(r.object)!.build && !r.build.isSide ? text : `${text} [${named(r.build)}]`);
  const lastKey = (r: { object: string; build: KernelBuild }) => `${r.build.buildDir}\0${r.object}`;
  /** What makes two builds' warnings one: its words, or (gcc's and clang's words differ) the -W option at the line. */
  const keys = (w: CompilerMessage) => [warningKey(w), ...(w.flag && w.line ? [`${w.file}:${w.line}:${w.flag}`] : [])];

  const last = new Map<string, CompilerMessage[]>();
  const atBase = [];
  for (const o of objects) if (!reasonFor(o) && (await exists(tree, base, o))) atBase.push(o);
  for (const b of new Set(atBase.flatMap(buildsOf))) b.forget(atBase.filter((o) => buildsOf(o).includes(b)));
  // Every object the host builds, before and after each patch: its sizes and strings (a clean-up's "what it costs").
  const facts = new Map<string, ObjectFacts | undefined>();
  for (const r of await compile(atBase)) {
    last.set(lastKey(r), r.messages);
    if (r.ok && r.build === build) facts.set(r.object, factsOf(objectFile(r.object)));
    if (r.ok && r.build === build && proved.has(r.object)) code.set(r.object, await readObjectCode(objectFile(r.object), { contents }));
  }
  const reports: BuildReport[] = [];
  const proofs: ObjectProof[][] = [];
  /** The warnings told, per object: in the patch being built, and in any patch (what the tip's sides need not repeat). */
  const said = new Map<string, Set<string>>();
  const ever = new Map<string, Set<string>>();
  /** A compile's errors and new warnings, into the report of the patch they are of. */
  const record = (report: BuildReport, r: Awaited<ReturnType<typeof compile>>[number], seenBy: Map<string, Set<string>>) => {
    const o = r.object;
    if (!r.ok) {
      report.status = 'failed';
      const errors = r.messages.filter((m) => m.level === 'error').map((m) => m.text);
      report.errors.push(...(errors.length ? errors : [`${o}: make failed`]).map((e) => told(r, e)));
    }
    // A warning every compiler prints (kernel-doc's, a missing prototype in gcc's words and clang's: the same -W
    // option at the same line) is told once, by the object's own build.
    const seen = seenBy.get(o) ?? seenBy.set(o, new Set()).get(o)!;
    const fresh = newWarnings(last.get(lastKey(r)) ?? [], r.messages).filter((w) => !keys(w).some((k) => seen.has(k)));
    const all = ever.get(o) ?? ever.set(o, new Set()).get(o)!;
    for (const k of fresh.flatMap(keys)) {
      seen.add(k);
      all.add(k);
    }
    report.newWarnings.push(...fresh.map((w) => told(r, w.text)));
    last.set(lastKey(r), r.messages);
  };
  // The other sides are built once, at the range's tip, as the robot builds a series' head (each patch is built by its
  // own build and the bots' matrix, for bisectability): each object's findings are the last patch's that builds it.
  const lastOf = new Map<string, number>();
  plans.forEach((p, i) => p.objects.filter((o) => !reasonFor(o)).forEach((o) => lastOf.set(o, i)));
  const sided = [...lastOf.keys()].filter((o) => buildsOf(o).some((b) => b.isSide));
  const atTip = () => compile(sided, (b) => b.isSide);
  let tipSides: ReturnType<typeof atTip> | undefined;
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
    if (report.objects.length) report.builtOn = Object.fromEntries(report.objects.map((o) => [o, [...buildsOf(o).map(named), ...placed.get(o)!.notOn]]));
    const around = new Map<string, ObjectAround>(toProve[i]!.map((o) => [o, { before: code.get(o), notBuilt: reasonFor(o) ?? 'the build failed' }]));
    said.clear();
    // At the tip, the sides beside the patch's own builds.
    if (i === commits.length - 1 && sided.length) tipSides = atTip();
    for (const r of await compile(report.objects, (b) => !b.isSide)) {
      const o = r.object;
      record(report, r, said);
      if (!r.ok || r.build !== build) continue;
      const was = facts.get(o);
      const now = factsOf(objectFile(o));
      if (was && now) (report.sizes ??= []).push({ object: o, before: was.totals, after: now.totals, strings: stringChanges(was.strings, now.strings), sameCode: was.code === now.code });
      facts.set(o, now);
      if (!proved.has(o)) continue;
      const compiled = await readObjectCode(objectFile(o), { contents });
      if (around.has(o)) around.set(o, { before: code.get(o), compiled, final: asRun.has(o) ? await readObjectAsRun(objectFile(o), objtool) : undefined });
      code.set(o, compiled);
    }
    // A header's or a .dtsi's warning, printed for each object that includes it, is one finding.
    report.newWarnings = [...new Set(report.newWarnings)];
    report.errors = [...new Set(report.errors)];
    if (report.objects.length === 0 && report.status === 'ok') report.status = 'skipped';
    if (around.size > 0) proofs[i] = provers.flatMap((v) => v.prove(mails[i]!, around));
    step(i + 1, 'build', 'done', report.status);
    reports.push(report);
  }
  if (sided.length) {
    if (!tipSides) {
      await gitRaw(source, ['checkout', '-q', '--detach', commits[commits.length - 1]!.sha]);
      tipSides = atTip();
    }
    // Told after every patch's own builds: a warning one of them told is not told again.
    for (const r of await tipSides) record(reports[lastOf.get(r.object)!]!, r, ever);
    for (const report of reports) {
      report.newWarnings = [...new Set(report.newWarnings)];
      report.errors = [...new Set(report.errors)];
    }
  }
  return { reports, proofs, compiler: build.compiler, compilerVersion: build.compilerVersion, config };
}

interface ObjectFacts {
  totals: SectionTotals;
  strings: string[];
  /** A digest of its executable sections' bytes (RELA relocations keep their targets out of them). */
  code: string;
}

/** An object's allocated bytes and strings, from its ELF headers; undefined for a file that is no x86-64 object. */
function factsOf(file: string): ObjectFacts | undefined {
  try {
    const image = fs.readFileSync(file);
    const sections = elfSections(file, image);
    return { totals: sectionTotals({ sections })!, strings: mergedStrings(image, sections), code: codeBytesDigest(image, sections) };
  } catch {
    return undefined;
  }
}

/** What a patch builds, and why where it is not a file it changes. */
export interface ObjectPlan {
  objects: string[];
  note?: string;
  /** The series' objects its new selects bring into the build (selected.ts). */
  brought?: BroughtIn[];
}

/**
 * The objects a commit's changes ask to build: its .c/.S files, and for each header a sample of its dependents, those
 * the build's config builds as it is (a dependent that needs symbols switched on would change how every later object
 * of the directory compiles: common.h of x86 kprobes would bring in ftrace.o and the function tracer with it); only
 * when none is, the first ones. And the series' files its new selects bring into the build.
 */
async function objectsOf(tree: KernelTree, base: string, c: Commit, full: boolean, build: KernelBuild): Promise<ObjectPlan> {
  const objects = new Set<string>();
  const notes: string[] = [];
  for (const { status, file } of c.files) {
    if (status.startsWith('D')) continue;
    if (/\.[cS]$/.test(file)) objects.add(file.replace(/\.[cS]$/, '.o'));
    if (file.endsWith('.dts')) objects.add(file.replace(/\.dts$/, '.dtb'));
    if (file.endsWith('.dtsi')) {
      const boards = await dtsIncluders(tree, c.sha, file);
      const chosen = full ? boards : boards.slice(0, HEADER_SAMPLE);
      chosen.forEach((d) => objects.add(d));
      if (chosen.length < boards.length) notes.push(`${file}: built ${chosen.length} of ${boards.length} device trees that include it (--full builds all)`);
    }
    if (file.endsWith('.h')) {
      // The files that include it first, from the tree: the sample (and so a kept result) is the same whatever this
      // machine built before; then the objects built here whose dependency files name it.
      const direct = await headerIncluders(tree, c.sha, file);
      const dependents = [...new Set([...direct, ...build.objectsDependingOn(file)])];
      const chosen = full ? dependents : await sampleOf(dependents, build, (f) => readAtCommit(tree.root, c.sha, f));
      chosen.forEach((d) => objects.add(d));
      if (chosen.length < dependents.length) notes.push(`${file}: built ${chosen.length} of its dependents (${direct.length} files include it; --full builds every dependent)`);
    }
  }
  const brought = (await broughtIn(tree.root, base, c.sha)).filter((b) => !objects.has(b.object));
  for (const b of brought) {
    objects.add(b.object);
    notes.push(`${b.object}: brought into the build by its select of CONFIG_${b.symbol} (${b.kconfig})`);
  }
  return { objects: [...objects].sort(), note: notes.join('; ') || undefined, ...(brought.length ? { brought } : {}) };
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

/** The includers found of a header at a commit (a commit's files never change): the plan and the sides ask alike. */
const includersFound = new Map<string, Promise<string[]>>();

/**
 * .c files that include a header directly: `<linux/x.h>` for include/ and arch/x86/include/, `"x.h"` beside it.
 * Other architectures' files are left out: this build is x86-64.
 */
function headerIncluders(tree: KernelTree, commit: string, header: string): Promise<string[]> {
  const key = `${tree.root}\0${commit}\0${header}`;
  let found = includersFound.get(key);
  if (!found) includersFound.set(key, (found = searchIncluders(tree, commit, header)));
  return found;
}

async function searchIncluders(tree: KernelTree, commit: string, header: string): Promise<string[]> {
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
  const base = object.replace(/\.(o|dtb)$/, '');
  const sources = object.endsWith('.dtb') ? ['.dts'] : ['.c', '.S'];
  for (const x of sources) if ((await readAtCommit(tree.root, commit, `${base}${x}`)) !== undefined) return true;
  return false;
}

/**
 * The device trees (.dtb) of the boards whose .dts includes a .dtsi, directly or through another .dtsi, in its
 * architecture's dts folder (`#include "imx8mq.dtsi"`, `/include/ "../x.dtsi"`), sorted.
 */
async function dtsIncluders(tree: KernelTree, commit: string, dtsi: string): Promise<string[]> {
  const root = /^arch\/[^/]+\/boot\/dts\//.exec(dtsi)?.[0];
  if (!root) return [];
  const boards = new Set<string>();
  let wanted = [dtsi];
  const seen = new Set(wanted);
  for (let depth = 0; depth < 3 && wanted.length; depth++) {
    // The name whole: after the opening quote or a folder's slash (imx8mq.dtsi, not fsl-imx8mq.dtsi).
    const args = wanted.flatMap((w) => ['-e', `["/]${path.posix.basename(w).replace(/[.+^$()[\]{}|\\*?]/g, '\\$&')}"`]);
    const out = await gitRaw(tree.root, ['grep', '-l', '-E', ...args, commit, '--', `${root}*.dts`, `${root}*.dtsi`]).catch(() => '');
    const files = out.split('\n').filter(Boolean).map((l) => l.slice(commit.length + 1));
    for (const f of files) if (f.endsWith('.dts')) boards.add(f.replace(/\.dts$/, '.dtb'));
    wanted = files.filter((f) => f.endsWith('.dtsi') && !seen.has(f));
    wanted.forEach((f) => seen.add(f));
  }
  return [...boards].sort();
}

export function skipped(note: string): BuildReport {
  return { status: 'skipped', objects: [], errors: [], newWarnings: [], notBuilt: [], note };
}
