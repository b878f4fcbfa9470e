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
  /** The bytes of the sections whose contents matter beyond relocations (e.g. `.altinstructions`), when read. */
  contents?: Map<string, Buffer>;
  /** Every section's name, size and SHF_* flags, when read from the ELF file (object-code/sizes.ts). */
  sections?: { name: string; size: number; flags: number }[];
}

export function parseObjectCode(symbolsAndRelocs: string, disassembly: string, contents?: Map<string, Buffer>): ObjectCode {
  return { symbols: parseSymbols(symbolsAndRelocs), relocations: parseRelocations(symbolsAndRelocs), instructions: parseDisassembly(disassembly), contents };
}

/** `0000000000000010 l     O .data..ro_after_init\t0000000000000010 name` */
const SYMBOL = /^([0-9a-f]+) (.{7}) (\S+)\t([0-9a-f]+) +(.*)$/;

export function parseSymbols(text: string): ObjSymbol[] {
  const out: ObjSymbol[] = [];
  for (const line of sectionOf(text, /^SYMBOL TABLE:$/)) {
    const m = SYMBOL.exec(line);
    if (!m) continue;
    const flags = m[2]!;
    // Column 7 is F (function), f (file) or O (object); a section symbol has d in column 6 and a blank there.
    const kind = flags[6] !== ' ' ? flags[6]! : flags[5] === 'd' ? 'd' : ' ';
    // objdump puts a symbol's visibility before its name: `.hidden _vdso_data`.
    const name = m[5]!.trim().replace(/^\.(hidden|protected|internal) /, '');
    out.push({ name, section: m[3]!, value: parseInt(m[1]!, 16), size: parseInt(m[4]!, 16), kind });
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

export function parseDisassembly(text: string): Map<string, Instruction[]> {
  const parser = new DisassemblyParser();
  for (const line of text.split('\n')) parser.line(line);
  return parser.finish();
}

/**
 * `objdump -d -w` line by line, so that a long listing is parsed while objdump still writes it. Without raw bytes an
 * instruction's length is the distance to the next one; the last of a section takes `sectionSizes`.
 */
export class DisassemblyParser {
  private readonly out = new Map<string, Instruction[]>();
  private section: Instruction[] = [];
  private sectionName = '';
  private fn = '';

  constructor(private readonly sectionSizes?: Map<string, number>) {}

  /** One line of the listing: `    8f2:\t66 90                \txchg   %ax,%ax` (raw bytes optional), a label, a section. */
  line(line: string): void {
    const c = line.charCodeAt(0);
    if (c === 32 /* ' ' */) {
      const colon = line.indexOf(':\t');
      if (colon < 0) return;
      const address = parseInt(line.slice(0, colon), 16);
      let textAt = colon + 2;
      let bytes = '';
      const tab = line.indexOf('\t', textAt);
      // With -w every instruction is one line: raw bytes, a tab, the instruction; or, without raw bytes, the instruction.
      if (tab >= 0) {
        bytes = line.slice(textAt, tab).trimEnd();
        textAt = tab + 1;
      }
      const last = this.section[this.section.length - 1];
      if (last && last.length === 0) last.length = address - last.address;
      const space = line.indexOf(' ', textAt);
      this.section.push({
        address,
        bytes,
        length: bytes ? (bytes.length + 1) / 3 : 0,
        mnemonic: space < 0 ? line.slice(textAt).trimEnd() : line.slice(textAt, space),
        operands: space < 0 ? '' : line.slice(space + 1).trim(),
        function: this.fn,
      });
      return;
    }
    if (c === 68 /* 'D' */) {
      const sec = /^Disassembly of section (.+):$/.exec(line);
      if (!sec) return;
      this.closeSection();
      this.sectionName = sec[1]!;
      this.out.set(this.sectionName, (this.section = []));
      this.fn = '';
      return;
    }
    if (line.endsWith('>:')) {
      const at = line.indexOf(' <');
      if (at > 0) this.fn = line.slice(at + 2, -2);
    }
  }

  finish(): Map<string, Instruction[]> {
    this.closeSection();
    return this.out;
  }

  private closeSection(): void {
    const last = this.section[this.section.length - 1];
    const size = this.sectionSizes?.get(this.sectionName);
    if (last && last.length === 0 && size !== undefined) last.length = size - last.address;
  }
}

function sectionOf(text: string, start: RegExp): string[] {
  const lines = text.split('\n');
  const from = lines.findIndex((l) => start.test(l));
  if (from < 0) return [];
  const rest = lines.slice(from + 1);
  const end = rest.findIndex((l) => l.trim() === '');
  return end < 0 ? rest : rest.slice(0, end);
}
