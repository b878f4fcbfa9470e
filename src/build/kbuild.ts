// Reading Kbuild without running it: which CONFIG_ symbols build an object, what a symbol depends on,
// and the compiler's warnings and errors. Pure functions over text.
import path from 'node:path';

export type ReadText = (file: string) => Promise<string | undefined>;

/**
 * One way Kbuild gets to build an object: the CONFIG_ symbols that must all be set (y or m) along it, from the
 * object's own Makefile line up to the top. An object named by several lines (`obj-$(CONFIG_A) += x.o` and
 * `obj-$(CONFIG_B) += x.o`), or in a directory pulled in by several `obj-$(CONFIG_...) += dir/` lines, has several
 * ways: any one of them builds it.
 */
export type BuildWay = string[];

/** Of all the ways to an object, at most this many are kept (in Makefile order), so nested alternatives stay few. */
const MAX_WAYS = 64;

/** What x86-64 gives the make variables that object and directory names use (`head_$(BITS).o`, `arch/$(SRCARCH)/`). */
const MAKE_VARIABLES: Record<string, string> = { BITS: '64', SRCARCH: 'x86', ARCH: 'x86' };

/** Kbuild lists that build what they name in their own directory; any other `foo-y`, `foo-objs` makes composite foo.o. */
const DIRECTORY_LISTS = new Set(['obj', 'lib', 'always', 'extra']);

/** A line of a Kbuild file that names objects or directories: `<variable>-<suffix> += <names>`. */
interface ListLine {
  variable: string;
  /** The line's own ways: the symbols of its suffix, and of the `ifdef`/`ifeq` blocks around it. */
  ways: BuildWay[];
  /** The list itself, as another line may use it whole: `gt-y` of `gt-y += gt/intel_gt.o`. */
  list: string;
  /** What it names, as paths in the tree: `dir/x.o` for objects, `dir/sub/` for directories. */
  names: Set<string>;
  /** The lists it uses whole: `gt-y` of `i915-y += $(gt-y)`. */
  uses: Set<string>;
}

/** Parsed Kbuild files by directory, shared by the buildWays() calls of one tree (a scan asks for thousands of files). */
export type MakefileCache = Map<string, Promise<unknown>>;

/**
 * Every way (see BuildWay) Kbuild builds `file` (a .c or .S path), found by walking the `obj-$(CONFIG_X) += file.o`
 * and composite `foo-y += file.o` lines that name it, in its directory's Makefile or an ancestor's, and up through the
 * `obj-$(CONFIG_Y) += dir/` lines that name each directory. A list used as a whole (`i915-y += $(gt-y)`) is followed
 * too. A directory no Makefile names is pulled in some other way (an arch Makefile's `libs-y`, say): the way ends
 * there. Undefined when no Makefile line names the object.
 */
export async function buildWays(file: string, read: ReadText, makefiles: MakefileCache = new Map()): Promise<BuildWay[] | undefined> {
  const linesOf = (dir: string): Promise<ListLine[]> => {
    let lines = makefiles.get(dir) as Promise<ListLine[]> | undefined;
    if (!lines) {
      const at = dir === '' ? '' : `${dir}/`;
      lines = (async () => parseKbuildLists(dir, (await read(`${at}Kbuild`)) ?? (await read(`${at}Makefile`)) ?? ''))();
      makefiles.set(dir, lines);
    }
    return lines;
  };
  const done = new Map<string, BuildWay[] | undefined>();
  const memo = async (key: string, depth: number, find: () => Promise<BuildWay[] | undefined>) => {
    if (done.has(key)) return done.get(key);
    if (depth > 40) return undefined;
    const found = await find();
    const result = found && distinctWays(found).slice(0, MAX_WAYS);
    done.set(key, result);
    return result;
  };
  // The ways of what a line names: its own ways, each followed by a way to what the line itself feeds.
  const through = async (line: ListLine, dir: string, depth: number, ways: BuildWay[], deadEnds: BuildWay[]) => {
    let above: BuildWay[] | undefined;
    if (DIRECTORY_LISTS.has(line.variable)) {
      // Named in obj-/lib-: the directory of that Makefile must be built too.
      above = dir === '' ? [[]] : ((await waysTo(`${dir}/`, depth + 1)) ?? [[]]);
    } else {
      // A member of composite foo.o, or of a list used whole in another one. A composite nothing builds (a host
      // program's foo-objs) is no way at all, unless there is no other.
      const composite = await waysTo(path.posix.join(dir, `${line.variable}.o`), depth + 1);
      const used = await waysOfList(dir, line.list, depth + 1);
      above = composite || used ? [...(composite ?? []), ...(used ?? [])] : undefined;
      if (!above) {
        deadEnds.push(...line.ways);
        return;
      }
    }
    for (const own of line.ways) for (const rest of above) ways.push([...own, ...rest]);
  };
  const waysOfList = (dir: string, list: string, depth: number) =>
    memo(`${dir}\0${list}`, depth, async () => {
      const ways: BuildWay[] = [];
      const deadEnds: BuildWay[] = [];
      for (const line of await linesOf(dir)) if (line.uses.has(list)) await through(line, dir, depth, ways, deadEnds);
      return ways.length > 0 ? ways : deadEnds.length > 0 ? deadEnds : undefined;
    });
  const waysTo = (target: string, depth: number): Promise<BuildWay[] | undefined> =>
    memo(target, depth, async () => {
      const ways: BuildWay[] = [];
      const deadEnds: BuildWay[] = [];
      const self = target.endsWith('/') ? target.slice(0, -1) : target;
      for (let dir = parentDir(self); dir !== undefined; dir = parentDir(dir)) {
        for (const line of await linesOf(dir)) if (line.names.has(target)) await through(line, dir, depth, ways, deadEnds);
      }
      return ways.length > 0 ? ways : deadEnds.length > 0 ? deadEnds : undefined;
    });
  return waysTo(`${file.replace(/\.[cS]$/, '')}.o`, 0);
}

/** Where Kbuild starts for x86-64: the top Kbuild, and the top and arch Makefiles' `libs-y`. */
const TOP_DIRECTORIES = ['', 'lib', 'arch/x86/lib'];

/**
 * About how many objects a full build under `config` (the symbols a .config sets) compiles: the objects and
 * composite members that the reached Kbuild files list under symbols the config sets, directory by directory from
 * the top. For a progress line, not for deciding anything: lists used whole and unreadable conditions are not
 * followed, and host programs are not counted.
 */
export async function objectsToBuild(read: ReadText, config: ReadonlySet<string>): Promise<number> {
  const built = (ways: BuildWay[]) => ways.some((w) => w.every((s) => config.has(s)));
  const visited = new Set<string>();
  let count = 0;
  const visit = async (dir: string): Promise<void> => {
    if (visited.has(dir)) return;
    visited.add(dir);
    const at = dir === '' ? '' : `${dir}/`;
    const lines = parseKbuildLists(dir, (await read(`${at}Kbuild`)) ?? (await read(`${at}Makefile`)) ?? '');
    const members = (composite: string) => lines.filter((l) => l.variable === composite && !DIRECTORY_LISTS.has(l.variable) && built(l.ways)).flatMap((l) => [...l.names]);
    for (const line of lines.filter((l) => (l.variable === 'obj' || l.variable === 'lib') && built(l.ways))) {
      for (const name of line.names) {
        if (name.endsWith('/')) await visit(name.slice(0, -1));
        else if (path.posix.dirname(name) === (dir || '.')) count += Math.max(1, members(path.posix.basename(name, '.o')).length);
        else count += 1;
      }
    }
  };
  for (const dir of TOP_DIRECTORIES) await visit(dir);
  return count;
}

/**
 * The way to build with: one whose symbols `config` already sets if there is one (so nothing needs switching on),
 * else the one that needs fewest symbols switched on; among equals the shortest, then the first in Makefile order.
 * Without a config, the shortest, then the first.
 */
export function chooseWay(ways: BuildWay[], config?: ReadonlySet<string>): BuildWay {
  const missing = (w: BuildWay) => (config ? w.filter((s) => !config.has(s)).length : 0);
  let best = ways[0] ?? [];
  for (const w of ways.slice(1)) {
    const [a, b] = [missing(w), missing(best)];
    if (a < b || (a === b && w.length < best.length)) best = w;
  }
  return best;
}

/**
 * The CONFIG_ symbols that must all be set for `file` (a .c or .S path) to be built: the chosen way (chooseWay) of
 * its build ways, the object's own line first. With `config` (the symbols a .config sets), an object that config
 * already builds gets a way whose symbols are all set. Undefined when no Makefile line names the object.
 */
export async function configSymbolsFor(file: string, read: ReadText, config?: ReadonlySet<string>): Promise<string[] | undefined> {
  const ways = await buildWays(file, read);
  return ways && chooseWay(ways, config);
}

/** The symbols a .config sets, to y or to m, without their CONFIG_ prefix. */
export function setSymbols(config: string): Set<string> {
  return new Set([...config.matchAll(/^CONFIG_([A-Za-z0-9_]+)=[ym]$/gm)].map((m) => m[1]!));
}

/** The directory a path is in ('' for the top of the tree), or undefined above the top. */
function parentDir(p: string): string | undefined {
  if (p === '') return undefined;
  const d = path.posix.dirname(p);
  return d === '.' ? '' : d;
}

/**
 * The lines of the Kbuild file of `dir` that name objects or directories, with the ways each holds. `ifdef CONFIG_X`
 * and `ifeq ($(CONFIG_X),y)` blocks add X to the lines inside; a condition kseries cannot read as "these symbols are
 * set" adds nothing (it is never a reason to switch a symbol on).
 */
function parseKbuildLists(dir: string, text: string): ListLine[] {
  const out: ListLine[] = [];
  const blocks: { then: string[]; otherwise: string[]; inElse: boolean }[] = [];
  let inDefine = false;
  for (const raw of text.replace(/\\\n/g, ' ').split('\n')) {
    const line = raw.replace(/(^|[^\\])#.*$/, '$1');
    if (inDefine) {
      inDefine = !/^\s*endef\b/.test(line);
      continue;
    }
    if (/^\s*define\b/.test(line)) {
      inDefine = true;
      continue;
    }
    const cond = /^\s*(ifdef|ifndef|ifeq|ifneq)\b(.*)$/.exec(line);
    if (cond) {
      blocks.push({ ...conditionSymbols(cond[1]!, cond[2]!.trim()), inElse: false });
      continue;
    }
    const other = /^\s*else\b\s*(?:(ifdef|ifndef|ifeq|ifneq)\b(.*))?$/.exec(line);
    if (other && blocks.length > 0) {
      const b = blocks[blocks.length - 1]!;
      b.inElse = true;
      if (other[1]) b.otherwise = [...b.otherwise, ...conditionSymbols(other[1], other[2]!.trim()).then];
      continue;
    }
    if (/^\s*endif\b/.test(line)) {
      blocks.pop();
      continue;
    }
    const m = /^\s*([A-Za-z0-9_.-]+?)-(y|m|objs|(?:\$\((?:[^()]|\([^()]*\))*\))+)\s*(?::=|\+=|\?=|=)\s*(.*)$/.exec(line);
    if (!m) continue;
    const names = new Set<string>();
    const uses = new Set<string>();
    for (const word of m[3]!.split(/\s+/)) {
      const list = /^\$\(([A-Za-z0-9_.-]+-(?:y|m|objs))\)$/.exec(word)?.[1];
      if (list) uses.add(list);
      const name = expandVariables(word);
      if (name === undefined || !/(\.o|\/)$/.test(name)) continue;
      const full = path.posix.normalize(path.posix.join(dir, name));
      if (!full.startsWith('../')) names.add(name.endsWith('/') && !full.endsWith('/') ? `${full}/` : full);
    }
    if (names.size === 0 && uses.size === 0) continue;
    const around = blocks.flatMap((b) => (b.inElse ? b.otherwise : b.then));
    out.push({ variable: m[1]!, list: `${m[1]!}-${m[2]!}`, ways: suffixWays(m[2]!).map((w) => [...w, ...around]), names, uses });
  }
  return out;
}

/** A word of a list with the variables of MAKE_VARIABLES put in; undefined when another variable is left. */
function expandVariables(word: string): string | undefined {
  const expanded = word.replace(/\$\(([A-Za-z0-9_]+)\)/g, (all, name: string) => MAKE_VARIABLES[name] ?? all);
  return expanded === '' || expanded.includes('$') ? undefined : expanded;
}

/**
 * The ways a list's suffix holds: `y`, `m`, `objs` none; `$(CONFIG_X)`, `$(CONFIG_X:m=y)` or `$(subst m,y,$(CONFIG_X))`
 * X; `$(subst y,$(CONFIG_A),$(CONFIG_B))` both; `$(CONFIG_A)$(CONFIG_B)` (one or the other, which Kconfig makes
 * exclusive) two ways of one symbol each; anything else none, as kseries cannot read it.
 */
function suffixWays(suffix: string): BuildWay[] {
  const symbols = [...suffix.matchAll(/CONFIG_([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  if (symbols.length > 1 && /^(\$\(CONFIG_[A-Za-z0-9_]+\))+$/.test(suffix)) return symbols.map((s) => [s]);
  return [symbols];
}

/**
 * The symbols a make conditional asks to be set in its `then` branch and in its `else` branch, as far as they are plain:
 * `ifdef X`, `ifeq ($(CONFIG_X),y)`, `ifeq ($(CONFIG_X)$(CONFIG_Y),yy)`, `ifneq ($(CONFIG_X),)` and their negations.
 */
function conditionSymbols(kind: string, args: string): { then: string[]; otherwise: string[] } {
  const none = { then: [], otherwise: [] };
  if (kind === 'ifdef' || kind === 'ifndef') {
    const s = /^CONFIG_([A-Za-z0-9_]+)$/.exec(args)?.[1];
    if (!s) return none;
    return kind === 'ifdef' ? { then: [s], otherwise: [] } : { then: [], otherwise: [s] };
  }
  const pair = /^\(\s*([^,]*?)\s*,\s*([^,]*?)\s*\)$/.exec(args) ?? /^["']([^"']*)["']\s+["']([^"']*)["']$/.exec(args);
  if (!pair) return none;
  const refs = (side: string) => (/^(\$\(CONFIG_[A-Za-z0-9_]+\))+$/.test(side) ? [...side.matchAll(/CONFIG_([A-Za-z0-9_]+)/g)].map((m) => m[1]!) : undefined);
  const [a, b] = [pair[1]!, pair[2]!];
  const symbols = refs(a) ?? refs(b);
  const value = refs(a) ? b : a;
  if (!symbols) return none;
  // "The symbols are set": each one y or m, written out (y, yy, m); "one is set", for several, is not plain.
  const allSet = value.length === symbols.length && /^[ym]+$/.test(value);
  const oneUnset = value === '' && symbols.length === 1;
  if (!allSet && !oneUnset) return none;
  const set = allSet === (kind === 'ifeq');
  return set ? { then: symbols, otherwise: [] } : { then: [], otherwise: symbols };
}

function distinctWays(ways: BuildWay[]): BuildWay[] {
  const seen = new Map<string, BuildWay>();
  for (const w of ways.map(unique)) if (!seen.has(w.join(' '))) seen.set(w.join(' '), w);
  return [...seen.values()];
}

/**
 * What `config SYMBOL` in a Kconfig file's text depends on: the conditions of the `if` blocks around it and its own
 * `depends on` lines. Undefined when the file does not define the symbol.
 */
export function kconfigDepends(kconfig: string, symbol: string): string[] | undefined {
  // A line ending in a backslash goes on on the next ("depends on A || \\n B").
  const lines = kconfig.replace(/\s*\\\n\s*/g, ' ').split('\n');
  const start = lines.findIndex((l) => new RegExp(`^\\s*(menu)?config\\s+${symbol}\\s*$`).test(l));
  if (start < 0) return undefined;
  // `if` blocks stand at the start of a line; an indented "if ..." is help text.
  const enclosing: string[] = [];
  for (const line of lines.slice(0, start)) {
    const open = /^if\s+(.*?)\s*$/.exec(line);
    if (open) enclosing.push(open[1]!);
    else if (/^endif\b/.test(line)) enclosing.pop();
  }
  const deps: string[] = [...enclosing];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*(menu)?config\s|^\s*(endmenu|endif|menu|if|choice|endchoice|source|comment)\b/.test(line)) break;
    const d = /^\s*depends on\s+(.*?)\s*$/.exec(line);
    if (d) deps.push(d[1]!);
  }
  return deps;
}

/**
 * Whether `config SYMBOL` in a Kconfig file's text has a prompt (`bool "text"`, `prompt "text"`): one without
 * (`def_bool y`) is set by its default or a select only, never by a user's .config line.
 */
export function hasPrompt(kconfig: string, symbol: string): boolean {
  const lines = kconfig.replace(/\s*\\\n\s*/g, ' ').split('\n');
  const start = lines.findIndex((l) => new RegExp(`^\\s*(menu)?config\\s+${symbol}\\s*$`).test(l));
  if (start < 0) return false;
  for (const line of lines.slice(start + 1)) {
    if (/^\s*(menu)?config\s|^\s*(endmenu|endif|menu|if|choice|endchoice|source|comment)\b/.test(line)) break;
    if (/^\s*(bool|tristate|string|hex|int|prompt)\s+"/.test(line)) return true;
  }
  return false;
}

/**
 * The conditions of the `if` blocks (and `menu`s with a `depends on`) open at a Kconfig file's `source` line of
 * `target` ("drivers/infiniband/hw/qedr/Kconfig" sits in `if INFINIBAND`): what every entry of the sourced file
 * inherits. Undefined when the file does not source it.
 */
export function sourceConditions(kconfig: string, target: string): string[] | undefined {
  const open: { kind: 'if' | 'menu'; deps: string[] }[] = [];
  let menu: string[] | undefined;
  for (const line of kconfig.replace(/\s*\\\n\s*/g, ' ').split('\n')) {
    const t = line.replace(/#.*$/, '').trim();
    const ifOpen = /^if\s+(.*)$/.exec(line.replace(/#.*$/, '').trimEnd());
    if (ifOpen) open.push({ kind: 'if', deps: [ifOpen[1]!.trim()] });
    else if (/^(menu|choice)\b/.test(t)) open.push({ kind: 'menu', deps: (menu = []) });
    else if (/^(endif|endmenu|endchoice)\b/.test(t)) open.pop();
    else if (menu && /^depends on\s/.test(t)) menu.push(t.slice('depends on'.length).trim());
    else if (/^(config|menuconfig|comment)\b/.test(t)) menu = undefined;
    else if (/^(o|r)?source\s/.test(t) && t.includes(`"${target}"`)) return open.flatMap((b) => b.deps);
  }
  return undefined;
}

/**
 * The symbols to switch on to meet a dependency list: each line's conjunction of symbols (`I2C=y` counts as I2C).
 * Where a line or a part of it offers alternatives, one already met (`isOn`: the symbols the .config sets), else the
 * one with COMPILE_TEST (the kernel's own way to build a driver for another machine: "ARCH_STM32 || COMPILE_TEST"),
 * else the first that names no platform ("NET_DSA_REALTEK_SMI || NET_DSA_REALTEK_MDIO"). A negation is met when its
 * symbol is off. Undefined when a line cannot be met so (a negation of a symbol that is on, or of one whose state is
 * not known; only platforms to choose from).
 */
export function symbolsToMeet(deps: string[], isOn?: (symbol: string) => boolean): string[] | undefined {
  const out: string[] = [];
  for (const d of deps) {
    const met = meet(d, isOn);
    if (!met) return undefined;
    out.push(...met);
  }
  return out;
}

/** Dependency lines cut at their top-level `&&`: "SPARC && PCI" is two conditions, each met or not on its own. */
export function conjuncts(deps: string[]): string[] {
  return deps.flatMap((d) => splitTop(unwrap(d.trim()), '&&').map((c) => c.trim()));
}

/** A platform's symbol, which no other architecture's build can switch on. */
const PLATFORM = /^(ARCH|MACH|PLAT|SOC|CPU)_/;

function meet(expr: string, isOn: ((symbol: string) => boolean) | undefined): string[] | undefined {
  const e = unwrap(expr.trim());
  const alternatives = splitTop(e, '||');
  if (alternatives.length > 1) {
    const options = alternatives.map((a) => ({ a, needs: meet(a, isOn) })).filter((x): x is { a: string; needs: string[] } => x.needs !== undefined);
    const chosen =
      options.find((x) => isOn && x.needs.every(isOn)) ??
      options.find((x) => /\bCOMPILE_TEST\b/.test(x.a)) ??
      options.find((x) => !x.needs.some((s) => PLATFORM.test(s)));
    return chosen?.needs;
  }
  const parts = splitTop(e, '&&');
  if (parts.length > 1) {
    const each = parts.map((p) => meet(p, isOn));
    return each.every((p) => p !== undefined) ? (each.flat() as string[]) : undefined;
  }
  const negated = /^!\s*([A-Z0-9_]+)$/.exec(e)?.[1];
  if (negated) return isOn && !isOn(negated) ? [] : undefined;
  const symbol = /^([A-Z0-9_]+)(?:\s*=\s*[ym])?$/.exec(e)?.[1];
  return symbol ? [symbol] : undefined;
}

/**
 * The symbols whose entries `select` `symbol` in a Kconfig file's text: a symbol without a prompt (MLX4_CORE, QED_RDMA)
 * is set only by one of them.
 */
export function kconfigSelectors(kconfig: string, symbol: string): string[] {
  const out: string[] = [];
  let owner: string | undefined;
  for (const line of kconfig.replace(/\s*\\\n\s*/g, ' ').split('\n')) {
    const entry = /^\s*(?:menu)?config\s+([A-Za-z0-9_]+)\s*$/.exec(line);
    if (entry) owner = entry[1];
    else if (/^\s*(endmenu|endif|menu|if|choice|endchoice|source|comment)\b/.test(line)) owner = undefined;
    else if (owner && new RegExp(`^\\s*select\\s+${symbol}(\\s|$)`).test(line)) out.push(owner);
  }
  return [...new Set(out)];
}

/** An expression without the parentheses around all of it. */
function unwrap(e: string): string {
  while (e.startsWith('(') && e.endsWith(')') && balanced(e.slice(1, -1))) e = e.slice(1, -1).trim();
  return e;
}

function balanced(e: string): boolean {
  let depth = 0;
  for (const c of e) {
    depth += c === '(' ? 1 : c === ')' ? -1 : 0;
    if (depth < 0) return false;
  }
  return depth === 0;
}

/** `e` split at `op` outside parentheses. */
function splitTop(e: string, op: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < e.length; i++) {
    if (e[i] === '(') depth++;
    else if (e[i] === ')') depth--;
    else if (depth === 0 && e.startsWith(op, i)) {
      out.push(e.slice(start, i).trim());
      start = i + op.length;
      i += op.length - 1;
    }
  }
  out.push(e.slice(start).trim());
  return out;
}

export interface CompilerMessage {
  level: 'warning' | 'error';
  file: string;
  line: number;
  column: number;
  message: string;
  /** The -W option named in brackets, when there is one. */
  flag: string | undefined;
  /** The line as the compiler printed it, with the source path made relative to the tree. */
  text: string;
}

/** gcc's `file:line:col: warning|error: message [-Wflag]` lines, dtc's and objtool's; `sourceRoot` is stripped from paths. */
export function parseCompilerOutput(output: string, sourceRoot: string): CompilerMessage[] {
  const prefix = sourceRoot.endsWith('/') ? sourceRoot : `${sourceRoot}/`;
  const out: CompilerMessage[] = [];
  /** The last message, while it is a header's and notes may follow it to the .c line that expands its macro. */
  let inHeader: CompilerMessage | undefined;
  for (const raw of output.split('\n')) {
    const line = raw.split(prefix).join('');
    // kernel-doc, which W=1 runs on each object's source, prints no column: "phylink.c:1586: warning: Excess ...".
    const m = /^([^\s:][^:]*):(\d+):(?:(\d+):)? (warning|error): (.*?)(?: \[(-W[^\]]+)\])?$/.exec(line);
    // dtc: "imx8mq.dtsi:1284.13-1292.8: Warning (graph_child_address): /soc@0/...: message" (its check as the flag).
    const d = m ? undefined : /^([^\s:][^:]*\.dtsi?):(\d+)\.(\d+)(?:-[\d.]+)?: (Warning|ERROR) \(([\w-]+)\): (.*)$/.exec(line);
    if (d) out.push({ level: d[4] === 'ERROR' ? 'error' : 'warning', file: d[1]!, line: Number(d[2]), column: Number(d[3]), message: d[6]!, flag: d[5], text: line });
    // objtool, run on each x86 object: "lib/x.o: warning: objtool: f+0xd: unreachable instruction". The offset moves
    // with any change to the function, so the message that identifies the warning leaves it out.
    const o = m || d ? undefined : /^([^\s:]+\.o): (warning|error): objtool: (.*)$/.exec(line);
    if (o) out.push({ level: o[2] as 'warning' | 'error', file: o[1]!, line: 0, column: 0, message: o[3]!.replace(/\+0x[0-9a-f]+\b/g, ''), flag: 'objtool', text: line });
    if (m) out.push({ level: m[4] as 'warning' | 'error', file: m[1]!, line: Number(m[2]), column: m[3] ? Number(m[3]) : 0, message: m[5]!, flag: m[6], text: line });
    // A macro of the command line's (KBUILD_MODNAME in pr_fmt(), with CONFIG_DYNAMIC_DEBUG): no line of its own.
    const c = m || d || o ? undefined : /^<command-line>: (warning|error): (.*?)(?: \[(-W[^\]]+)\])?$/.exec(line);
    if (c) out.push({ level: c[1] as 'warning' | 'error', file: '<command-line>', line: 0, column: 0, message: c[2]!, flag: c[3], text: line });
    if (m || d || o || c) inHeader = c || (m && !m[1]!.endsWith('.c')) ? out[out.length - 1] : undefined;
    // A header's warning inside a macro that a .c file's line expands (pr_debug()'s format, checked in
    // kern_levels.h's KERN_SOH): the finding is that line's, where gcc's last "in expansion of macro" note points.
    const note = inHeader && /^([^\s:][^:]*\.c):(\d+):(\d+): note: in expansion of macro /.exec(line);
    if (note) Object.assign(inHeader!, { file: note[1]!, line: Number(note[2]), column: Number(note[3]), text: `${note[1]}:${note[2]}:${note[3]}: ${inHeader!.level}: ${inHeader!.message}${inHeader!.flag ? ` [${inHeader!.flag}]` : ''}` });
  }
  return out;
}

/** A warning's identity across a patch: file, message and flag, not the line (a patch moves old warnings). */
export function warningKey(w: CompilerMessage): string {
  return `${w.file}\0${w.message.replace(/‘|’/g, "'")}\0${w.flag ?? ''}`;
}

/** Warnings of `after` that `before` did not have (counting duplicates). */
export function newWarnings(before: CompilerMessage[], after: CompilerMessage[]): CompilerMessage[] {
  const seen = new Map<string, number>();
  for (const w of before) if (w.level === 'warning') seen.set(warningKey(w), (seen.get(warningKey(w)) ?? 0) + 1);
  const fresh: CompilerMessage[] = [];
  for (const w of after) {
    if (w.level !== 'warning') continue;
    const n = seen.get(warningKey(w)) ?? 0;
    if (n > 0) seen.set(warningKey(w), n - 1);
    else fresh.push(w);
  }
  return fresh;
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
