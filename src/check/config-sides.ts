// The configuration symbols whose value changes what a patch's lines mean, as the kernel test robot's random
// configurations find them by chance: the `#if` blocks around the changed lines, every block of a file whose
// `#include` lines change, and the conditions around the declarations of what the lines use in the headers the file
// includes (a member only `#ifdef CONFIG_PM` declares, a macro that drops its argument when CONFIG_OF is off). Read
// from the text, before anything is built, so the builds of the other side can be planned with the rest.
import fs from 'node:fs';
import path from 'node:path';
import { Conditionals, configSymbolsIn, declarationLines, identifiersIn, type Guard } from '../c-source/guards.js';
import { maskC } from '../c-source/text.js';
import { gitRaw, readAtCommit } from '../tools/git.js';

/** A symbol whose other value changes what a patch's lines mean, with the line that shows why. */
export interface SideSymbol {
  symbol: string;
  /** "drivers/bus/x.c:120 uses usage_count, declared only under #ifdef CONFIG_PM (include/linux/pm.h:656)" */
  why: string;
}

/** Symbols that choose the machine's word size: their other side is a 32-bit build, not a flipped symbol. */
const WORD_SIZE = new Set(['64BIT', 'X86_64', 'X86_32', 'PHYS_ADDR_T_64BIT', 'ARCH_DMA_ADDR_T_64BIT', 'GENERIC_ATOMIC64']);

/** Symbols of the compiler and the build itself: no configuration a bot draws sets them otherwise. */
const FIXED = /^(CC_|GCC_|CLANG_|AS_|LD_|RUSTC_|TOOLS_|ARCH_|HAVE_|CPU_|MODULES$|KASAN|KCSAN|KMSAN|UBSAN|GCOV|LTO|CFI)/;

/**
 * Symbols that choose how the whole kernel is made (the preemption model, SMP, BUG(), lock debugging, tracing's
 * instrumentation): a name a header defines one way per side of them (spin_lock(), BUG_ON()) means the same to the
 * patch's lines either way. Flipped only where the patch's own lines sit under them, never for what they use.
 */
const WHOLE_KERNEL = /^(PREEMPT|SMP$|BUG$|GENERIC_BUG|IA32_EMULATION|X86_X32|RV$|RV_|TRACE_BRANCH_PROFILING|PROFILE_ALL_BRANCHES|DEBUG_(LOCK_ALLOC|SPINLOCK|MUTEXES|RT_MUTEXES|WW_MUTEX_SLOWPATH|RWSEMS|ATOMIC_SLEEP|OBJECTS|PREEMPT|BUGVERBOSE)$|LOCKDEP|PROVE_|LOCK_STAT|SYSFS$|MODULE_UNLOAD$|DYNAMIC_DEBUG_CORE$|MMU$|NUMA$|HIGHMEM|PARAVIRT|HOTPLUG_CPU$|TRACEPOINTS$|TRACING$|KALLSYMS$|PRINTK$)/;

/**
 * A printk conversion of a long or a size_t: `%lu` of a size_t warns only on a 32-bit machine, where size_t is an
 * unsigned int.
 */
const LONG_PRINTED = /"[^"]*%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[lz][diouxX]/;

/**
 * A division: on a 64-bit operand a 32-bit machine calls libgcc's `__udivdi3` for it, a helper the kernel does not
 * link (clang always, gcc at -Os; gcc -O2 turns a division by a constant into a multiplication).
 */
const DIVIDES = /[/%]|\bDIV_ROUND_(?:UP|CLOSEST|DOWN)\s*\(/;

/** How deep a macro's body is followed to what it expands to (SIMPLE_DEV_PM_OPS → SET_SYSTEM_SLEEP_PM_OPS). */
const MACRO_DEPTH = 2;

/** How many headers of a file's #include closure are read at most. */
const HEADERS_READ = 1500;

export interface Sides {
  /** The symbols to flip, each with its first reason, in the order found. */
  symbols: SideSymbol[];
  /** Why a 32-bit build is the other side too (a line under `#ifdef CONFIG_64BIT`, a size_t printed), if it is. */
  wordSize?: string;
  /** The first changed line that divides: a 32-bit build at -Os (CONFIG_CC_OPTIMIZE_FOR_SIZE) shows its libgcc call. */
  divides?: string;
  /**
   * The functions the changed lines call (themselves or through a macro: module_wmi_driver's __wmi_driver_register)
   * that a header declares, never under a guard (no stub for the other side), with the changed line that calls them:
   * what link-deps.ts asks Kconfig about.
   */
  calls?: { name: string; line: number; guards: string[] }[];
}

/** Reads the tree's headers once per range (the worktree at the range's tip). */
export class HeaderReader {
  private readonly texts = new Map<string, { masked: string; conditionals: Conditionals } | null>();
  constructor(
    readonly source: string,
    readonly srcarch: string,
  ) {}

  read(file: string): { masked: string; conditionals: Conditionals } | undefined {
    let t = this.texts.get(file);
    if (t === undefined) {
      const full = path.join(this.source, file);
      const text = fs.existsSync(full) && fs.statSync(full).isFile() ? fs.readFileSync(full, 'utf8') : undefined;
      t = text === undefined ? null : { masked: maskC(text), conditionals: new Conditionals(text) };
      this.texts.set(file, t);
    }
    return t ?? undefined;
  }

  /** Where `#include <name>` or `#include "name"` (from `from`) finds its file, if in the tree. */
  resolve(name: string, quoted: boolean, from: string): string | undefined {
    const places = [
      ...(quoted ? [path.posix.join(path.posix.dirname(from), name)] : []),
      `include/${name}`,
      `arch/${this.srcarch}/include/${name}`,
      `include/uapi/${name}`,
      `arch/${this.srcarch}/include/uapi/${name}`,
      // asm-generic stands in for the arch's generated wrappers.
      ...(name.startsWith('asm/') ? [`include/asm-generic/${name.slice(4)}`] : []),
    ];
    return places.find((p) => this.read(p) !== undefined);
  }

  /**
   * The headers a file includes, directly or through others, in the order found; for each reached only through an
   * `#include` line under a CONFIG_ guard (bitfield.h through string.h's `#ifdef CONFIG_FORTIFY_SOURCE`), that guard.
   */
  closure(file: string, text: string): Map<string, Guard | undefined> {
    const reached = new Map<string, Guard | undefined>();
    const texts = new Map<string, string>([[file, text]]);
    const textOf = (f: string) => texts.get(f) ?? texts.set(f, fs.readFileSync(path.join(this.source, f), 'utf8')).get(f)!;
    // First what unguarded #include lines reach, then the rest with the guard of the line that brought them in.
    for (const guarded of [false, true]) {
      const queue: [string, Guard | undefined][] = [[file, undefined], ...(guarded ? [...reached] : [])];
      while (queue.length && reached.size < HEADERS_READ) {
        const [from, via] = queue.shift()!;
        const body = textOf(from);
        const conditionals = from === file ? new Conditionals(body) : this.read(from)!.conditionals;
        for (const m of body.matchAll(/^\s*#\s*include\s*([<"])([^>"]+)[>"]/gm)) {
          const found = this.resolve(m[2]!, m[1] === '"', from);
          if (!found || reached.has(found)) continue;
          const line = body.slice(0, m.index).split('\n').length;
          const guard = conditionals.at(line).filter((g) => g.symbols.length).pop();
          if (guard && !guarded) continue;
          const through = via ?? (guard && { ...guard, opened: -line, directive: `#include <${m[2]}> under ${guard.directive} (${from}:${line})` });
          reached.set(found, through);
          queue.push([found, through]);
        }
      }
    }
    return reached;
  }
}

/**
 * The lines of a file a commit adds (1-based, in the new file), and the line after each place it only removes; since
 * `from` when given (a file the series wrote earlier that enters the build at `sha`).
 */
export async function changedLines(root: string, sha: string, file: string, from = `${sha}^`): Promise<{ lines: number[]; includes: boolean }> {
  const diff = await gitRaw(root, ['diff', '-U0', '--no-color', from, sha, '--', file]).catch(() => '');
  const lines: number[] = [];
  let includes = false;
  for (const m of diff.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)) {
    const start = Number(m[1]);
    const count = m[2] === undefined ? 1 : Number(m[2]);
    if (count === 0) lines.push(start + 1);
    for (let i = 0; i < count; i++) lines.push(start + i);
  }
  if (/^[+-]\s*#\s*include\b/m.test(diff)) includes = true;
  return { lines, includes };
}

/**
 * The sides of one file a commit changes (a .c file, or a header it changes): the guards of the changed lines, every
 * guard of the file when its includes change, and the guards around what the changed lines use, in the file itself and
 * in the headers it includes.
 */
export async function sidesOf(root: string, sha: string, file: string, headers: HeaderReader, from?: string): Promise<Sides> {
  const text = await readAtCommit(root, sha, file);
  if (text === undefined) return { symbols: [] };
  const { lines, includes } = await changedLines(root, sha, file, from);
  const found = new Map<string, SideSymbol>();
  let wordSize: string | undefined;
  const add = (symbols: string[], why: string, own = false) => {
    for (const s of symbols) {
      if (WORD_SIZE.has(s)) wordSize ??= why;
      else if (!FIXED.test(s) && (own || !WHOLE_KERNEL.test(s)) && !found.has(s)) found.set(s, { symbol: s, why });
    }
  };
  const conditionals = new Conditionals(text);
  const masked = maskC(text).split('\n');
  const raw = text.split('\n');
  // A changed line's code: an #include line names a file, not what the line uses (`<linux/i2c.h>` neither divides nor
  // uses i2c).
  const code = (l: number) => (/^\s*#\s*include\b/.test(masked[l - 1] ?? '') ? '' : (masked[l - 1] ?? ''));
  for (const l of lines) for (const g of conditionals.at(l)) add(g.symbols, `${file}:${l} is under ${g.directive} (line ${g.line})`, true);
  const printing = file.endsWith('.c') ? lines.find((l) => LONG_PRINTED.test(raw[l - 1] ?? '')) : undefined;
  if (printing) wordSize ??= `${file}:${printing} prints a long or a size_t`;
  const dividing = file.endsWith('.c') ? lines.find((l) => DIVIDES.test(code(l))) : undefined;
  if (includes) {
    for (let l = 1; l <= masked.length; l++) for (const g of conditionals.at(l)) add(g.symbols, `${file} changes its #include lines; ${file}:${g.line} ${g.directive}`, true);
  }
  // What the changed lines use: declared only under a guard, or a macro that drops its argument on one side.
  const used = new Map<string, number>();
  for (const l of lines) for (const id of identifiersIn(code(l))) if (!used.has(id)) used.set(id, l);
  const sources = [{ file, masked: masked.join('\n'), conditionals, via: undefined as Guard | undefined }, ...[...headers.closure(file, text)].flatMap(([h, via]) => {
    const r = headers.read(h);
    return r ? [{ file: h, ...r, via }] : [];
  })];
  let names = [...used.keys()];
  const followed = new Set(names);
  const calls = new Map<string, { line: number; plain: boolean }>();
  /** The macro a name was reached through. */
  const through = new Map<string, string>();
  const own = new Set<string>();
  /** Names reached only through a macro defined under a guard (likely() under TRACE_BRANCH_PROFILING calls ftrace_likely_update()). */
  const guardedVia = new Set<string>();
  /** Names reached through a static inline function's body: the header's calls, not the file's. */
  const inlineVia = new Set<string>();
  for (let depth = 0; depth <= MACRO_DEPTH && names.length; depth++) {
    const next: string[] = [];
    const decls = new Map<string, Declaration[]>();
    for (const s of sources) {
      const lineTexts = s.masked.split('\n');
      for (const [name, at] of declarationLines(s.masked, names)) {
        for (const l of at) {
          const list = decls.get(name) ?? decls.set(name, []).get(name)!;
          list.push({ file: s.file, line: l, guards: [...(s.via ? [s.via] : []), ...s.conditionals.at(l).filter((g) => g.symbols.length)], body: macroBody(lineTexts, l), ...inlineFunction(lineTexts, l, name) });
        }
      }
    }
    for (const [name, list] of decls) {
      if (list.some((d) => d.file === file)) own.add(name);
      const fn = list.filter((d) => d.file !== file && !d.body);
      if (fn.length && used.has(name)) calls.set(name, { line: used.get(name)!, plain: fn.every((d) => d.guards.length === 0) });
      const where = used.get(name);
      const line = `${file}:${where} uses ${name}${through.has(name) ? ` through ${through.get(name)}` : ''}`;
      const side = sideOfDeclarations(list, depth === 0);
      if (side) add(side.symbols, `${line}, ${side.why}`);
      // A macro's body, a static inline function's calls: what they reach may be what a side changes.
      for (const d of list) {
        for (const id of [...expandsTo(d.body), ...(d.callees ?? [])]) {
          if (followed.has(id)) continue;
          followed.add(id);
          next.push(id);
          // What a macro expands to is called from the line that uses the macro.
          used.set(id, where!);
          through.set(id, name);
          if (d.guards.some((g) => g.symbols.length) || guardedVia.has(name)) guardedVia.add(id);
          if (d.callees || inlineVia.has(name)) inlineVia.add(id);
        }
      }
    }
    names = next;
  }
  // The symbols a call's line is compiled under (its #if blocks, an IS_ENABLED() on the line): with them off, no call.
  const guardsAt = (l: number) => [...new Set([...conditionals.at(l).flatMap((g) => g.symbols), ...configSymbolsIn(masked[l - 1] ?? '')])];
  // A call that exists only on one side of a macro's guard is that guard's to link, not the file's.
  const called = [...calls].filter(([n, c]) => c.plain && !own.has(n) && !guardedVia.has(n) && !inlineVia.has(n)).map(([name, c]) => ({ name, line: c.line, guards: guardsAt(c.line) }));
  return { symbols: [...found.values()], wordSize, ...(dividing ? { divides: `${file}:${dividing} divides` } : {}), ...(called.length ? { calls: called } : {}) };
}

/**
 * Whether a name's declarations make a side: all of them under guards, and either on one side only of each block
 * ("declared only under #ifdef CONFIG_PM"), or a macro one of whose definitions drops an argument (of_match_ptr is
 * NULL without CONFIG_OF: the table it names goes unused), or (`direct`: the changed lines use it, not a macro
 * they use) defined differently on each side.
 */
function sideOfDeclarations(list: Declaration[], direct: boolean): { symbols: string[]; why: string } | undefined {
  if (!list.length || list.some((d) => d.guards.length === 0)) return undefined;
  const inner = list.map((d) => d.guards[d.guards.length - 1]!);
  const first = list[0]!;
  const at = `${first.file}:${first.line}`;
  const symbols = [...new Set(inner.flatMap((g) => g.symbols))];
  // A block with the name in two of its branches (`#ifdef CONFIG_OF` ... `#else` ...) declares it either way.
  const branches = new Map<string, Set<number>>();
  list.forEach((d, i) => (branches.get(`${d.file}:${inner[i]!.opened}`) ?? branches.set(`${d.file}:${inner[i]!.opened}`, new Set()).get(`${d.file}:${inner[i]!.opened}`)!).add(inner[i]!.line));
  const oneSide = [...branches.values()].every((b) => b.size === 1);
  if (oneSide) return { symbols, why: `declared only under ${inner[0]!.directive} (${at})` };
  const dropping = list.find((d) => dropsArgument(d.body));
  if (dropping) return { symbols, why: `a macro that drops its argument under ${dropping.guards[dropping.guards.length - 1]!.directive} (${dropping.file}:${dropping.line})` };
  // A name the changed lines use themselves, defined one way on each side (dev_dbg() with and without
  // CONFIG_DYNAMIC_DEBUG: clang's flow analysis sees a use only in one of them).
  if (direct) return { symbols, why: `defined one way under ${inner[0]!.directive} and another way otherwise (${at})` };
  // Reached through a macro or an inline function: a stub on one side (of_property_read_u32() is -ENOSYS without
  // CONFIG_OF) makes the code after the call dead there, and what it hides compiles only on the other side.
  const stub = list.find((d) => d.stub);
  if (stub) return { symbols, why: `a stub under ${stub.guards[stub.guards.length - 1]!.directive} (${stub.file}:${stub.line})` };
  return undefined;
}

/** A name's declaration: where, under which guards, a macro's body, a static inline function's calls and whether it is a stub. */
interface Declaration {
  file: string;
  line: number;
  guards: Guard[];
  body: string;
  callees?: string[];
  stub?: boolean;
}

/** How far a static inline function's body is read. */
const INLINE_LINES = 30;

/**
 * The static inline function `name` defined at a 1-based line (`static inline int name(...)`, the type on the line
 * before or on it): the functions its body calls, and whether it is a stub (`{ return -ENOSYS; }`, `{ return NULL; }`, `{ }`).
 */
function inlineFunction(lines: string[], line: number, name: string): Pick<Declaration, 'callees' | 'stub'> {
  // The function this line defines is `name` itself (not a parameter named like it: `struct device *dev`).
  const head = `${lines[line - 2] ?? ''}\n${lines[line - 1] ?? ''}`;
  if (!new RegExp(`\\bstatic\\s+(?:__always_)?inline\\b[^(;{}]*\\b${name}\\s*\\(`).test(head)) return {};
  const text = lines.slice(line - 1, line - 1 + INLINE_LINES).join('\n');
  const open = text.indexOf('{');
  // A prototype (`;` before any body) is no definition.
  if (open < 0 || (text.indexOf(';') >= 0 && text.indexOf(';') < open)) return {};
  let depth = 0;
  let close = -1;
  for (let i = open; i < text.length && close < 0; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) close = i;
  }
  if (close < 0) return {};
  const body = text.slice(open + 1, close);
  const callees = [...new Set([...body.matchAll(/(?<![A-Za-z0-9_.>])([A-Za-z_]\w*)\s*\(/g)].map((m) => m[1]!))].filter((n) => !C_WORDS.has(n));
  const stub = /^\s*(?:return\s+(?:-?\s*E[A-Z0-9]+|NULL|ERR_PTR\s*\(\s*-\s*E[A-Z0-9]+\s*\)|false|true|-?\d+)\s*;)?\s*$/.test(body);
  return { callees, stub };
}

/** The words of C that a call pattern matches but that are no functions. */
const C_WORDS = new Set(['if', 'while', 'for', 'switch', 'return', 'sizeof', 'typeof', '__typeof__', 'do', 'defined', '__builtin_expect', 'likely', 'unlikely']);

/** The text of a `#define` at a 1-based line, its continuation lines joined; '' for any other line. */
function macroBody(lines: string[], line: number): string {
  let text = lines[line - 1] ?? '';
  if (!/^\s*#\s*define\b/.test(text)) return '';
  for (let i = line; text.endsWith('\\') && i < lines.length; i++) text = `${text.slice(0, -1)} ${lines[i]}`;
  return text.replace(/^\s*#\s*define\s+[A-Za-z0-9_]+/, '');
}

/** The names a macro's body uses, its own parameters aside. */
function expandsTo(body: string): string[] {
  if (!body) return [];
  const params = new Set(/^\(([^)]*)\)/.exec(body)?.[1]!.split(',').map((p) => p.trim()) ?? []);
  return identifiersIn(body.replace(/^\([^)]*\)/, '')).filter((id) => !params.has(id) && id !== '__VA_ARGS__');
}

/** A function-like macro's body that names none of its parameters (`(_ptr) NULL`, `(suspend_fn, resume_fn)`). */
function dropsArgument(body: string): boolean {
  const m = /^\(([^)]*)\)(.*)$/.exec(body);
  if (!m) return false;
  const params = m[1]!.split(',').map((p) => p.trim()).filter((p) => /^[A-Za-z_]\w*$/.test(p));
  return params.length > 0 && params.every((p) => !new RegExp(`(?<![A-Za-z0-9_])${p}(?![A-Za-z0-9_])`).test(m[2]!));
}

