// x86-64 facts about instructions as objdump prints them (AT&T syntax): NOPs, and how each instruction passes
// control on. Pure: an Instruction in, a fact out.
import type { Instruction } from './parse.js';

/** Single-instruction NOPs the kernel patches jump labels with (2 and 5 bytes; P6 and K8 forms). */
const JUMP_LABEL_NOPS = new Set(['66 90', '0f 1f 44 00 00', '66 66 90', '3e 8d 74 26 00']);

export function isJumpLabelNop(i: Instruction): boolean {
  return JUMP_LABEL_NOPS.has(i.bytes);
}

/** Prefixes objdump prints as words of their own before the mnemonic. */
const PREFIXES = new Set(['lock', 'rep', 'repz', 'repe', 'repnz', 'repne', 'notrack', 'bnd', 'cs', 'ds', 'es', 'ss', 'fs', 'gs', 'data16', 'addr32', 'rex', 'rex.W', 'rex.B', 'rex.X', 'rex.R', 'xacquire', 'xrelease']);

/** The mnemonic and operands without the prefix words objdump put in front (`notrack jmp *%rax` → jmp, *%rax). */
export function opcodeOf(i: Instruction): { mnemonic: string; operands: string } {
  if (!PREFIXES.has(i.mnemonic) && !i.mnemonic.startsWith('rex.')) return { mnemonic: i.mnemonic, operands: i.operands };
  const words = `${i.mnemonic} ${i.operands}`.split(/\s+/);
  let n = 0;
  while (n < words.length - 1 && (PREFIXES.has(words[n]!) || words[n]!.startsWith('rex.'))) n++;
  return { mnemonic: words[n]!, operands: words.slice(n + 1).join(' ') };
}

/**
 * How an instruction hands control on, when it does not simply fall through to the next one:
 * - jump, cond-jump: a direct (relative) jump, unconditional or not (jcc, loop, jrcxz, xbegin);
 * - call: a direct call; indirect-jump, indirect-call: through a register or memory, or through a retpoline thunk;
 * - return: ret, or `jmp __x86_return_thunk`; trap: int3, int, ud0/1/2, hlt, into, icebp;
 * - system: syscall/sysret/sysenter/sysexit, iret, far transfers, hypervisor and enclave calls, rsm, xabort.
 */
export type Transfer = 'jump' | 'cond-jump' | 'call' | 'indirect-jump' | 'indirect-call' | 'return' | 'trap' | 'system';

/** The prefix of the kernel's retpoline thunks (`__x86_indirect_thunk_rax`, also `__x86_indirect_call_thunk_*`, `__x86_indirect_jump_thunk_*`). */
const INDIRECT_THUNK = /^__x86_indirect_(?:call_|jump_)?thunk_/;
const RETURN_THUNK = /^__x86_return_thunk$/;

/** Older binutils print the operand size on these. */
const SUFFIXED: Record<string, string> = { jmpq: 'jmp', callq: 'call', retq: 'ret', retl: 'ret', retw: 'ret' };
const COND_JUMP = /^(j(?!mp)[a-z]+|loop[a-z]*|xbegin)$/;
const TRAPS = new Set(['int3', 'int', 'int1', 'icebp', 'into', 'ud0', 'ud1', 'ud2', 'hlt', '(bad)']);
const SYSTEM = new Set([
  'syscall', 'sysret', 'sysretq', 'sysretl', 'sysenter', 'sysexit', 'sysexitq', 'iret', 'iretq', 'iretl', 'iretw', 'lret', 'lretq', 'lretl', 'lretw',
  'ljmp', 'ljmpq', 'lcall', 'lcallq', 'rsm', 'xabort', 'vmcall', 'vmmcall', 'vmlaunch', 'vmresume', 'vmrun', 'vmexit', 'tdcall', 'seamcall', 'seamret',
  'enclu', 'encls', 'enclv', 'uiret', 'eretu', 'erets', 'pconfig',
]);

/**
 * What the instruction does with control, given the symbol its operand's relocation names (a call or jump to an
 * external function has one). undefined: it always falls through to the next instruction.
 */
export function transferOf(i: Instruction, relocationSymbol?: string): Transfer | undefined {
  // Most instructions are none of these: one lookup per mnemonic decides (a prefix word needs a closer look).
  const kind = KIND_OF.get(i.mnemonic);
  if (kind === null) return undefined;
  if (kind !== undefined && kind !== 'jmp' && kind !== 'call') return kind;
  const { mnemonic, operands } = opcodeOf(i);
  const m = SUFFIXED[mnemonic] ?? mnemonic;
  if (kind === undefined) {
    const k = kindOf(m);
    if (!PREFIXES.has(i.mnemonic) && !i.mnemonic.startsWith('rex.')) KIND_OF.set(i.mnemonic, k);
    if (k === null) return undefined;
    if (k !== 'jmp' && k !== 'call') return k;
  }
  const callee = relocationSymbol ?? /<([^>+]+)[^>]*>$/.exec(operands)?.[1];
  if (m === 'jmp') {
    if (operands.startsWith('*')) return 'indirect-jump';
    if (callee && RETURN_THUNK.test(callee)) return 'return';
    if (callee && INDIRECT_THUNK.test(callee)) return 'indirect-jump';
    return 'jump';
  }
  if (operands.startsWith('*')) return 'indirect-call';
  if (callee && INDIRECT_THUNK.test(callee)) return 'indirect-call';
  return 'call';
}

/** What a mnemonic (without prefixes) is; jmp and call depend on their operand. null: it falls through. */
function kindOf(m: string): Transfer | 'jmp' | 'call' | null {
  if (m === 'jmp' || m === 'call') return m;
  if (m === 'ret') return 'return';
  if (m === 'retf') return 'system';
  if (COND_JUMP.test(m)) return 'cond-jump';
  if (TRAPS.has(m)) return 'trap';
  if (SYSTEM.has(m)) return 'system';
  return null;
}

/** kindOf() per mnemonic as objdump printed it (without prefix words), filled as mnemonics are met. */
const KIND_OF = new Map<string, Transfer | 'jmp' | 'call' | null>();

/** The address a direct jump or call names in its own section, as objdump resolved it (`jne 1a <f+0x1a>` → 0x1a). */
export function directTarget(i: Instruction): number | undefined {
  const m = /^([0-9a-f]+)(?: <[^>]*>)?$/.exec(opcodeOf(i).operands.trim());
  return m ? parseInt(m[1]!, 16) : undefined;
}

/** The address a %rip-relative operand names, as objdump's comment gives it (`lea 0x10(%rip),%rax  # 2a <f+0x2a>`). */
export function ripTarget(i: Instruction): number | undefined {
  if (!i.operands.includes('(%rip)')) return undefined;
  const m = /#\s*([0-9a-f]+)(?:\s+<[^>]*>)?\s*$/.exec(i.operands);
  return m ? parseInt(m[1]!, 16) : undefined;
}

/** objdump's text of an instruction without its address comment or symbolic target (`jmp 12`, `cmpb $0x0,0x0(%rip)`). */
export function show(i: Instruction): string {
  const operands = i.operands.replace(/\s+#.*$/, '').replace(/\s*<[^>]*>$/, '');
  return `${i.mnemonic}${operands ? ` ${operands}` : ''}`;
}

/** The 0f 01 (Grp7) instructions: system and virtualization instructions, VMCALL, STAC/CLAC, SWAPGS and the like. */
export const GROUP7_MNEMONICS = new Set([
  'sgdt', 'sidt', 'lgdt', 'lidt', 'smsw', 'lmsw', 'invlpg', 'swapgs', 'rdtscp', 'vmcall', 'vmlaunch', 'vmresume', 'vmxoff', 'monitor', 'mwait',
  'clac', 'stac', 'encls', 'enclu', 'enclv', 'xgetbv', 'xsetbv', 'vmfunc', 'xend', 'xtest', 'rdpkru', 'wrpkru', 'vmrun', 'vmmcall', 'vmload', 'vmsave',
  'stgi', 'clgi', 'skinit', 'invlpga', 'clzero', 'monitorx', 'mwaitx', 'serialize', 'xsusldtrk', 'xresldtrk', 'uiret', 'testui', 'clui', 'stui',
  'tdcall', 'seamcall', 'seamret', 'seamops', 'wrmsrns', 'rdpru', 'invlpgb', 'tlbsync', 'pconfig', 'psmash', 'pvalidate', 'rmpadjust', 'rmpupdate', 'rdmsrlist', 'wrmsrlist', 'erets', 'eretu', 'lkgs',
]);
