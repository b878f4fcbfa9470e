// Tree-wide scan for static-key candidates: file-scope bool/int flags tested in branches, each with a verdict.
// Pure: text in, facts out; the verdict is decided from the facts and the architecture the code is built for. The
// rules are worked out from jump_label.h, static-keys.rst, start_kernel() and each architecture's setup_arch().
import { CFile } from '../../c-source/functions.js';
import { findIdentifiers } from '../../c-source/text.js';
import { anyArch, SOME_ARCHES, type ArchView } from './arch.js';
import { runsOnEveryBoot } from './contexts.js';
import { isMemberAccess, isPreprocessorLine, parseBranchRead, parseWrite } from './convert.js';
import { describeReach, Walker, type CallerLookup, type Reach } from './reach.js';
import { toggleAt, type Toggle } from './toggles.js';

export type Verdict = 'auto' | 'manual' | 'reject';

export interface FlagCandidate {
  file: string;
  variable: string;
  line: number;
  type: 'bool' | 'int';
  verdict: Verdict;
  reasons: string[];
  /** For `manual`: the work a person has to do ("a param setter", "DECLARE_STATIC_KEY in include/linux/x.h"). */
  needs: string[];
  reads: { line: number; context: string }[];
  /**
   * Each write: where, in what calling context (the worst way its function is reached: setup, initcall, early_param,
   * runtime, probe, exit, unknown, early, atomic), the value it stores, and the path that decided
   * ("foo_set() <- foo_irq() (request_irq at drivers/x/y.c:120): hardirq"). `everyBoot`: an initcall of the file runs it
   * on every boot (a plain statement all the way up, not inside an `if` or a loop), so its value is the usual one.
   */
  writes: { line: number; function: string | null; context: string; value: boolean; via: string; everyBoot?: true }[];
  /**
   * For a flag an early_param() handler writes that every architecture building its file lets through: those
   * architectures, and where each parses early parameters after jump_label_init().
   */
  earlyParamArches?: { arch: string; where: string }[];
  /** Other files may use it (not static, or exported): the header that declares it extern, when one does. */
  shared?: { header?: string };
}

/**
 * What the file says about a candidate: the reasons that need nothing but the file, and for a flag that may still
 * qualify how each write's and each test's function is reached (global callers as placeholders, which the tree fills
 * in). The verdict follows from them, the tree's answers and the architectures (`decide`).
 */
export interface FlagFacts {
  file: string;
  variable: string;
  line: number;
  type: 'bool' | 'int';
  reject: string[];
  manual: string[];
  needs: string[];
  reads: FlagCandidate['reads'];
  /** `everyBoot`: the initcall that runs the write on every boot (runsOnEveryBoot). */
  writes: { line: number; function: string | null; value: boolean; reaches: Reach[]; everyBoot?: string }[];
  /** Per test, for a flag that may still qualify: its function, and the __init/__exit attribute or how it is reached. */
  readPlaces?: { function: string; init?: string; reaches: Reach[] }[];
  /** Other files may use it (not static, or exported): the key needs a declaration in a header. */
  shared: boolean;
}

/** A file-scope `[static] [attr] bool|int [attr] name [attr] [= init];` line; other shapes are not candidates. */
const DECLARATION = /^[ \t]*(static[ \t]+)?((?:__read_mostly|__ro_after_init)[ \t]+)?(bool|int)[ \t]+((?:__read_mostly|__ro_after_init)[ \t]+)?([A-Za-z_]\w*)[ \t]*((?:__read_mostly|__ro_after_init)[ \t]*)?(?:=[ \t]*([^;,]+?)[ \t]*)?;/gm;

/** The prefilter (a Perl-compatible regex, for git grep -P and grep -P) that finds files with such declarations. */
export const DECLARATION_PREFILTER = '^(static\\s+)?((__read_mostly|__ro_after_init)\\s+)?(bool|int)\\s+[A-Za-z_]\\w*[^(]*;';

/** A lookup that knows no other file: global callers stay pending. */
export const NO_LOOKUP: CallerLookup = { filesUsing: () => undefined, file: () => undefined, definerOf: () => undefined };

/** A use the conversion would refuse; thrown often, so a plain object without a stack. */
class UseRefused {
  constructor(readonly why: string) {}
}

const throwRefusal = (_offset: number, why: string): never => {
  throw new UseRefused(why);
};

/** The candidates of one file on its own: global callers not searched, architectures from `arch` (or none known). */
export function scanFile(file: string, text: string, arch?: ArchView): FlagCandidate[] {
  return scanFacts(file, text).map((f) => decide(f, arch ?? anyArch()));
}

export function scanFacts(file: string, text: string): FlagFacts[] {
  const cf = new CFile(file, text);
  const declarations = [...cf.masked.matchAll(DECLARATION)].filter((m) => cf.blocks.isTopLevel(m.index!));
  if (declarations.length === 0) return [];
  const uses = findIdentifiers(cf.masked, new Set(declarations.map((m) => m[5]!)));
  const walkers = newWalkers();
  return declarations.map((m) => classify(cf, walkers, m, m.index! + m[0].indexOf(m[5]!, m[0].indexOf(m[3]!) + m[3]!.length), uses.get(m[5]!)!));
}

/** Writers: an atomic path settles it (reject). Readers: one path that is not boot-time settles it (not init-only). */
export function newWalkers(): { writes: Walker; reads: Walker } {
  return { writes: new Walker((k) => k === 'atomic'), reads: new Walker((k) => k !== 'pending' && !BOOT_KINDS.has(k), true) };
}

interface Write {
  at: number;
  line: number;
  value: boolean;
}

/** Where code runs only while the system boots or a module or device comes and goes. */
const BOOT_KINDS = new Set<string>(['init', 'early_param', 'early', 'probe', 'exit']);

function classify(cf: CFile, walkers: { writes: Walker; reads: Walker }, m: RegExpMatchArray, declAt: number, uses: number[]): FlagFacts {
  const { path: file, masked, blocks, lines } = cf;
  const variable = detach(m[5]!);
  const type = m[3] as 'bool' | 'int';
  const init = m[7]?.trim();
  const isStatic = !!m[1];
  const manual: string[] = [];
  const reject: string[] = [];
  const needs = new Set<string>();
  const reads: (FlagCandidate['reads'][number] & { at: number })[] = [];
  const found: Write[] = [];
  const toggles: Toggle[] = [];
  let shared = !isStatic;
  const outside = outsideKernel(file);
  if (outside) reject.push(`${outside}: no jump labels there`);
  if (!isStatic) manual.push('not static: other files may read or write it');
  if (init !== undefined && !['0', '1', 'true', 'false'].includes(init)) reject.push(`starts as ${init}, not a constant true/false/0/1`);

  for (const at of uses) {
    if (at === declAt || isMemberAccess(masked, at)) continue;
    const line = lines.lineOf(at);
    if (isPreprocessorLine(masked, at)) {
      manual.push(`used in a preprocessor line (line ${line})`);
      continue;
    }
    const toggle = toggleAt(cf, at);
    if (toggle) {
      if (toggle.kind === 'ignore') continue;
      if (toggle.kind === 'exported') {
        shared = true;
        manual.push(`${toggle.text} (line ${line})`);
      } else if (toggle.reject) reject.push(`${toggle.text} (line ${line})`);
      else {
        toggles.push(toggle);
        manual.push(`${toggle.text} (line ${line})`);
        if (toggle.needs) needs.add(toggle.needs);
      }
      continue;
    }
    if (blocks.isTopLevel(at)) {
      manual.push(`used at file scope at line ${line}`);
      continue;
    }
    try {
      const w = parseWrite(masked, at, variable, type, throwRefusal);
      if (w) {
        found.push({ at, line, value: w.enable });
        continue;
      }
      parseBranchRead(masked, at, variable, throwRefusal);
      reads.push({ at, line, context: detach(lines.lineText(line).trim()) });
    } catch (e) {
      if (!(e instanceof UseRefused)) throw e;
      const why = `${e.why} (line ${line})`;
      if (/compared with a value|arithmetically|not a constant/.test(e.why)) reject.push(why);
      else if (/outside (a branch|an if\/while) condition/.test(e.why)) {
        manual.push(`read as a value at line ${line}: \`${lines.lineText(line).trim()}\``);
        needs.add(`static_key_enabled() for the value read at line ${line}`);
      } else manual.push(why);
    }
  }
  if (reads.length === 0) reject.push('never tested in a branch condition');
  if (found.length === 0 && toggles.length === 0 && !shared && reject.length === 0) reject.push('never written in this file: a constant, or written through a pointer elsewhere');

  // How each writer and each test is reached: only worth the walk while the flag may qualify.
  const writes = found.map((w) => {
    const def = cf.functionAt(w.at);
    const reaches = reject.length ? [] : def ? walkers.writes.reachAt(cf, def, w.at) : [{ place: { kind: 'unknown' as const, what: 'written in an initializer', where: `${file}:${w.line}` }, path: [] }];
    const everyBoot = def && reject.length === 0 ? runsOnEveryBoot(cf, def, w.at) : undefined;
    return { line: w.line, function: def ? detach(def.name) : null, value: w.value, reaches, ...(everyBoot ? { everyBoot: detach(everyBoot) } : {}) };
  });
  let readPlaces: FlagFacts['readPlaces'];
  if (reject.length === 0) {
    readPlaces = [];
    for (const r of reads) {
      const def = cf.functionAt(r.at);
      if (!def) break;
      const attr = [...def.attrs].filter((a) => /^__(init|exit|meminit)$/.test(a));
      const reaches = attr.length ? [] : walkers.reads.reachAt(cf, def, r.at);
      readPlaces.push({ function: detach(def.name), ...(attr.length ? { init: attr.join(' ') } : {}), reaches });
      // One test reached at run time settles it: the flag is not read only at boot.
      if (reaches.some((x) => x.place.kind !== 'pending' && !BOOT_KINDS.has(x.place.kind))) break;
    }
  }
  return {
    file,
    variable,
    line: lines.lineOf(declAt),
    type,
    reject,
    manual,
    needs: [...needs],
    reads: reads.map(({ line, context }) => ({ line, context })),
    writes,
    ...(readPlaces ? { readPlaces } : {}),
    shared,
  };
}

/** The context a write is listed with: the worst way its function is reached. */
function contextOf(reaches: Reach[]): string {
  const worst = reaches[0]!.place;
  if (worst.kind !== 'init') return worst.kind;
  return reaches.every((r) => r.place.what.startsWith('__setup')) ? 'setup' : 'initcall';
}

/** The tree's answers for decide(): global callers expanded, and the headers that declare shared flags. */
export interface TreeAnswers {
  /** `question`: how writes are reached (an atomic path settles it), or tests (a run-time path settles it). */
  expand(question: 'writes' | 'reads', reaches: Reach[]): { reaches: Reach[]; pending: Set<string> };
  /** For a shared flag: the header that declares it extern, and what other files' sysctl tables do with it. */
  shared(variable: string): { header?: string; elsewhere: (Toggle & { where: string })[] };
}

/** Without the tree: placeholders stay as they are. */
export const NO_ANSWERS: TreeAnswers = { expand: (_q, reaches) => ({ reaches, pending: new Set() }), shared: () => ({ elsewhere: [] }) };

/** The names decide() would like the tree to look up for this flag. */
export function pendingNames(f: FlagFacts, tree: TreeAnswers): Set<string> {
  const out = new Set<string>();
  if (f.reject.length > 0) return out;
  for (const w of f.writes) for (const n of tree.expand('writes', w.reaches).pending) out.add(n);
  for (const r of f.readPlaces ?? []) for (const n of tree.expand('reads', r.reaches).pending) out.add(n);
  return out;
}

/** What the conversion does about a need (`done`), or the question it leaves to a reviewer (`ask`). */
export type NeedKind = 'done' | 'ask';

/**
 * The needs kseries can carry into an RFC: a value read (static_key_enabled()) and a shared flag's header (DECLARE_STATIC_KEY
 * there, the other files' tests converted) are done by the conversion; a writer whose context kseries could not
 * clear is converted as it stands and asked about. Anything else (a param setter, a sysctl handler, a non-constant
 * write) is work for a person first.
 */
export function needKind(need: string): NeedKind | undefined {
  if (VALUE_NEED.test(need) || /^DECLARE_STATIC_KEY in \S+\.h$/.test(need)) return 'done';
  if (WRITER_NEEDS.has(need)) return 'ask';
  return undefined;
}

const VALUE_NEED = /^static_key_enabled\(\) for the value read at line \d+$/;
const WRITER_NEEDS = new Set(['a person to judge the run-time writer', 'a writer context kseries can establish', 'a boot-time writer on every architecture']);

/**
 * A manual flag whose only need is static_key_enabled() at its value reads: a mechanical change the conversion makes
 * (its `values` option), so kseries carries it as far as a patch — an RFC, since the scan could not clear it alone —
 * and proposes it as it proposes an auto flag.
 */
export function carriable(c: Pick<FlagCandidate, 'verdict' | 'needs'>): boolean {
  return c.verdict === 'manual' && c.needs.length > 0 && c.needs.every((n) => VALUE_NEED.test(n));
}

/**
 * A manual flag kseries converts when a person names it (generate --only): every need is done by the conversion or
 * is a question about a writer, which the RFC asks.
 */
export function carriedOnRequest(c: Pick<FlagCandidate, 'verdict' | 'needs'>): boolean {
  return c.verdict === 'manual' && c.needs.length > 0 && c.needs.every((n) => needKind(n) !== undefined);
}

/** The verdict: any reject reason rejects, any manual reason makes it manual, else auto. */
export function decide(f: FlagFacts, arch: ArchView, tree: TreeAnswers = NO_ANSWERS): FlagCandidate {
  const reject = [...f.reject];
  const manual = [...f.manual];
  const needs = [...f.needs];
  const earlyParam: string[] = [];
  const writes: FlagCandidate['writes'] = [];
  for (const w of f.writes) {
    const reaches = f.reject.length ? w.reaches : tree.expand('writes', w.reaches).reaches;
    const worst = reaches[0];
    const text = worst ? describeReach(w.function, worst) : 'not followed: the flag is rejected for other reasons';
    const everyBoot = !!w.everyBoot && !!worst && reaches.every((r) => r.place.kind === 'init');
    writes.push({ line: w.line, function: w.function, context: worst ? contextOf(reaches) : 'unknown', value: w.value, via: text, ...(everyBoot ? { everyBoot: true as const } : {}) });
    if (!worst || f.reject.length) continue;
    switch (worst.place.kind) {
      case 'atomic':
        reject.push(`written in ${text} (line ${w.line}): static_branch_enable() sleeps, so no static key can be switched there`);
        break;
      case 'early':
        reject.push(`written in ${text} (line ${w.line}): before jump_label_init(), when no static key can be switched`);
        break;
      case 'unknown':
      case 'pending':
        manual.push(`written in ${text} (line ${w.line})`);
        needs.push('a writer context kseries can establish');
        break;
      case 'runtime':
      case 'probe':
      case 'exit':
        manual.push(`written at run time in process context: ${text} (line ${w.line})`);
        needs.push('a person to judge the run-time writer');
        break;
      case 'early_param':
        earlyParam.push(`written by ${text} (line ${w.line})`);
        break;
      case 'init':
        break;
    }
  }
  const arches = arch.archesOf(f.file);
  if (arches !== 'any' && arches.length > 0 && !arches.some((a) => arch.jumpLabel(a))) reject.push(`built only for ${arches.join(', ')}: no jump labels on ${arches.join(', ')}`);
  let earlyParamArches: FlagCandidate['earlyParamArches'];
  if (earlyParam.length > 0 && reject.length === 0) {
    const building = (arches === 'any' ? arch.all : arches).filter((a) => arch.jumpLabel(a));
    const before = building.filter((a) => !arch.earlyParamsAfterJumpLabel(a));
    if (before.length === 0) earlyParamArches = building.map((a) => ({ arch: a, where: arch.earlyParamSite(a) }));
    if (before.length > 0) {
      const where = arches === 'any' ? 'generic code, built for every architecture' : `built for ${arches.join(', ')}`;
      const verb = before.length === 1 && before[0] !== SOME_ARCHES ? 'parses' : 'parse';
      for (const e of earlyParam) manual.push(`${e}: ${where}, and ${before.join(', ')} ${verb} early parameters before jump_label_init()`);
      needs.push('a boot-time writer on every architecture');
    }
  }
  const initOnly = reject.length === 0 ? readOnlyAtInit(f, tree) : undefined;
  if (initOnly) reject.push(`no benefit: read only at init/exit, in ${initOnly}`);
  let shared: FlagCandidate['shared'];
  if (f.shared) {
    const { header, elsewhere } = tree.shared(f.variable);
    shared = header ? { header } : {};
    for (const t of elsewhere) {
      if (t.reject) reject.push(`${t.text} (${t.where})`);
      else {
        manual.push(`${t.text} (${t.where})`);
        if (t.needs) needs.push(t.needs);
      }
    }
    needs.push(`DECLARE_STATIC_KEY in ${header ?? 'a header'}`);
  }
  const verdict: Verdict = reject.length ? 'reject' : manual.length ? 'manual' : 'auto';
  const reasons = verdict === 'auto' ? [autoReason(writes)] : [...reject, ...manual];
  return {
    file: f.file,
    variable: f.variable,
    line: f.line,
    type: f.type,
    verdict,
    reasons: [...new Set(reasons)],
    needs: verdict === 'manual' ? [...new Set(needs)] : [],
    reads: f.reads,
    writes,
    ...(earlyParamArches ? { earlyParamArches } : {}),
    ...(shared ? { shared } : {}),
  };
}

/**
 * Where every test runs only while the system boots or a module or device comes and goes: __init/__exit functions,
 * or those reached only from initcalls, __setup/early_param handlers, probe/remove and module init/exit. Undefined
 * when one test is reached otherwise (or cannot be placed).
 */
function readOnlyAtInit(f: FlagFacts, tree: TreeAnswers): string | undefined {
  if (!f.readPlaces || f.readPlaces.length !== f.reads.length || f.reads.length === 0) return undefined;
  const places: string[] = [];
  for (const r of f.readPlaces) {
    if (r.init) {
      places.push(`${r.function}() (${r.init})`);
      continue;
    }
    const reaches = tree.expand('reads', r.reaches).reaches;
    if (!reaches.every((x) => BOOT_KINDS.has(x.place.kind))) return undefined;
    places.push(`${r.function}() (${[...new Set(reaches.map((x) => x.place.what))].join(', ')})`);
  }
  return [...new Set(places)].join(', ');
}

function autoReason(writes: FlagCandidate['writes']): string {
  const via = [...new Set(writes.map((w) => w.via))].join('; ');
  return `static, tested only in branch conditions, written only with constants at boot in process context after jump_label_init(): ${via}`;
}

/** Code under these paths is built into something other than the kernel proper, where jump labels are not patched. */
const NOT_KERNEL: [RegExp, string][] = [
  [/^(tools|scripts|usr|Documentation)\//, 'a host or user-space program'],
  [/\.bpf\.c$/, 'a BPF program, not kernel code'],
  [/^arch\/[^/]+\/boot\//, 'boot or decompressor code'],
  [/(^|\/)vdso\d*\/|^arch\/[^/]+\/(kernel\/)?vdso/, 'vDSO code, which runs in user space'],
  [/^arch\/[^/]+\/purgatory\/|^arch\/x86\/realmode\//, 'purgatory or real-mode code'],
  [/^drivers\/firmware\/efi\/libstub\//, 'the EFI stub'],
];

export function outsideKernel(file: string): string | undefined {
  return NOT_KERNEL.find(([re]) => re.test(file))?.[1];
}

/**
 * A copy of a short string cut from a file's text. V8 keeps a slice's whole parent alive, so a candidate holding a
 * slice would keep every scanned file in memory.
 */
function detach(s: string): string {
  return (' ' + s).slice(1);
}
