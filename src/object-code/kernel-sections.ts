// The kernel's own tables in an x86-64 object, read through their relocations (and, where a field is a plain
// number, the section's bytes): jump labels, exception fixups, alternatives, the kprobe blacklist, and every other
// place a relocation names code (jump tables, computed-goto tables, function pointers). Pure.
import type { ObjectCode, Relocation } from './parse.js';
import { relocationTarget, type Target } from './relocations.js';

/** x86-64 `struct jump_entry`: s32 code, s32 target, long key (include/linux/jump_label.h). */
export const JUMP_ENTRY_SIZE = 16;
/** x86 `struct exception_table_entry`: int insn, fixup, data (arch/x86/include/asm/extable.h). */
export const EX_ENTRY_SIZE = 12;
/** x86 `struct alt_instr`, packed: s32 instr_offset, s32 repl_offset, u32 ft_flags, u8 instrlen, u8 replacementlen. */
export const ALT_ENTRY_SIZE = 14;

/** Relocations of a table section grouped by entry: field offset → where it points. */
function entries(code: ObjectCode, section: string, size: number): Map<number, Map<number, Target | undefined>> {
  const out = new Map<number, Map<number, Target | undefined>>();
  for (const r of code.relocations.get(section) ?? []) {
    const n = Math.floor(r.offset / size);
    if (!out.has(n)) out.set(n, new Map());
    out.get(n)!.set(r.offset % size, relocationTarget(code, r));
  }
  return out;
}

export interface JumpEntry {
  /** The jump label: a NOP or a jmp that the kernel patches. */
  code: Target;
  /** Where the label jumps when it is a jmp. */
  target?: Target;
  /** The key's place; its low bit is the entry's branch bit (static_branch_likely). */
  key: Target;
}

export function jumpEntries(code: ObjectCode): JumpEntry[] {
  const out: JumpEntry[] = [];
  for (const fields of entries(code, '__jump_table', JUMP_ENTRY_SIZE).values()) {
    const at = fields.get(0);
    const key = fields.get(8);
    if (at && key) out.push({ code: at, target: fields.get(4), key });
  }
  return out;
}

export interface ExceptionEntry {
  /** The instruction that may fault. */
  insn: Target;
  /** Where the fault handler continues. */
  fixup?: Target;
}

export function exceptionEntries(code: ObjectCode): ExceptionEntry[] {
  const out: ExceptionEntry[] = [];
  for (const fields of entries(code, '__ex_table', EX_ENTRY_SIZE).values()) {
    const insn = fields.get(0);
    if (insn) out.push({ insn, fixup: fields.get(4) });
  }
  return out;
}

export interface Alternative {
  /** The original instructions, rewritten at boot when the CPU has the feature. */
  site: Target;
  /** Their length (0 when the section's bytes were not read: then only the site's start is known). */
  length: number;
  replacement?: Target;
}

export function alternatives(code: ObjectCode): Alternative[] {
  const bytes = code.contents?.get('.altinstructions');
  const out: Alternative[] = [];
  for (const [n, fields] of entries(code, '.altinstructions', ALT_ENTRY_SIZE)) {
    const site = fields.get(0);
    if (!site) continue;
    const length = bytes && bytes.length >= (n + 1) * ALT_ENTRY_SIZE ? bytes[n * ALT_ENTRY_SIZE + 12]! : 0;
    out.push({ site, length, replacement: fields.get(4) });
  }
  return out;
}

/** Functions NOKPROBE_SYMBOL() puts on the kprobe blacklist (`_kprobe_blacklist` holds their addresses). */
export function kprobeBlacklist(code: ObjectCode): Target[] {
  return (code.relocations.get('_kprobe_blacklist') ?? []).flatMap((r) => relocationTarget(code, r) ?? []);
}

/** Sections kprobes never probe: `__kprobes` functions, noinstr and entry code. */
export const UNPROBED_SECTIONS = new Set(['.kprobes.text', '.noinstr.text', '.entry.text']);

/**
 * Sections whose relocations name code without passing control to it: debug information, unwind tables, objtool's
 * annotations, tables of call sites, ftrace sites, BUG sites, endbr seals and paravirt sites (each names an
 * instruction, never the one after it as a place to continue), and runtime constants (runtime_ptr_*, runtime_shift_*
 * name the immediate inside a movabs or shift that is patched at boot). Every other section's relocation into code
 * may be a way to reach it: a jump table, a computed-goto table, a function pointer, a jump back from a split part.
 */
const NAMES_WITHOUT_TRANSFER = /^(\.debug|\.orc_|\.discard\.|\.comment|\.note|\.eh_frame|\.BTF|__bug_table$|__mcount_loc$|__patchable_function_entries$|\.static_call_sites$|\.retpoline_sites$|\.return_sites$|\.call_sites$|\.ibt_endbr_seal$|\.smp_locks$|\.kcfi_traps$|\.parainstructions$|runtime_(ptr|shift)_|_kprobe_blacklist$|\.altinstructions$|__jump_table$|__ex_table$|\.initcall|___ksymtab|\.export_symbol$|__ksymtab)/;

/** Kernel tables that this module reads field by field (their relocations are not plain references). */
export function isMetadataSection(section: string): boolean {
  return NAMES_WITHOUT_TRANSFER.test(section);
}

export interface CodeReference {
  /** The section holding the reference (`.rodata`, `.data.rel.ro.c_jump_table`, `.text.unlikely`, ...). */
  from: string;
  offset: number;
  to: Target;
  relocation: Relocation;
}

/**
 * Every relocation outside the metadata sections that names a place in one of `codeSections`. Code sections' own
 * relocations are left out: their instructions are read as instructions (a jump's target, a %rip-relative address).
 */
export function dataReferencesToCode(code: ObjectCode, codeSections: Set<string>): CodeReference[] {
  const out: CodeReference[] = [];
  for (const [from, relocs] of code.relocations) {
    if (codeSections.has(from) || isMetadataSection(from)) continue;
    for (const r of relocs) {
      const to = relocationTarget(code, r);
      if (to && codeSections.has(to.section)) out.push({ from, offset: r.offset, to, relocation: r });
    }
  }
  return out;
}

/** Code that alternatives copy over the original instructions at boot, or branch to from them. */
export const ALTERNATIVE_CODE_SECTIONS = new Set(['.altinstr_replacement', '.altinstr_aux']);
