// An ELF object as objdump shows it: symbols, relocations and instructions, parsed into types. Pure: text in.
// Input is `objdump -t -r -w` (symbols and every relocation section) and `objdump -d -w` (instructions).

export interface ObjSymbol {
  name: string;
  section: string;
  value: number;
  size: number;
  /** 'O' object, 'F' function, 'd' section symbol, ... (objdump's type column, or ' '). */
  kind: string;
}

export interface Relocation {
  offset: number;
  type: string;
  symbol: string;
  addend: number;
}

export interface Instruction {
  address: number;
  bytes: string;
  length: number;
  mnemonic: string;
  operands: string;
  /** The function label objdump printed last before it (`<name>`). */
  function: string;
}

export interface ObjectCode {
  symbols: ObjSymbol[];
  /** Relocations per section they apply to (".text", "__jump_table", ...). */
  relocations: Map<string, Relocation[]>;
  /** Instructions per executable section, in address order. */
  instructions: Map<string, Instruction[]>;
}

export function parseObjectCode(symbolsAndRelocs: string, disassembly: string): ObjectCode {
  return { symbols: parseSymbols(symbolsAndRelocs), relocations: parseRelocations(symbolsAndRelocs), instructions: parseDisassembly(disassembly) };
}

/** `0000000000000010 l     O .data..ro_after_init\t0000000000000010 name` */
const SYMBOL = /^([0-9a-f]+) (.{7}) (\S+)\t([0-9a-f]+) +(.*)$/;

export function parseSymbols(text: string): ObjSymbol[] {
  const out: ObjSymbol[] = [];
  for (const line of sectionOf(text, /^SYMBOL TABLE:$/)) {
    const m = SYMBOL.exec(line);
    if (!m) continue;
    out.push({ name: m[5]!.trim(), section: m[3]!, value: parseInt(m[1]!, 16), size: parseInt(m[4]!, 16), kind: m[2]![6]! });
  }
  return out;
}

/** `0000000000000028 R_X86_64_PC64     .data..ro_after_init+0x0000000000000012` */
const RELOC = /^([0-9a-f]+) (\S+)\s+(\S+?)(?:([+-])0x([0-9a-f]+))?$/;

export function parseRelocations(text: string): Map<string, Relocation[]> {
  const out = new Map<string, Relocation[]>();
  let current: Relocation[] | undefined;
  for (const line of text.split('\n')) {
    const head = /^RELOCATION RECORDS FOR \[(.+)\]:$/.exec(line);
    if (head) {
      out.set(head[1]!, (current = []));
      continue;
    }
    const m = current && RELOC.exec(line);
    if (!m || !current) continue;
    const addend = m[5] ? parseInt(m[5], 16) * (m[4] === '-' ? -1 : 1) : 0;
    current.push({ offset: parseInt(m[1]!, 16), type: m[2]!, symbol: m[3]!, addend });
  }
  return out;
}

/** `    8f2:\t66 90                \txchg   %ax,%ax` */
const INSN = /^ *([0-9a-f]+):\t([0-9a-f]{2}(?: [0-9a-f]{2})*) *\t?(.*)$/;

export function parseDisassembly(text: string): Map<string, Instruction[]> {
  const out = new Map<string, Instruction[]>();
  let section: Instruction[] = [];
  let fn = '';
  for (const line of text.split('\n')) {
    const sec = /^Disassembly of section (.+):$/.exec(line);
    if (sec) {
      out.set(sec[1]!, (section = []));
      fn = '';
      continue;
    }
    const label = /^[0-9a-f]+ <(.+)>:$/.exec(line);
    if (label) {
      fn = label[1]!;
      continue;
    }
    const m = INSN.exec(line);
    if (!m) continue;
    const [mnemonic = '', ...rest] = m[3]!.trim().split(/\s+/);
    const bytes = m[2]!;
    section.push({ address: parseInt(m[1]!, 16), bytes, length: bytes.split(' ').length, mnemonic, operands: rest.join(' '), function: fn });
  }
  return out;
}

function sectionOf(text: string, start: RegExp): string[] {
  const lines = text.split('\n');
  const from = lines.findIndex((l) => start.test(l));
  if (from < 0) return [];
  const rest = lines.slice(from + 1);
  const end = rest.findIndex((l) => l.trim() === '');
  return end < 0 ? rest : rest.slice(0, end);
}

/** Where a relocation points: a section and an offset in it, or an external symbol. */
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

/** A function's name without the suffixes gcc adds to its clones and split parts (.cold, .part.0, .isra.0, ...). */
export function baseFunction(name: string): string {
  return name.replace(/\.(cold|part|isra|constprop|lto_priv|localalias)(\.\d+)?/g, '');
}
