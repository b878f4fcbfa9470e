// One kernel build directory per tree and config, outside the source: configure once, then compile single objects.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ToolFailedError, UsageError } from '../errors.js';
import { onPath } from '../tools/which.js';
import { gitRaw, readAtCommit } from '../tools/git.js';
import { runMake, runMakeMerged, runScriptsConfig, type MakeOptions } from '../tools/make.js';
import { cacheDir } from '../tree/paths.js';
import type { KernelTree } from '../tree/tree.js';
import { buildSample, withProgress, type OnProgress } from '../progress.js';
import { compilerPath, retireDependCache } from './compiler.js';
import { ledgered } from './ledger.js';
import { HOST, isHost, srcarchOf, type Target } from './targets.js';
import type { ConfigAsBuilt } from './config-line.js';
import { configSymbolsFor, conjuncts, hasPrompt, kconfigDepends, kconfigSelectors, objectsToBuild, sourceConditions, parseCompilerOutput, symbolsToMeet, setSymbols, type CompilerMessage, type ReadText } from './kbuild.js';

/** The Kconfig digest of each source tree (git tree id) asked for: listing 80k files takes seconds. */
const KCONFIG_DIGESTS = new Map<string, string>();

/**
 * The way dependencies are switched on (2: COMPILE_TEST for a driver of another machine; 7: under the Kconfig files
 * of the range's tip, where a symbol the series adds is defined; 8: never a symbol the caller keeps off, and only
 * this architecture's Kconfig files, not another's symbol of the same name): an older memo is stale.
 */
const CONFIGURE_LOGIC = 8;

/** How many folders of asked symbol sets a build directory keeps beside it (KernelBuild.enter). */
const VARIANTS_KEPT = 16;


/**
 * The makes running in each build folder: two builds of one folder (a side whose flips the host's configuration has
 * already, say, resolves to the host's folder) compile one after the other, never in one folder at once, where make
 * leaves objects unmade without an error.
 */
const running = new Map<string, Promise<unknown>>();

function inFolder<T>(dir: string, job: () => Promise<T>): Promise<T> {
  const next = (running.get(dir) ?? Promise.resolve()).then(job, job);
  running.set(dir, next.catch(() => undefined));
  return next;
}

/** How many times a dependency of a dependency is switched on before kseries gives up on a symbol. */
const DEPENDENCY_ROUNDS = 4;

export interface BuildOptions {
  /** defconfig (default), allmodconfig, minimal (tinyconfig + kvm_guest.config: a small bootable kernel), or a .config file. */
  config: string;
  /**
   * A build directory of the same config for another purpose (`boot`, `lockdep`), with its own .config and objects,
   * shared by every tree: its source must be a shared source folder (tree/worktree.ts sourceAt).
   */
  flavour?: string;
  /** Build through distcc (hosts from DISTCC_HOSTS). */
  distcc: boolean;
  env?: NodeJS.ProcessEnv;
  /** Run make under bubblewrap (review of code someone else wrote). */
  sandbox?: boolean;
  /** Where the long steps (configuring, a whole kernel) report how far they got. */
  progress?: OnProgress;
  /** Build (and boot) again even when kseries kept the result of the same trees and configuration. */
  fresh?: boolean;
  /** The architecture built for (targets.ts); the host's x86-64 when not given. */
  target?: Target;
  /** Run sparse (C=1) over the objects compiled, where sparse is installed. */
  sparse?: boolean;
  /** The compilers each x86-64 object of a range is built with: gcc always, clang too when named (check --compilers). */
  compilers?: string[];
  /** The machines each object outside arch/ of a range is built for besides its own (check --arches). */
  arches?: string[];
  /** x86-64 with gcc alone, as kseries built before the bots' matrix (the bench's baseline): no other build. */
  hostOnly?: boolean;
  /**
   * The other side of the symbols a range's lines depend on (check/side-builds.ts): switched on (`on`) or off (`off`,
   * with what selects them) on top of what configure() is asked for. Reports name the build by them.
   */
  side?: { on: string[]; off: string[] };
  /** Compile with debug information (KCFLAGS=-g), so a call to a libgcc helper is found at its source line. */
  debugInfo?: boolean;
  /** Where a range's builds of the other side (`side`) and of COMPILE_TEST drivers on another machine are not wanted. */
  noSides?: boolean;
}

export interface CompileResult {
  object: string;
  ok: boolean;
  messages: CompilerMessage[];
}

export class KernelBuild {
  /**
   * The build directory of this config and target. A directory configured from its base for every run (perRun) keeps
   * one folder per set of symbols a run asks for beside it (`<home>+<digest>`): configure() moves there.
   */
  private readonly home: string;
  private dir: string;
  /** The architecture this directory builds for. */
  readonly target: Target;
  /** Which path compiles, for reports: gcc, ccache gcc, distcc gcc, or ccache + distcc gcc. */
  readonly compiler: string;
  private readonly tools: Omit<MakeOptions, 'buildDir'>;
  private readonly sparse: boolean;

  constructor(
    private readonly tree: KernelTree,
    readonly source: string,
    private readonly opts: BuildOptions,
  ) {
    const target = opts.target ?? HOST;
    this.home = this.dir = buildDirOf(tree, opts);
    const env = opts.env ?? process.env;
    // The sandbox has no network: no distcc there, and the report says so.
    retireDependCache(env);
    // distcc hosts are asked for what they surely have, x86-64 gcc: clang and cross builds compile here.
    const compiler = compilerPath({ ccache: onPath('ccache', env), distcc: !opts.sandbox && isHost(target) && (opts.distcc || !!env.DISTCC_HOSTS), depend: true }, env);
    // A cross build's gcc is the cross compiler (`ccache aarch64-linux-gnu-gcc`); make finds a plain one itself.
    // A clang build's is clang (`ccache clang`, with LLVM=1 for the rest of the tools).
    const cross = (word: string) => (target.llvm ? word.replace(/\bgcc$/, 'clang') : target.prefix ? word.replace(/\bgcc$/, `${target.prefix}gcc`) : word);
    const sparse = opts.sparse === true && onPath('sparse', env);
    this.target = target;
    this.compiler = cross(compiler.name) + (sparse ? ' + sparse' : '');
    this.tools = {
      source,
      cc: compiler.cc && cross(compiler.cc),
      sandbox: opts.sandbox,
      env: compiler.env,
      ...(isHost(target) ? {} : { arch: target.arch }),
      ...(target.prefix ? { crossCompile: target.prefix } : {}),
      ...(target.llvm ? { llvm: true } : {}),
    };
    // sparse runs on compiles only, not on the configuration and `make prepare`.
    this.sparse = sparse;
  }

  /** The build directory make writes to: the home, or the folder of the symbols configure() was last asked for. */
  get buildDir(): string {
    return this.dir;
  }

  private get make(): MakeOptions {
    return { ...this.tools, buildDir: this.dir };
  }

  /** make's options for compiling a patch's objects: with sparse, where asked for. */
  private get compiling(): MakeOptions {
    return this.sparse ? { ...this.make, sparse: true } : this.make;
  }

  /** The compiler's own version line as Kconfig recorded it (CONFIG_CC_VERSION_TEXT), once configured. */
  get compilerVersion(): string | undefined {
    const config = path.join(this.buildDir, '.config');
    if (!fs.existsSync(config)) return undefined;
    return /^CONFIG_CC_VERSION_TEXT="(.*)"$/m.exec(fs.readFileSync(config, 'utf8'))?.[1];
  }

  /**
   * The symbols this build must switch on to build `object` (a .o path): none when its .config already builds it
   * (one of the object's build ways has all its symbols set), else the unset ones of the way that needs fewest.
   * Undefined when no Makefile line names the object. Makes the .config first when there is none.
   */
  async symbolsFor(object: string, read: ReadText): Promise<string[] | undefined> {
    // A device tree blob named as a make target is built whatever the .config says of its board.
    if (object.endsWith('.dtb')) return [];
    const source = object.replace(/\.o$/, '.c');
    const config = setSymbols(await this.baseConfig());
    // What the object needs beyond the plain base is what kseries switches for it, whether or not an earlier run of
    // this build directory already did: the configuration a message names (configAsBuilt) counts it.
    const base = setSymbols(await this.plainConfig());
    const fromBase = await configSymbolsFor(source, read, base);
    // A build directory that starts from its base for every run wants what the object needs beyond the base.
    if (this.perRun) return fromBase?.filter((s) => !base.has(s));
    if (fromBase?.length) this.recordRequested(fromBase);
    return (await configSymbolsFor(source, read, config))?.filter((s) => !config.has(s));
  }

  /** The text of the build directory's .config, made first (defconfig, allmodconfig, or the given file) when missing. */
  private async baseConfig(): Promise<string> {
    const configFile = path.join(this.buildDir, '.config');
    if (!fs.existsSync(configFile)) this.seedSandbox();
    fs.mkdirSync(this.buildDir, { recursive: true });
    // The config target's output, made once (plainConfig keeps it): a second `make defconfig` is seconds of Kconfig.
    if (!fs.existsSync(configFile)) {
      await this.plainConfig();
      fs.copyFileSync(path.join(this.buildDir, '.config.base'), configFile);
    }
    return fs.readFileSync(configFile, 'utf8');
  }

  /**
   * Make the .config (once per config), switch CONFIG_WERROR off so warnings stay warnings, enable `symbols` with
   * their dependencies resolved by olddefconfig (and switch `disable` off), and `make prepare` (unless told not to:
   * a configuration that is asked for more symbols right after). Returns, per symbol that stayed off, why.
   */
  async configure(symbols: string[], kconfigAt: string, disable: string[] = [], opts: { prepare?: boolean } = {}): Promise<Map<string, string>> {
    if (this.opts.side) {
      symbols = [...symbols, ...this.opts.side.on];
      disable = [...disable, ...this.opts.side.off];
    }
    // Every make here parses the Kconfig files, which asks the compiler about each option it tests: seconds each.
    const { config, off } = await withProgress(`configuring ${this.buildDir}`, this.opts.progress, () => ({ phase: this.step }), () => this.settle(symbols, kconfigAt, disable));
    if (opts.prepare !== false) await this.prepare(config);
    return off;
  }

  /** The make step configure() is in, for its progress lines. */
  private step?: string;

  /**
   * A build directory of a config target or file (no boot kernel) is configured from its base for every run: the base
   * plus what this run asks for, so one series' symbols (kprobes' CONFIG_FUNCTION_TRACER, which changes how every
   * object compiles) never end up in another's build and message. Switching back rebuilds the few objects built
   * there, mostly from ccache. A boot kernel keeps what earlier runs asked for (its objects are the whole kernel).
   */
  private get perRun(): boolean {
    return !this.opts.flavour;
  }

  private async settle(symbols: string[], kconfigAt: string, disable: string[]): Promise<{ config: string; off: Map<string, string> }> {
    // A symbol kept off is part of what was asked for: its folder is not that of the same symbols on.
    const asked = [...[...new Set(symbols)].sort(), ...[...new Set(disable)].sort().map((s) => `!${s}`)].join('\n');
    if (this.perRun) this.enter(asked);
    const configFile = path.join(this.buildDir, '.config');
    const askedFile = path.join(this.buildDir, '.kseries-asked');
    fs.mkdirSync(this.buildDir, { recursive: true });
    if (this.perRun && fs.existsSync(configFile) && (fs.existsSync(askedFile) ? fs.readFileSync(askedFile, 'utf8') : '') !== asked) {
      await this.plainConfig();
      fs.copyFileSync(path.join(this.buildDir, '.config.base'), configFile);
      this.recordRequested([], { replace: true });
    }
    if (this.perRun) fs.writeFileSync(askedFile, asked);
    // Switch the symbols on (those already y or m stay as they are); what olddefconfig switches off again for want of
    // a plain dependency gets that dependency switched on too, for a few rounds; what is still off then is reported
    // with its dependencies.
    const before = await this.baseConfig();
    // The same request of the same .config under the same Kconfig files was configured before: nothing to do.
    const memo = path.join(this.buildDir, '.kseries-configured.json');
    const request = { config: createHash('sha1').update(before).digest('hex'), kconfig: await this.kconfigDigest(kconfigAt), disable: [...disable].sort(), logic: CONFIGURE_LOGIC };
    const known = readJson<typeof request & { asked: string[]; off: Record<string, string> }>(memo);
    if (known && known.config === request.config && known.kconfig === request.kconfig && known.disable.join() === request.disable.join() && known.logic === CONFIGURE_LOGIC && symbols.every((s) => known.asked.includes(s))) {
      return { config: before, off: new Map(Object.entries(known.off).filter(([s]) => symbols.includes(s))) };
    }
    let wanted = symbols.filter((s) => !isSet(before, s));
    // Nothing to switch: the .config stays as it is (Kbuild itself syncs it with a source whose Kconfig changed).
    const settled = wanted.length === 0 && ![...disable, 'WERROR'].some((s) => isSet(before, s));
    for (let round = 0; round < (settled ? 0 : DEPENDENCY_ROUNDS); round++) {
      await runScriptsConfig(this.source, configFile, ['--disable', 'WERROR', ...disable.flatMap((s) => ['--disable', s]), ...wanted.flatMap((s) => ['--enable', s])]);
      // syncconfig resolves the .config as olddefconfig does (a symbol new to it takes its default: its question reads
      // the end of stdin) and writes include/config/auto.conf too, which `make prepare` would otherwise make in a
      // Kconfig run of its own (7 s with gcc, 15 s with clang, for every new build folder).
      await this.mustMake(['syncconfig']);
      const config = fs.readFileSync(configFile, 'utf8');
      // A symbol to keep off that a select or a default set again: what sets it goes off too, unless asked for.
      const again = await this.settersOf(disable.filter((d) => isSet(config, d)), kconfigAt, config);
      const stillOn = again.filter((x) => !disable.includes(x) && !wanted.includes(x) && !symbols.includes(x));
      disable = [...disable, ...stillOn];
      const more: string[] = [];
      for (const s of wanted.filter((w) => !isSet(config, w))) {
        const needs = symbolsToMeet((await this.dependsOf(s, kconfigAt))?.deps ?? [], (n) => isSet(config, n)) ?? [];
        // What the caller keeps off stays off: the symbol is reported with that dependency unmet.
        const unmet = needs.filter((n) => !isSet(config, n) && !wanted.includes(n) && !disable.includes(n));
        // Its dependencies are met and it is still off: a symbol without a prompt, which only a `select` sets.
        const selector = unmet.length === 0 && needs.every((n) => isSet(config, n)) ? (await this.selectorsOf(s, kconfigAt)).find((x) => !wanted.includes(x) && !disable.includes(x)) : undefined;
        more.push(...unmet, ...(selector ? [selector] : []));
      }
      if (more.length === 0 && stillOn.length === 0) break;
      wanted = [...wanted, ...more];
    }
    const config = fs.readFileSync(configFile, 'utf8');
    this.recordRequested([...symbols, ...wanted]);
    const off = new Map<string, string>();
    for (const s of symbols) if (!isSet(config, s)) off.set(s, await this.whyOff(s, kconfigAt, config));
    const done = { ...request, config: createHash('sha1').update(config).digest('hex') };
    fs.writeFileSync(memo, JSON.stringify({ ...done, asked: [...new Set([...symbols, ...(known?.config === done.config ? known.asked : [])])].sort(), off: { ...(known?.config === done.config ? known.off : {}), ...Object.fromEntries(off) } }));
    return { config, off };
  }

  /** A digest of the Kconfig files at `commit` (their blob ids): what olddefconfig reads besides the .config. */
  private async kconfigDigest(commit: string): Promise<string> {
    const tree = (await gitRaw(this.tree.root, ['rev-parse', `${commit}^{tree}`])).trim();
    const known = KCONFIG_DIGESTS.get(tree);
    if (known) return known;
    const listing = await gitRaw(this.tree.root, ['ls-tree', '-r', tree]);
    const digest = createHash('sha1').update(listing.split('\n').filter((l) => /\/Kconfig[^/]*$|\tKconfig[^/]*$/.test(l)).join('\n')).digest('hex');
    KCONFIG_DIGESTS.set(tree, digest);
    return digest;
  }

  /**
   * `make prepare`, unless this .config was prepared already (a stamp of its digest): a warm build directory skips a
   * make of several seconds, and what it would check, the build of an object checks again anyway.
   */
  private async prepare(config: string): Promise<void> {
    const stamp = path.join(this.buildDir, '.kseries-prepared');
    const digest = createHash('sha1').update(config).digest('hex');
    const done = fs.existsSync(path.join(this.buildDir, 'include/generated/autoconf.h')) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === digest;
    if (done) return;
    await withProgress(`preparing ${this.buildDir}`, this.opts.progress, buildSample(this.buildDir), () => this.mustMake(['prepare']));
    fs.writeFileSync(stamp, digest);
  }

  /**
   * A new sandboxed build directory starts as a copy of kseries' own one of the same tree and config, when there is
   * one: configured, prepared (host programs, objtool) and with what it compiled, so the sandbox compiles only what the
   * series changes. Only ever in this direction: nothing a sandboxed build writes reaches a trusted one.
   */
  private seedSandbox(): void {
    const trusted = this.buildDir.replace(/-sandboxed(?=\+|$)/, '');
    if (!this.opts.sandbox || trusted === this.buildDir || !fs.existsSync(path.join(trusted, '.config'))) return;
    copyBuild(trusted, this.buildDir, { objects: true });
  }

  /**
   * Move to the folder of this set of asked symbols. Each set keeps its own .config, prepared tree and objects, so a
   * run that asks for what an earlier run asked for (the same series checked again, a series after another that needs
   * other symbols) neither configures nor prepares again: switching one folder between sets cost a Kconfig run per
   * dependency round and a `make prepare` each time (4 and 8 s with clang). A new folder starts as a copy of a
   * configured one of the same trust (the sandboxed copy of its trusted twin first), so only the difference is made.
   */
  private enter(asked: string): void {
    this.dir = asked ? `${this.home}+${createHash('sha1').update(asked).digest('hex').slice(0, 10)}` : this.home;
    if (fs.existsSync(path.join(this.dir, '.config'))) return;
    this.seedSandbox();
    if (fs.existsSync(path.join(this.dir, '.config'))) return;
    const prepared = (d: string) => fs.existsSync(path.join(d, '.kseries-prepared'));
    const seeds = [this.home, ...this.variants()].filter((d) => d !== this.dir && fs.existsSync(path.join(d, '.config')));
    const seed = seeds.find(prepared) ?? seeds[0];
    if (seed) copyBuild(seed, this.dir, { objects: false });
    // The folders used longest ago go (each run marks its own, .kseries-asked), so the cache stays bounded.
    const used = (d: string) => fs.statSync(path.join(d, '.kseries-asked'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    const others = this.variants().filter((d) => d !== this.dir).sort((a, b) => used(b) - used(a));
    for (const d of others.slice(VARIANTS_KEPT - 1)) fs.rmSync(d, { recursive: true, force: true });
  }

  /** The folders of asked symbol sets beside the home. */
  private variants(): string[] {
    const parent = path.dirname(this.home);
    const prefix = `${path.basename(this.home)}+`;
    return fs.existsSync(parent) ? fs.readdirSync(parent).filter((n) => n.startsWith(prefix)).map((n) => path.join(parent, n)) : [];
  }

  /**
   * The configuration as built, for a message to name: the base it started from (the config target's own output, or the
   * user's file), the symbols kseries asked for that are now set, how many more those pulled in, and what the base
   * sets that is now off (CONFIG_WERROR, always). The build directory's .config keeps what earlier runs asked for too.
   */
  /** The base configuration as reports name it: "x86_64 defconfig", "arm64 defconfig", or a .config file's name. */
  get baseName(): string {
    const flips = this.opts.side ? [...this.opts.side.off.map((s) => `CONFIG_${s}=n`), ...this.opts.side.on.map((s) => `CONFIG_${s}=y`)] : [];
    return this.plainName + (flips.length ? ` with ${flips.join(' ')}` : '');
  }

  private get plainName(): string {
    return CONFIG_TARGETS[this.opts.config] ? `${this.target.arch} ${configTarget(this.opts.config, this.target)}` : `${path.basename(this.opts.config)}${isHost(this.target) ? '' : ` (${this.target.arch})`}`;
  }

  async configAsBuilt(): Promise<ConfigAsBuilt> {
    const config = setSymbols(await this.baseConfig());
    const base = setSymbols(await this.plainConfig());
    const requested = new Set(this.requested());
    const added = [...config].filter((s) => !base.has(s)).sort();
    return {
      base: this.baseName,
      on: added.filter((s) => requested.has(s)),
      pulledIn: added.filter((s) => !requested.has(s)).length,
      // CONFIG_WERROR is switched off on every configure, whatever the base says of it. A side's flips switch off
      // what depends on them (CONFIG_PM=n: SUSPEND, HIBERNATION, ...): its name says the flips, a number the rest.
      ...this.offAsBuilt([...base].filter((s) => !config.has(s)), config),
    };
  }

  private offAsBuilt(off: string[], config: Set<string>): Pick<ConfigAsBuilt, 'off' | 'switchedOff'> {
    const werror = config.has('WERROR') ? [] : ['WERROR'];
    if (!this.opts.side) return { off: [...new Set([...off, ...werror])].sort() };
    const flipped = off.filter((s) => this.opts.side!.off.includes(s));
    return { off: werror, ...(off.length > flipped.length ? { switchedOff: off.length - flipped.length } : {}) };
  }

  /**
   * The commands that make this build's .config and objects again from a clean tree, as the robot's "reproduce:"
   * lines: the config target, each symbol switched with scripts/config, olddefconfig, the objects with W=1.
   */
  async reproduce(objects: string[]): Promise<string[]> {
    const config = await this.setNow();
    const base = setSymbols(await this.plainConfig());
    // What olddefconfig switches on with the symbols asked for, it switches on again: those alone are named.
    const asked = new Set([...this.requested(), ...(this.opts.side?.on ?? [])]);
    const on = [...config].filter((x) => !base.has(x) && asked.has(x)).sort();
    const off = [...base].filter((x) => !config.has(x)).sort();
    const make = ['make', ...(isHost(this.target) || this.target.llvm ? [] : [`ARCH=${this.target.arch}`]), ...(this.target.prefix ? [`CROSS_COMPILE=${this.target.prefix}`] : []), ...(this.target.llvm ? ['LLVM=1'] : [])].join(' ');
    const targets = this.configTargets() ?? [`cp ${path.basename(this.opts.config)} .config`];
    return [
      ...targets.map((t) => (t.startsWith('cp ') ? t : `${make} ${t}`)),
      `scripts/config${[...off.map((x) => ` -d ${x}`), ...on.map((x) => ` -e ${x}`)].join('')}`,
      `${make} olddefconfig`,
      `${make} W=1 ${objects.join(' ')}`,
    ];
  }

  /** The make targets of the named config for this target (powerpc's defconfig is its own); none for a file. */
  private configTargets(): string[] | undefined {
    return CONFIG_TARGETS[this.opts.config]?.map((t) => configTarget(t, this.target));
  }

  /** The base .config alone, made once in a scratch directory of its own (kept as .config.base). */
  private async plainConfig(): Promise<string> {
    const kept = path.join(this.buildDir, '.config.base');
    if (!fs.existsSync(kept)) {
      const targets = this.configTargets();
      if (!targets) fs.copyFileSync(path.resolve(this.opts.config), kept);
      else {
        // Inside the build directory, the one place a sandboxed make may write; removed once the .config is kept.
        const scratch = path.join(this.buildDir, '.kseries-base');
        fs.rmSync(scratch, { recursive: true, force: true });
        for (const t of targets) await this.mustMake([t], scratch);
        fs.copyFileSync(path.join(scratch, '.config'), kept);
        fs.rmSync(scratch, { recursive: true, force: true });
      }
    }
    return fs.readFileSync(kept, 'utf8');
  }

  /** The symbols the build directory's .config sets now (to y or m). */
  async setNow(): Promise<Set<string>> {
    return setSymbols(await this.baseConfig());
  }

  /**
   * What sets each of `symbols` in `config` although it was switched off: the selects that are set, and for a symbol
   * without a prompt (PM_SLEEP: `def_bool y`, `depends on SUSPEND || HIBERNATE_CALLBACKS`) the set symbols it depends on.
   */
  private async settersOf(symbols: string[], commit: string, config: string): Promise<string[]> {
    const out: string[] = [];
    for (const s of symbols) {
      out.push(...(await this.selectorsOf(s, commit)).filter((x) => isSet(config, x)));
      const found = await this.dependsOf(s, commit);
      if (found && !hasPrompt((await readAtCommit(this.tree.root, commit, found.file)) ?? '', s)) out.push(...[...new Set(found.deps.join(' ').match(/[A-Z][A-Z0-9_]+/g) ?? [])].filter((x) => isSet(config, x)));
    }
    return [...new Set(out)];
  }

  /** Every symbol this run asked configure() to switch on, with the dependencies it found they need. */
  get switchedOn(): string[] {
    return this.requested();
  }

  private requested(): string[] {
    const file = path.join(this.buildDir, '.kseries-requested');
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  }

  /** Every symbol configure() was asked to switch on in this build directory (for a boot kernel, over all runs). */
  private recordRequested(symbols: string[], opts: { replace?: boolean } = {}): void {
    const all = [...new Set([...(opts.replace ? [] : this.requested()), ...symbols])].sort();
    fs.writeFileSync(path.join(this.buildDir, '.kseries-requested'), all.length ? `${all.join('\n')}\n` : '');
  }

  /**
   * Compile several objects with W=1 in one make (in parallel, output grouped per target with -Otarget), and
   * split the compiler's messages by the "CC <object>" line that heads each group.
   */
  async compileMany(objects: string[]): Promise<CompileResult[]> {
    if (objects.length <= 1) return Promise.all(objects.map((o) => this.compile(o)));
    const res = await inFolder(this.dir, () => runMakeMerged(this.compiling, ['-k', '-Otarget', 'W=1', ...this.flags, ...objects.map(makeTarget)]));
    const byObject = new Map<string, string[]>(objects.map((o) => [o, []]));
    // What make prints before the first object's "CC" line (a prerequisite of them all, asm-offsets.s in `prepare`) is
    // every object's.
    const before: string[] = [];
    let current: string[] | undefined;
    for (const line of res.output.split('\n')) {
      const cc = /^\s+(?:CC|AS|DTC)(?: \[M\])?\s+(\S+\.(?:o|dtb))$/.exec(line);
      if (cc) current = byObject.get(cc[1]!);
      else (current ?? before).push(line);
    }
    for (const lines of byObject.values()) lines.unshift(...before);
    const made = (o: string) => res.code === 0 || fs.existsSync(path.join(this.dir, o));
    const results: CompileResult[] = [];
    let alone = false;
    for (const o of objects) {
      const messages = parseCompilerOutput(byObject.get(o)!.join('\n'), this.source);
      const failed = messages.some((m) => m.level === 'error');
      // make went on past a failure (-k) and did not make it, with no error of its own (a rule missing for it alone;
      // ipmi_watchdog.o, now and then, its neighbours made): a make of its own decides, with its messages.
      const unmade = !failed && !made(o);
      alone ||= unmade;
      results.push(unmade ? await this.compile(o) : { object: o, ok: !failed, messages });
    }
    // make failed without a compiler error of ours or an object it left: no object can count as built.
    if (res.code !== 0 && !alone && results.every((r) => r.ok)) return results.map((r) => ({ ...r, ok: false }));
    return results;
  }

  /** What a compile adds to make's command line: debug information where asked for. */
  private get flags(): string[] {
    return this.opts.debugInfo ? ['KCFLAGS=-g'] : [];
  }

  /** Whether this is a build of the other side of some symbols (BuildOptions.side). */
  get isSide(): boolean {
    return this.opts.side !== undefined;
  }

  /** Whether this build compiles with debug information. */
  get withDebugInfo(): boolean {
    return this.opts.debugInfo === true;
  }

  /** Build the bootable image in this directory (buildBootImage). */
  async buildImage(what: string): Promise<{ ok: boolean; log: string[] }> {
    return buildBootImage(this.make, what, this.opts);
  }

  /**
   * Remove these objects' outputs, so the next compile makes them and prints their warnings again: one up to date
   * from an earlier run would print nothing, and its old warnings would read as new after the patch. From ccache,
   * which replays what the compiler printed, that costs little.
   */
  forget(objects: string[]): void {
    for (const o of objects) fs.rmSync(path.join(this.buildDir, o), { force: true });
  }

  /** Compile one object with W=1; the messages of that compile. */
  async compile(object: string): Promise<CompileResult> {
    const res = await inFolder(this.dir, () => runMake(this.compiling, ['W=1', ...this.flags, makeTarget(object)]));
    const messages = parseCompilerOutput(`${res.stdout}\n${res.stderr}`, this.source);
    return { object, ok: res.code === 0, messages };
  }

  /**
   * Objects built before in this build directory whose `.cmd` dependency list names the header (directly or through
   * other headers), kernel objects only, sorted.
   */
  objectsDependingOn(header: string): string[] {
    const needle = `${this.source}/${header}`;
    const found = new Set<string>();
    const walk = (root: string, dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (!['scripts', 'tools', 'include', 'arch/x86/tools'].includes(path.relative(root, full))) walk(root, full);
        } else if (/^\..+\.o\.cmd$/.test(e.name) && fs.readFileSync(full, 'utf8').includes(needle)) {
          found.add(path.relative(root, path.join(dir, e.name.slice(1, -4))));
        }
      }
    };
    // Every folder of this build: each run's objects are in the folder of the symbols it asked for.
    for (const root of new Set([this.home, ...this.variants(), this.dir])) if (fs.existsSync(root)) walk(root, root);
    return [...found].filter((o) => fs.existsSync(path.join(this.source, o.replace(/\.o$/, '.c')))).sort();
  }

  private async mustMake(args: string[], buildDir = this.buildDir): Promise<void> {
    this.step = `make ${args.join(' ')}`;
    const res = await runMake({ ...this.make, buildDir }, args);
    if (res.code !== 0) {
      const last = res.stderr.trim().split('\n').slice(-2).join(' ');
      throw new ToolFailedError(`make ${args.join(' ')} failed in ${buildDir}: ${last}`, 'check that the build packages are installed: kseries doctor');
    }
  }

  /** Where `symbol` is defined at `commit` and what it depends on; asked once per build (configure asks again). */
  private dependsOf(symbol: string, commit: string): Promise<{ file: string; deps: string[] } | undefined> {
    const key = `${commit}\0${symbol}`;
    let found = this.dependencies.get(key);
    if (!found) this.dependencies.set(key, (found = this.findDepends(symbol, commit)));
    return found;
  }

  private readonly dependencies = new Map<string, Promise<{ file: string; deps: string[] } | undefined>>();

  private async findDepends(symbol: string, commit: string): Promise<{ file: string; deps: string[] } | undefined> {
    const hits = await gitRaw(this.tree.root, ['grep', '-l', '-E', `^\\s*(menu)?config ${symbol}\\s*$`, commit, '--', '*Kconfig*']).catch(() => '');
    // Another architecture's definition of the same name (powerpc's EFI, arm's) is not this build's.
    const own = `arch/${srcarchOf(this.target)}/`;
    for (const file of hits.split('\n').filter(Boolean).map((h) => h.slice(commit.length + 1)).filter((f) => !f.startsWith('arch/') || f.startsWith(own))) {
      const deps = kconfigDepends((await readAtCommit(this.tree.root, commit, file)) ?? '', symbol);
      if (deps) return { file, deps: [...deps, ...(await this.inherited(file, commit))] };
    }
    return undefined;
  }

  /** The conditions a Kconfig file inherits from the `if` blocks around the `source` lines that include it, up the chain. */
  private async inherited(file: string, commit: string, depth = 0): Promise<string[]> {
    if (depth > 6 || file === 'Kconfig') return [];
    const hits = await gitRaw(this.tree.root, ['grep', '-l', '-F', `"${file}"`, commit, '--', '*Kconfig*']).catch(() => '');
    for (const hit of hits.split('\n').filter(Boolean)) {
      const parent = hit.slice(commit.length + 1);
      const conditions = sourceConditions((await readAtCommit(this.tree.root, commit, parent)) ?? '', file);
      if (conditions) return [...conditions, ...(await this.inherited(parent, commit, depth + 1))];
    }
    return [];
  }

  /**
   * The symbols that `select` `symbol` at `commit`, those defined nearest its own Kconfig file first (MLX4_EN, beside
   * MLX4_CORE, before an InfiniBand driver).
   */
  private async selectorsOf(symbol: string, commit: string): Promise<string[]> {
    const hits = await gitRaw(this.tree.root, ['grep', '-l', '-E', `^\\s*select\\s+${symbol}(\\s|$)`, commit, '--', '*Kconfig*']).catch(() => '');
    const own = `arch/${srcarchOf(this.target)}/`;
    const home = ((await this.dependsOf(symbol, commit))?.file ?? '').split('/');
    const shared = (file: string) => {
      const parts = file.split('/');
      let n = 0;
      while (n < parts.length - 1 && parts[n] === home[n]) n++;
      return n;
    };
    const files = hits.split('\n').filter(Boolean).map((h) => h.slice(commit.length + 1)).filter((f) => !f.startsWith('arch/') || f.startsWith(own));
    files.sort((a, b) => shared(b) - shared(a));
    const out: string[] = [];
    for (const f of files) out.push(...kconfigSelectors((await readAtCommit(this.tree.root, commit, f)) ?? '', symbol));
    return out;
  }

  /** Why `symbol` stayed off in `config`: the dependency lines it does not meet, or the selects it waits for. */
  private async whyOff(symbol: string, commit: string, config: string): Promise<string> {
    const found = await this.dependsOf(symbol, commit);
    if (!found) return `CONFIG_${symbol} is not defined in any Kconfig of this architecture`;
    const unmet = conjuncts(found.deps).filter((d) => symbolsToMeet([d], (n) => isSet(config, n))?.every((n) => isSet(config, n)) !== true);
    if (unmet.length) return `CONFIG_${symbol} needs ${unmet.join(' && ')} (${found.file})`;
    const selectors = await this.selectorsOf(symbol, commit);
    if (selectors.length) return `CONFIG_${symbol} has no prompt and is set by a select of ${selectors.slice(0, 3).map((x) => `CONFIG_${x}`).join(', ')}${selectors.length > 3 ? ', ...' : ''}, none of which could be enabled (${found.file})`;
    return `CONFIG_${symbol} could not be enabled (${found.file}: set by a choice, or its default)`;
  }
}

/**
 * Build the bootable image of a configured build directory: vmlinux through the compiler path `make` names, then the
 * image around it (bzImage, with the tree's usr/gen_init_cpio for CONFIG_BLK_DEV_INITRD) without ccache, since it
 * .incbins what the build just made (compiler.ts). The time it took goes to the ledger; on failure, the last lines
 * make printed. `what` names it in progress reports; a first build in the directory reports the objects compiled of
 * about how many (Kbuild's lists under the .config), a later one those rebuilt.
 */
export async function buildBootImage(make: MakeOptions, what: string, opts: { env?: NodeJS.ProcessEnv; progress?: OnProgress }): Promise<{ ok: boolean; log: string[] }> {
  const { buildDir, source } = make;
  const first = !fs.existsSync(path.join(buildDir, 'vmlinux'));
  const read = (f: string) => fs.promises.readFile(path.join(source, f), 'utf8').catch(() => undefined);
  const estimate = first ? async () => objectsToBuild(read, setSymbols(fs.readFileSync(path.join(buildDir, '.config'), 'utf8'))) : undefined;
  const res = await withProgress(what, opts.progress, buildSample(buildDir, estimate), () =>
    ledgered(buildDir, opts.env, async () => {
      const kernel = await runMakeMerged(make, ['vmlinux']);
      return kernel.code !== 0 ? kernel : runMakeMerged({ ...make, env: { ...make.env, CCACHE_DISABLE: '1' } }, ['bzImage']);
    }, make.env?.CCACHE_DIR),
  );
  return { ok: res.code === 0, log: res.output.trim().split('\n').slice(-15) };
}

/**
 * The build directory of a config and target: the host's keep their config's name, another architecture's carry it
 * ("defconfig-arm64"), clang's say so. A sandboxed build (someone else's code) never shares its directory with builds
 * kseries later runs unsandboxed; a flavoured build (a boot kernel) follows a shared source folder (sourceAt), so it
 * is shared by every tree too.
 */
export function buildDirOf(tree: KernelTree, opts: Pick<BuildOptions, 'config' | 'flavour' | 'target' | 'sandbox' | 'env'>): string {
  const target = opts.target ?? HOST;
  const configName = [CONFIG_TARGETS[opts.config] ? configTarget(opts.config, target) : `file-${configFileHash(opts.config)}`, opts.flavour, isHost(target) || target.arch === HOST.arch ? '' : target.arch, target.llvm ? 'clang' : ''].filter(Boolean).join('-');
  const owner = opts.flavour ? 'shared' : createHash('sha1').update(tree.gitCommonDir).digest('hex').slice(0, 12);
  return path.join(cacheDir(opts.env), 'build', owner, opts.sandbox ? `${configName}-sandboxed` : configName);
}

/** The make target of an object: its path, but a device tree blob's is below its architecture's dts folder. */
function makeTarget(object: string): string {
  return object.endsWith('.dtb') ? object.replace(/^arch\/[^/]+\/boot\/dts\//, '') : object;
}

/**
 * The make targets that make each named config, in order (a config fragment target merges into the .config).
 * `tinyconfig` is the KUnit kernel's base (boot/kunit.ts), not one a user names.
 */
const CONFIG_TARGETS: Record<string, string[]> = {
  defconfig: ['defconfig'],
  allmodconfig: ['allmodconfig'],
  minimal: ['tinyconfig', 'kvm_guest.config'],
  tinyconfig: ['tinyconfig'],
};

/** A config make target for `target`: its own defconfig where it names one ("ppc64_defconfig"). */
function configTarget(name: string, target: Target): string {
  return name === 'defconfig' ? (target.defconfig ?? name) : name;
}

/** The configs a user names with --config (anything else is a file). */
const NAMED_CONFIGS = ['defconfig', 'allmodconfig', 'minimal'];

/** Refuse a --config that is neither a known target nor a readable file, before any work starts. */
export function assertConfig(config: string): void {
  if (!NAMED_CONFIGS.includes(config)) configFileHash(config);
}

/** A config file's build directory follows its content, so an edited file gets a fresh configuration. */
function configFileHash(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(path.resolve(file), 'utf8');
  } catch {
    throw new UsageError(`--config ${file}: no such file`, `give ${NAMED_CONFIGS.join(', ')} or the path of a .config file`);
  }
  return createHash('sha1').update(text).digest('hex').slice(0, 12);
}

/**
 * Copy a build directory: its configuration and the prepared tree (generated headers, host programs, objtool); the
 * kernel's own objects and archives too for a twin of the same configuration, not for one of other symbols (they are
 * compiled again where needed, mostly from ccache).
 */
export function copyBuild(from: string, to: string, opts: { objects: boolean }): void {
  fs.rmSync(to, { recursive: true, force: true });
  const own = (rel: string) => /^(tools|scripts|arch\/[^/]+\/tools)\//.test(rel);
  const kernelOutput = (rel: string) => !own(rel) && (/\.(o|a|ko)$/.test(rel) || /(^|\/)\.[^/]+\.(o|a|ko)\.cmd$/.test(rel) || /^\.?vmlinux/.test(rel));
  fs.cpSync(from, to, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true, filter: (src) => opts.objects || !kernelOutput(path.relative(from, src)) });
  movedTools(path.resolve(from), path.resolve(to));
}

/**
 * objtool is built by tools/build, whose command files name its objects by absolute path: in a copy every command
 * reads as changed and objtool is compiled again (28 host objects, 7 of the 12 s of a copy's `make prepare` here).
 * The copy's command files name the copy.
 */
function movedTools(from: string, to: string): void {
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, e.name);
      if (e.isDirectory()) walk(file);
      else if (e.isFile() && /^\..*\.cmd$/.test(e.name)) {
        const text = fs.readFileSync(file, 'utf8');
        if (text.includes(`${from}/`)) fs.writeFileSync(file, text.replaceAll(`${from}/`, `${to}/`));
      }
    }
  };
  const tools = path.join(to, 'tools');
  if (fs.existsSync(tools)) walk(tools);
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

function isSet(config: string, symbol: string): boolean {
  return new RegExp(`^CONFIG_${symbol}=[ym]$`, 'm').test(config);
}
