// The tests of a flag in object code: each load or compare of the flag's address that feeds a conditional jump, with
// the instructions of that test. The static-key proof compares them with the jump labels after a conversion; measure
// places a kprobe on each to count how often it runs.
import type { Instruction, ObjectCode } from './parse.js';
import { instructionAt, operandTarget, relocationTarget } from './relocations.js';
import { show } from './x86.js';

/** One test of the flag on the fast path before the patch. */
export interface FlagTest {
  function: string;
  /** The section and the offset in it of the test's first instruction. */
  section: string;
  address: number;
  /** The instructions of the test: load/compare, any test, the conditional jump. */
  instructions: string[];
  bytes: number;
}

/** Every instruction that reads the flag and feeds a conditional jump, with the instructions of that test. */
export function flagTests(code: ObjectCode, flag: string): FlagTest[] {
  const sym = code.symbols.find((s) => s.name === flag && s.kind === 'O');
  if (!sym) return [];
  const out: FlagTest[] = [];
  for (const [section, relocs] of code.relocations) {
    const list = code.instructions.get(section);
    if (!list) continue;
    for (const r of relocs) {
      const t = relocationTarget(code, r);
      if (!t || t.section !== sym.section) continue;
      const insn = instructionAt(code, section, r.offset);
      if (!insn) continue;
      const address = operandTarget(code, insn, r)!.offset;
      if (address < sym.value || address >= sym.value + Math.max(sym.size, 1)) continue;
      const test = testFrom(list, list.indexOf(insn));
      if (test) out.push({ function: insn.function, section, address: insn.address, instructions: test.map(show), bytes: test.reduce((n, i) => n + i.length, 0) });
    }
  }
  return out;
}

/** From a load or compare of the flag, the instructions up to the conditional jump that uses it (none: not a test). */
function testFrom(list: Instruction[], at: number): Instruction[] | undefined {
  const first = list[at]!;
  // A store to the flag, or its address moved into a register: not a test.
  if (/^mov/.test(first.mnemonic) && (/\(%rip\)$/.test(lastOperand(first.operands)) || first.operands.startsWith('$'))) return undefined;
  const used = [first];
  for (let j = at + 1; j < list.length && j <= at + 8; j++) {
    const i = list[j]!;
    if (i.function !== first.function || /^(call|ret|jmp)/.test(i.mnemonic)) return undefined;
    if (/^j/.test(i.mnemonic)) return [...used, i];
    if (/^(test|cmp)/.test(i.mnemonic)) used.push(i);
  }
  return undefined;
}

function lastOperand(operands: string): string {
  const parts = operands.split(/,(?![^(]*\))/);
  return parts[parts.length - 1]!.trim();
}

