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

/** The relocation's symbol without objdump's `+0x..` (for an undefined function: its name). */
export function relocationSymbol(r: Relocation): string {
  return r.symbol.replace(/[-+]0x[0-9a-f]+$/, '');
}

/** The instruction of `section` that covers `address`. */
export function instructionAt(code: ObjectCode, section: string, address: number): Instruction | undefined {
  const list = code.instructions.get(section);
  if (!list) return undefined;
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const i = list[mid]!;
    if (address < i.address) hi = mid - 1;
    else if (address >= i.address + i.length) lo = mid + 1;
    else return i;
  }
  return undefined;
}

/** The instruction that starts exactly at a target, if one does. */
export function instructionStartingAt(code: ObjectCode, t: Target): Instruction | undefined {
  const i = instructionAt(code, t.section, t.offset);
  return i && i.address === t.offset ? i : undefined;
}

/** The relocation inside an instruction (its operand), looked up by offset: made once per section. */
export function relocationsOf(code: ObjectCode, section: string): (i: Instruction) => Relocation | undefined {
  const at = new Map((code.relocations.get(section) ?? []).map((r) => [r.offset, r]));
  return (i) => {
    for (let o = i.address + 1; o < i.address + i.length; o++) {
      const r = at.get(o);
      if (r) return r;
    }
    return undefined;
  };
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
