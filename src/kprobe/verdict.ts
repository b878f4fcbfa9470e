// What the analyzer says of a site: the verdict, its reasons and their stable kinds, in DESIGN's JSON contract.
import type { Transfer } from '../object-code/x86.js';

/** Why a site stays where it is; sites are counted under the first kind they have, in this order. */
export const REASON_KINDS = [
  'not-probeable', // kprobes refuse the function (NOKPROBE_SYMBOL, noinstr, entry code, __kprobes)
  'undecoded', // objdump lost the instruction boundaries of the function ((bad), or a table names the middle of one)
  'control-transfer', // I jumps, calls, returns, traps or leaves to the system
  'jump-label', // I is a jump label: a NOP the kernel patches into a jmp
  'may-fault', // I has an __ex_table entry: a fault continues at its fixup, not at N
  'alternative', // I or N lies in code that alternatives rewrite at boot
  'no-next', // N is not an instruction of the same function
  'branch-target', // a direct jump or call anywhere in the object lands on N
  'table-target', // a jump table, computed-goto table or other data names N
  'static-branch-target', // a jump label jumps to N when enabled
  'fixup-target', // an exception fixup continues at N
  'address-taken', // an instruction takes N's address (%rip-relative lea, absolute relocation)
  'entry-point', // a symbol or an endbr64 marks N as a place code enters
  'indirect-jump', // an indirect jump of the function whose targets no table in the object names
  'next-not-probeable', // kprobes refuse a probe on N (static call site, BUG site, jump label, a trapping instruction)
] as const;
export type ReasonKind = (typeof REASON_KINDS)[number];

export interface SiteVerdict {
  object: string;
  symbol: string;
  offset: number;
  /** The probed instruction as objdump prints it (a relocated call or jump names its symbol). */
  insn: string;
  /** The offset of the next instruction in the function (null when there is none or the site is an error). */
  next_offset: number | null;
  verdict: 'safe' | 'unsafe' | 'error';
  reasons: string[];
  /** The kind of each reason, in the same order (none for an error). */
  kinds: ReasonKind[];
}

/** How each kind of control transfer is said in a reason. */
export const TRANSFER_TEXT: Record<Transfer, string> = {
  jump: 'is a jump',
  'cond-jump': 'is a conditional jump',
  call: 'is a call',
  'indirect-jump': 'is an indirect jump',
  'indirect-call': 'is an indirect call',
  return: 'is a return',
  trap: 'traps (int3, int, ud2, hlt)',
  system: 'leaves to the system (syscall, iret, far transfer, hypervisor or enclave call)',
};

/** The primary reason of a verdict: the first of its kinds in REASON_KINDS order. */
export function primaryReason(v: SiteVerdict): ReasonKind | undefined {
  return REASON_KINDS.find((k) => v.kinds.includes(k));
}

/** `SYMBOL+OFFSET` (decimal or 0x hex; a bare SYMBOL is offset 0); undefined when it is not that. */
export function parseSite(spec: string): { symbol: string; offset: number } | undefined {
  const m = /^([A-Za-z_.$][\w.$]*)(?:\+(0x[0-9a-fA-F]+|\d+))?$/.exec(spec.trim());
  if (!m) return undefined;
  return { symbol: m[1]!, offset: m[2] ? Number(m[2]) : 0 };
}
