// Tree-wide scan for static-key candidates: file-scope bool/int flags tested in branches, each with a verdict.
// Pure: text in, candidates out. The rules are worked out from jump_label.h, static-keys.rst and start_kernel().
import { enclosingFunction, findIdentifiers, LineIndex, readC, wordEndingAt, prevNonSpace, type Blocks } from '../c-text.js';
import { isMemberAccess, isPreprocessorLine, parseBranchRead, parseWrite } from './convert.js';

export type Verdict = 'auto' | 'manual' | 'reject';

export interface FlagCandidate {
  file: string;
  variable: string;
  line: number;
  type: 'bool' | 'int';
  verdict: Verdict;
  reasons: string[];
  reads: { line: number; context: string }[];
  /** Each write: where, in what calling context, and the value it stores. */
  writes: { line: number; function: string | null; context: string; value: boolean }[];
}

/** A file-scope `[static] [attr] bool|int [attr] name [attr] [= init];` line; other shapes are not candidates. */
const DECLARATION = /^[ \t]*(static[ \t]+)?((?:__read_mostly|__ro_after_init)[ \t]+)?(bool|int)[ \t]+((?:__read_mostly|__ro_after_init)[ \t]+)?([A-Za-z_]\w*)[ \t]*((?:__read_mostly|__ro_after_init)[ \t]*)?(?:=[ \t]*([^;,]+?)[ \t]*)?;/gm;

/** The prefilter (a Perl-compatible regex, for git grep -P and grep -P) that finds files with such declarations. */
export const DECLARATION_PREFILTER = '^(static\\s+)?((__read_mostly|__ro_after_init)\\s+)?(bool|int)\\s+[A-Za-z_]\\w*[^(]*;';

/** A use the conversion would refuse; thrown often, so a plain object without a stack. */
class UseRefused {
  constructor(readonly why: string) {}
}

const throwRefusal = (_offset: number, why: string): never => {
  throw new UseRefused(why);
};

export function scanFile(file: string, text: string): FlagCandidate[] {
  const { masked, blocks } = readC(text);
  const lines = new LineIndex(text);
  const declarations = [...masked.matchAll(DECLARATION)].filter((m) => blocks.isTopLevel(m.index!));
  const uses = findIdentifiers(masked, new Set(declarations.map((m) => m[5]!)));
  const file_: FileText = { file, masked, blocks, lines, registered: undefined };
  return declarations.map((m) => classify(file_, m, m.index! + m[0].indexOf(m[5]!, m[0].indexOf(m[3]!) + m[3]!.length), uses.get(m[5]!)!));
}

interface FileText {
  file: string;
  masked: string;
  blocks: Blocks;
  lines: LineIndex;
  /** Functions named in __setup(), early_param(), initcall and module_init() registrations; read on first need. */
  registered: Map<string, WriterContext> | undefined;
}

function classify(f: FileText, m: RegExpMatchArray, declAt: number, uses: number[]): FlagCandidate {
  const { file, masked, blocks, lines } = f;
  const variable = detach(m[5]!);
  const type = m[3] as 'bool' | 'int';
  const init = m[7]?.trim();
  const manual: string[] = [];
  const reject: string[] = [];
  const reads: FlagCandidate['reads'] = [];
  const writes: FlagCandidate['writes'] = [];
  const outside = outsideKernel(file);
  if (outside) reject.push(`${outside}: no jump labels there`);
  if (!m[1]) manual.push('not static: other files may read or write it (a shared key needs DECLARE_STATIC_KEY in a header)');
  if (init !== undefined && !['0', '1', 'true', 'false'].includes(init)) reject.push(`starts as ${init}, not a constant true/false/0/1`);

  for (const at of uses) {
    if (at === declAt || isMemberAccess(masked, at)) continue;
    const line = lines.lineOf(at);
    if (isPreprocessorLine(masked, at)) {
      manual.push(`used in a preprocessor line (line ${line})`);
      continue;
    }
    if (blocks.isTopLevel(at)) {
      const macro = wordEndingAt(masked, prevNonSpace(masked, masked.lastIndexOf('(', at)));
      if (/^(module_param|module_param_named|core_param|module_param_cb|EXPORT_SYMBOL)/.test(macro)) {
        manual.push(`${macro}() at line ${line}: ${macro.startsWith('EXPORT') ? 'exported to modules' : 'a parameter that can be written through its address'}`);
      } else if (masked[prevNonSpace(masked, at)] === '&') manual.push(`its address is taken at line ${line} (a sysctl or debugfs table writes through it)`);
      else manual.push(`used at file scope at line ${line}`);
      continue;
    }
    try {
      const w = parseWrite(masked, at, variable, type, throwRefusal);
      if (w) {
        const found = enclosingFunction(masked, blocks, at);
        const fn = found === undefined ? null : detach(found);
        const context = writerContext(f, at, fn);
        writes.push({ line, function: fn, context, value: w.enable });
        if (context !== 'setup' && context !== 'initcall') manual.push(contextReason(context, fn, line));
        continue;
      }
      parseBranchRead(masked, at, variable, throwRefusal);
      reads.push({ line, context: detach(lines.lineText(line).trim()) });
    } catch (e) {
      if (!(e instanceof UseRefused)) throw e;
      const why = `${e.why} (line ${line})`;
      if (/address of/.test(e.why)) manual.push(`its address is taken at line ${line}, so it may be written through a pointer`);
      else if (/compared with a value|arithmetically|not a constant/.test(e.why)) reject.push(why);
      else manual.push(why);
    }
  }
  if (reads.length === 0) reject.push('never tested in a branch condition');
  if (writes.length === 0 && reject.length === 0) reject.push('never written in this file: a constant, or written through a pointer elsewhere');
  const verdict: Verdict = reject.length ? 'reject' : manual.length ? 'manual' : 'auto';
  const reasons = verdict === 'auto' ? ['static, tested only in branch conditions, written only with constants from __setup() or initcall functions in process context after jump_label_init()'] : [...reject, ...manual];
  return { file, variable, line: lines.lineOf(declAt), type, verdict, reasons: [...new Set(reasons)], reads, writes };
}

/** Code under these paths is built into something other than the kernel proper, where jump labels are not patched. */
const NOT_KERNEL: [RegExp, string][] = [
  [/^(tools|scripts|usr|Documentation)\//, 'a host or user-space program'],
  [/^arch\/[^/]+\/boot\//, 'boot or decompressor code'],
  [/(^|\/)vdso\d*\/|^arch\/[^/]+\/(kernel\/)?vdso/, 'vDSO code, which runs in user space'],
  [/^arch\/[^/]+\/purgatory\/|^arch\/x86\/realmode\//, 'purgatory or real-mode code'],
  [/^drivers\/firmware\/efi\/libstub\//, 'the EFI stub'],
];

function outsideKernel(file: string): string | undefined {
  return NOT_KERNEL.find(([re]) => re.test(file))?.[1];
}

type WriterContext = 'setup' | 'initcall' | 'early_param' | 'atomic' | 'irq' | 'unknown';

/**
 * Where a write runs. `__setup()` handlers run from parse_args() in start_kernel(), after jump_label_init();
 * initcalls and module_init() run in process context. early_param() handlers may run before jump_label_init()
 * (arm, mips, sparc parse early params in setup_arch). A write after a lock, irq-off or RCU read-side call, or in
 * an interrupt handler, is atomic: static_branch_enable() may sleep. Anything else cannot be established.
 */
function writerContext(f: FileText, at: number, fn: string | null): WriterContext {
  if (!fn) return 'unknown';
  const { masked, blocks } = f;
  const bodyStart = Math.max(0, blocks.openOf(at));
  const before = masked.slice(bodyStart, at);
  if (/\b(spin_lock\w*|raw_spin_lock\w*|read_lock\w*|write_lock\w*|local_irq_disable|local_irq_save|rcu_read_lock\w*|preempt_disable)\s*\(/.test(before)) return 'atomic';
  const header = masked.slice(masked.lastIndexOf(';', bodyStart) + 1, bodyStart);
  if (/\birqreturn_t\b/.test(header)) return 'irq';
  f.registered ??= registrations(masked);
  return f.registered.get(fn) ?? 'unknown';
}

const REGISTRATION = /\b(__setup|early_param|(?:early_|core_|postcore_|arch_|subsys_|fs_|device_|late_)?initcall(?:_sync)?|module_init)\s*\([^;]*?\b([A-Za-z_]\w*)\s*\)/g;

/** Each function a registration macro names (its last argument), with the context it runs in; __setup() wins. */
function registrations(masked: string): Map<string, WriterContext> {
  const out = new Map<string, WriterContext>();
  const rank: WriterContext[] = ['setup', 'early_param', 'initcall'];
  for (const m of masked.matchAll(REGISTRATION)) {
    const context: WriterContext = m[1] === '__setup' ? 'setup' : m[1] === 'early_param' ? 'early_param' : 'initcall';
    const had = out.get(m[2]!);
    if (had === undefined || rank.indexOf(context) < rank.indexOf(had)) out.set(m[2]!, context);
  }
  return out;
}

function contextReason(context: WriterContext, fn: string | null, line: number): string {
  switch (context) {
    case 'early_param':
      return `written by the early_param() handler ${fn}() (line ${line}), which some architectures run before jump_label_init()`;
    case 'atomic':
      return `written in ${fn}() (line ${line}) after taking a lock or disabling interrupts or preemption: static_branch_enable() may sleep`;
    case 'irq':
      return `written in the interrupt handler ${fn}() (line ${line}): static_branch_enable() may sleep`;
    default:
      return `written in ${fn ? `${fn}()` : 'an initializer'} (line ${line}), whose calling context kseries cannot establish`;
  }
}

/**
 * A copy of a short string cut from a file's text. V8 keeps a slice's whole parent alive, so a candidate holding a
 * slice would keep every scanned file in memory.
 */
function detach(s: string): string {
  return (' ' + s).slice(1);
}
