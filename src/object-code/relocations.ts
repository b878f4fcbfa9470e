// Relocations resolved to places in the object: a symbol+addend to a section and offset, the relocation inside an
// instruction's operand, and the address a PC-relative operand names. Pure.
import type { Instruction, ObjectCode, ObjSymbol, Relocation } from './parse.js';

/** Where a relocation points: a section and an offset in it. */
export interface Target {
  section: string;
  offset: number;
}

/** Defined symbols by name, made once per symbol table: every relocation of an object is resolved through it. */
const DEFINED = new WeakMap<ObjSymbol[], Map<string, ObjSymbol>>();

function definedSymbols(code: ObjectCode): Map<string, ObjSymbol> {
  let byName = DEFINED.get(code.symbols);
  if (!byName) {
    byName = new Map();
    for (const s of code.symbols) if ((s.kind === 'd' || s.section !== '*UND*') && !byName.has(s.name)) byName.set(s.name, s);
    DEFINED.set(code.symbols, byName);
  }
  return byName;
}

/** Resolve a relocation's symbol+addend to a place in this object (undefined for undefined symbols). */
export function relocationTarget(code: ObjectCode, r: Relocation): Target | undefined {
  const sym = definedSymbols(code).get(r.symbol);
  if (!sym || sym.section === '*UND*' || sym.section === '*ABS*') return undefined;
  return { section: sym.section, offset: (sym.kind === 'd' ? 0 : sym.value) + r.addend };
}

/** The index of the first instruction of `list` (in address order) that starts at or after `address`. */
export function firstInstructionFrom(list: Instruction[], address: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.address < address) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The index of the instruction of `list` that covers `address`, or -1. */
export function instructionIndexAt(list: Instruction[], address: number): number {
  const n = firstInstructionFrom(list, address + 1) - 1;
  const i = list[n];
  return i && address < i.address + i.length ? n : -1;
}

/** The instruction of `section` that covers `address`. */
export function instructionAt(code: ObjectCode, section: string, address: number): Instruction | undefined {
  const list = code.instructions.get(section);
  const n = list ? instructionIndexAt(list, address) : -1;
  return n < 0 ? undefined : list![n];
}

/** The instruction that starts exactly at a target, if one does. */
export function instructionStartingAt(code: ObjectCode, t: Target): Instruction | undefined {
  const i = instructionAt(code, t.section, t.offset);
  return i && i.address === t.offset ? i : undefined;
}

/**
 * Per instruction of a code section (same index), the relocation inside it (its operand, after the opcode byte):
 * the section's instructions and relocations walked together in address order.
 */
export function operandRelocations(code: ObjectCode, section: string): (Relocation | undefined)[] {
  const insns = code.instructions.get(section) ?? [];
  const all = code.relocations.get(section) ?? [];
  const relocs = all.some((r, k) => k > 0 && r.offset < all[k - 1]!.offset) ? [...all].sort((a, b) => a.offset - b.offset) : all;
  const out: (Relocation | undefined)[] = new Array(insns.length);
  let k = 0;
  for (let n = 0; n < insns.length; n++) {
    const i = insns[n]!;
    while (k < relocs.length && relocs[k]!.offset <= i.address) k++;
    out[n] = k < relocs.length && relocs[k]!.offset < i.address + i.length ? relocs[k] : undefined;
  }
  return out;
}

/**
 * The place an operand's relocation names. A PC-relative operand (a jump, a call, a %rip-relative address) adds the
 * distance from the relocated field to the end of the instruction (`S + A - P` measured from the next instruction).
 */
export function operandTarget(code: ObjectCode, i: Instruction, r: Relocation): Target | undefined {
  const t = relocationTarget(code, r);
  if (!t) return undefined;
  return /PC|PLT/.test(r.type) ? { section: t.section, offset: t.offset + i.address + i.length - r.offset } : t;
}
