// The object-code proof of a flag → static key conversion. Pure: parsed objects in, a proof with numbers out.
// Before the patch, each test of the flag is a load or compare of its address plus a conditional jump. After it, each
// test is one 2- or 5-byte instruction recorded in __jump_table with a relocation naming the new key, and it is a NOP
// in the code that runs. With CONFIG_HAVE_JUMP_LABEL_HACK (x86-64 with objtool) the compiler emits a `jmp` that
// objtool's jump-label pass turns into a NOP, so `final` is the object after that pass has run on it.
import type { ObjectAround, ObjectProof, Prover } from '../../check/proofs/types.js';
import { callGraph } from '../../object-code/call-graph.js';
import { jumpEntries } from '../../object-code/kernel-sections.js';
import type { ObjectCode, ObjSymbol } from '../../object-code/parse.js';
import { flagTests, type FlagTest } from '../../object-code/flag-tests.js';
import { instructionStartingAt, operandRelocations, relocationTarget } from '../../object-code/relocations.js';
import { baseFunction } from '../../object-code/symbols.js';
import { isJumpLabelNop, show } from '../../object-code/x86.js';

export interface KeyConversion {
  file: string;
  /** The flag the key replaces (undefined for a key the patch adds without removing a flag). */
  flag?: string;
  key: string;
  /** DEFINE_STATIC_KEY_TRUE*: the key starts enabled. */
  initiallyEnabled: boolean;
}

/** One jump label of the key after the patch. */
export interface LabelSite {
  function: string;
  address: number;
  /** What the compiler emitted, and what runs after objtool's pass. */
  compiled: string;
  runs: string;
  bytes: number;
  /** A NOP in the code a running system executes. */
  nop: boolean;
  /** The compiler's jmp becomes that NOP when an initcall switches the key at boot. */
  patchedAtBoot: boolean;
}

export interface KeyProof extends ObjectProof {
  flag: string | null;
  key: string;
  before: FlagTest[];
  after: LabelSite[];
}

/** `kseries check` proves every flag → key conversion of a patch, whichever recipe or person wrote it. */
export const staticKeyVerifier: Prover = {
  id: 'static-key',
  statement: (proofs) => `in the built objects (objdump), every test the patches convert is a __jump_table entry of its new key, a NOP in the code that runs (${proofs.length} conversion${proofs.length === 1 ? '' : 's'})`,
  readsFinal: true,
  objectsToProve: (patch) => [...new Set(conversionsIn(patch).map((c) => c.file.replace(/\.c$/, '.o')))],
  prove(patch, objects) {
    return conversionsIn(patch).map((c) => {
      const object = c.file.replace(/\.c$/, '.o');
      const o: ObjectAround = objects.get(object) ?? {};
      if (!o.compiled || !o.final) return failed(object, c, `${object} was not built${o.notBuilt ? `: ${o.notBuilt}` : ''}, so nothing proves the jump labels`);
      return proveKey(object, c, o.before, o.compiled, o.final);
    });
  },
};

function failed(object: string, c: KeyConversion, why: string): KeyProof {
  return { recipe: 'static-key', object, claim: claimOf(c), ok: false, errors: [why], sites: [], summary: why, flag: c.flag ?? null, key: c.key, before: [], after: [] };
}

function claimOf(c: KeyConversion): string {
  return c.flag ? `${c.flag} -> ${c.key}` : c.key;
}

/** "in all: 2 tests, 4 insns/18 bytes -> 2 jump labels, 2 insns/4 bytes" */
function totalLine(before: FlagTest[], after: LabelSite[]): string {
  const insns = before.reduce((n, t) => n + t.instructions.length, 0);
  const bytes = (list: { bytes: number }[]) => list.reduce((n, t) => n + t.bytes, 0);
  const tests = before.length === 1 ? '1 test' : `${before.length} tests`;
  const labels = after.length === 1 ? '1 jump label' : `${after.length} jump labels`;
  return `in all: ${tests}, ${insns} insns/${bytes(before)} bytes -> ${labels}, ${after.length} insn${after.length === 1 ? '' : 's'}/${bytes(after)} bytes`;
}

/** "cmpb+jne 9 bytes x2, movzbl+test+je 11 bytes": equal items counted. */
function counted(items: string[]): string {
  const n = new Map<string, number>();
  for (const i of items) n.set(i, (n.get(i) ?? 0) + 1);
  return [...n].map(([i, k]) => (k > 1 ? `${i} x${k}` : i)).join(', ');
}

/** Per function: the test before (instructions, bytes) -> the jump label after. */
function siteLines(before: FlagTest[], after: LabelSite[]): string[] {
  const fns = [...new Set([...before, ...after].map((s) => baseFunction(s.function)))];
  return fns.flatMap((fn) => {
    const b = before.filter((t) => baseFunction(t.function) === fn);
    const a = after.filter((t) => baseFunction(t.function) === fn);
    const was = b.length ? counted(b.map((t) => `${t.instructions.map((i) => i.split(' ')[0]).join('+')} ${t.bytes} bytes`)) : 'no test';
    const now = a.length ? counted(a.map((t) => `${t.nop ? (t.patchedAtBoot ? 'nop after boot' : 'nop') : t.runs.split(' ')[0]} ${t.bytes} bytes`)) : 'no jump label';
    // Commit messages keep lines under 75 columns (checkpatch), with 4 columns of indent.
    const line = `${fn}(): ${was} -> ${now}`;
    return line.length <= 68 ? [line] : [`${fn}(): ${was}`, `  -> ${now}`];
  });
}

export function proveKey(object: string, conv: KeyConversion, before: ObjectCode | undefined, compiled: ObjectCode, final: ObjectCode): KeyProof {
  const errors: string[] = [];
  const tests = before && conv.flag ? flagTests(before, conv.flag) : [];
  const keySym = compiled.symbols.find((s) => s.name === conv.key && s.kind === 'O');
  const after: LabelSite[] = [];
  if (!keySym) errors.push(`${object} has no symbol ${conv.key}: the key was not compiled in`);
  else {
    const boot = bootWriter(compiled, keySym);
    const steady = boot ? boot.enable : conv.initiallyEnabled;
    for (const e of jumpEntries(compiled)) {
      if (e.key.section !== keySym.section || (e.key.offset & ~3) !== keySym.value) continue;
      const c = instructionStartingAt(compiled, e.code);
      const f = instructionStartingAt(final, e.code);
      if (!c || !f) {
        errors.push(`__jump_table entry for ${conv.key} points at ${e.code.section}+0x${e.code.offset.toString(16)}, which starts no instruction`);
        continue;
      }
      // The kernel's rule (jump_label_type()): a site is a NOP exactly when the key's state equals the entry's branch bit.
      const branch = (e.key.offset & 1) === 1;
      const where = `${c.function} at ${e.code.section}+0x${c.address.toString(16)}`;
      const initialNop = isJumpLabelNop(f);
      if (initialNop !== (conv.initiallyEnabled === branch)) {
        errors.push(`${where}: \`${show(f)}\` does not match the key's initial state and the entry's branch bit`);
      }
      const flipped = steady !== conv.initiallyEnabled;
      const nop = steady === branch;
      const runs = flipped ? (nop ? `nop (patched in at boot when ${boot!.function}() ${boot!.enable ? 'enables' : 'disables'} the key)` : show(c)) : show(f);
      after.push({ function: c.function, address: c.address, compiled: show(c), runs, bytes: f.length, nop, patchedAtBoot: flipped && nop });
      if (f.length !== 2 && f.length !== 5) errors.push(`${where}: the jump label is ${f.length} bytes, not 2 or 5`);
      else if (!nop) errors.push(`${where}: runs as \`${show(flipped ? c : f)}\`${flipped ? ` once ${boot!.function}() has run` : ''}, not as a NOP: the branch hint disagrees with the key's ${flipped ? 'state after boot' : 'initial state'}`);
    }
    if (after.length === 0) errors.push(`no __jump_table entry of ${object} names ${conv.key}`);
  }
  if (conv.flag) {
    if (!before) errors.push(`no object of the base to compare with`);
    else if (tests.length === 0) errors.push(`the base object never tests ${conv.flag} with a conditional jump`);
    if (compiled.symbols.some((s) => s.name === conv.flag && s.kind === 'O')) errors.push(`${conv.flag} is still in ${object} after the patch`);
    errors.push(...testsAccountedFor(conv, tests, after, before, compiled));
  }
  return {
    recipe: 'static-key',
    object,
    claim: claimOf(conv),
    ok: errors.length === 0,
    errors,
    sites: [...siteLines(tests, after), totalLine(tests, after)],
    summary: totalLine(tests, after).replace(/^in all: /, ''),
    ...(conv.flag ? { subject: conv.flag } : {}),
    figures: { tests: tests.length, labels: after.length },
    functions: [...new Set(tests.map((t) => `${baseFunction(t.function)}()`))],
    flag: conv.flag ?? null,
    key: conv.key,
    before: tests,
    after,
  };
}

/**
 * The initcall that switches the key on every boot: a function registered in an .initcall*.init section that calls
 * static_key_enable/disable (what static_branch_enable/disable() call) with the key's address. __setup() handlers
 * run only when their option is given, so they leave the key in its initial state on a usual boot.
 */
function bootWriter(code: ObjectCode, key: ObjSymbol): { function: string; enable: boolean } | undefined {
  const initcalls = [...code.relocations].filter(([section]) => section.startsWith('.initcall')).flatMap(([, rs]) => rs.map((r) => relocationTarget(code, r)));
  const isInitcall = (fn: string) => {
    const sym = code.symbols.find((s) => s.kind === 'F' && s.name === fn);
    return !!sym && initcalls.some((t) => t && t.section === sym.section && t.offset === sym.value);
  };
  for (const [section, list] of code.instructions) {
    const relocs = operandRelocations(code, section);
    for (const [n, i] of list.entries()) {
      const r = /^(call|jmp)/.test(i.mnemonic) ? relocs[n] : undefined;
      const m = r && /^static_key_(enable|disable)(?:_cpuslocked)?$/.exec(r.symbol);
      if (!m || !isInitcall(i.function)) continue;
      const passesKey = relocs.slice(Math.max(0, n - 6), n).some((r) => {
        const t = r && relocationTarget(code, r);
        return t?.section === key.section && t.offset === key.value;
      });
      if (passesKey) return { function: i.function, enable: m[1] === 'enable' };
    }
  }
  return undefined;
}

/**
 * Where each function that tested the flag has its jump label now: in itself, or (gcc moves a test into the callers
 * and calls a split part for the rest) in every one of its callers in this object. A function that now calls a helper
 * that holds the label and was inlined before has grown a call on its fast path. Inlined away entirely: its callers
 * hold the labels, and no call is left to follow.
 */
function testsAccountedFor(conv: KeyConversion, tests: FlagTest[], after: LabelSite[], before: ObjectCode | undefined, compiled: ObjectCode): string[] {
  const errors: string[] = [];
  const labelled = new Set(after.map((s) => baseFunction(s.function)));
  const calls = callGraph(compiled);
  const calledBefore = before ? callGraph(before) : new Map<string, Set<string>>();
  for (const fn of new Set(tests.map((t) => baseFunction(t.function)))) {
    if (labelled.has(fn) || !calls.has(fn)) continue;
    // A callee with the jump label that fn did not call before: the compiler stopped inlining it (it may have had an
    // out-of-line copy all along, as a global function has: set_pageblock_migratetype() in mm/page_alloc.o).
    const helper = [...calls.get(fn)!].find((c) => labelled.has(c) && !calledBefore.get(fn)?.has(c));
    if (helper) {
      errors.push(`${fn}() tested ${conv.flag} inline; after the patch it calls ${helper}(), no longer inlined, for the jump label: its fast path grew a call`);
      continue;
    }
    const callers = [...calls].filter(([g, callees]) => g !== fn && callees.has(fn)).map(([g]) => g);
    const bare = callers.find((g) => !labelled.has(g));
    if (callers.length === 0 || bare) {
      errors.push(`${fn}() tested ${conv.flag} before the patch; after it, neither ${fn}() nor ${bare ? `its caller ${bare}()` : 'a caller in this object'} holds a jump label of ${conv.key}`);
    }
  }
  return errors;
}

/** The flag → key conversions a patch makes: a removed flag declaration and an added DEFINE_STATIC_KEY_*() per .c file. */
export function conversionsIn(patch: string): KeyConversion[] {
  const out: KeyConversion[] = [];
  for (const block of patch.split(/^diff --git /m).slice(1)) {
    const file = /^a\/(\S+) b\/(\S+)/.exec(block)?.[2];
    if (!file || !file.endsWith('.c')) continue;
    const flags = [...block.matchAll(/^-[ \t]*(?:static[ \t]+)?(?:(?:__read_mostly|__ro_after_init)[ \t]+)?(?:bool|int)[ \t]+(?:(?:__read_mostly|__ro_after_init)[ \t]+)?([A-Za-z_]\w*)\b[^(]*;/gm)].map((m) => m[1]!);
    const defines = [...block.matchAll(/^\+.*\bDEFINE_STATIC_KEY_(TRUE|FALSE)(?:_RO)?\(\s*([A-Za-z_]\w*)\s*\)/gm)];
    const keys = defines.map((m) => m[2]!);
    for (const [i, m] of defines.entries()) {
      const key = m[2]!;
      const flag = flags.find((f) => key.startsWith(f)) ?? (keys.length === flags.length ? flags[i] : undefined);
      out.push({ file, flag, key, initiallyEnabled: m[1] === 'TRUE' });
    }
  }
  return out;
}
