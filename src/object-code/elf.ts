// An ELF64 little-endian relocatable object (the kernel's x86-64 objects), read directly: its sections, their bytes,
// the symbol table and the relocations, in the same types objdump's listings are parsed into. objdump prints the
// instructions; the tables are plain records, read here without a second program.
import { ToolFailedError } from '../errors.js';
import type { ObjSymbol, Relocation } from './parse.js';

export interface ElfSection {
  name: string;
  /** SHT_* */
  type: number;
  /** SHF_* */
  flags: number;
  offset: number;
  size: number;
  link: number;
  info: number;
}

const SHT_SYMTAB = 2;
const SHT_RELA = 4;
const SHT_NOBITS = 8;
const SHT_SYMTAB_SHNDX = 18;
const SHN_UNDEF = 0;
const SHN_LORESERVE = 0xff00;
const SHN_ABS = 0xfff1;
const SHN_COMMON = 0xfff2;
const SHN_XINDEX = 0xffff;

export function elfSections(file: string, image: Buffer): ElfSection[] {
  if (image.length < 64 || image.readUInt32BE(0) !== 0x7f454c46 || image[4] !== 2 || image[5] !== 1) {
    throw new ToolFailedError(`${file} is not a 64-bit little-endian ELF object`, 'give an x86-64 object file (.o) of a kernel build');
  }
  const shoff = Number(image.readBigUInt64LE(0x28));
  const shentsize = image.readUInt16LE(0x3a);
  const header = (n: number) => {
    const at = shoff + n * shentsize;
    return {
      nameAt: image.readUInt32LE(at),
      type: image.readUInt32LE(at + 4),
      flags: Number(image.readBigUInt64LE(at + 8)),
      offset: Number(image.readBigUInt64LE(at + 0x18)),
      size: Number(image.readBigUInt64LE(at + 0x20)),
      link: image.readUInt32LE(at + 0x28),
      info: image.readUInt32LE(at + 0x2c),
    };
  };
  // With 0xff00 sections or more, the counts live in section 0.
  const zero = header(0);
  const shnum = image.readUInt16LE(0x3c) || zero.size;
  const shstrndx = image.readUInt16LE(0x3e) === SHN_XINDEX ? zero.link : image.readUInt16LE(0x3e);
  const names = header(shstrndx);
  const out: ElfSection[] = [{ name: '', type: 0, flags: 0, offset: 0, size: 0, link: 0, info: 0 }];
  for (let n = 1; n < shnum; n++) {
    const h = header(n);
    out.push({ name: cString(image, names.offset + h.nameAt), type: h.type, flags: h.flags, offset: h.offset, size: h.size, link: h.link, info: h.info });
  }
  return out;
}

/** The bytes of the named sections that exist and hold data. */
export function sectionContents(image: Buffer, sections: ElfSection[], names: string[]): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const s of sections) if (names.includes(s.name) && s.type !== SHT_NOBITS) out.set(s.name, image.subarray(s.offset, s.offset + s.size));
  return out;
}

/** objdump's type column for an ELF symbol type (STT_*). */
const KIND: Record<number, string> = { 0: ' ', 1: 'O', 2: 'F', 3: 'd', 4: 'f', 5: 'O', 6: 'O', 10: 'F' };

/** The symbol table, as `objdump -t` lists it (without the null symbol), and each symbol's name by index. */
export function elfSymbols(image: Buffer, sections: ElfSection[]): { symbols: ObjSymbol[]; byIndex: string[] } {
  const table = sections.find((s) => s.type === SHT_SYMTAB);
  if (!table) return { symbols: [], byIndex: [] };
  const strings = sections[table.link]!;
  const indexOf = sections.findIndex((s) => s.type === SHT_SYMTAB_SHNDX && s.link === sections.indexOf(table));
  const symbols: ObjSymbol[] = [];
  const byIndex: string[] = [''];
  for (let n = 1; n < table.size / 24; n++) {
    const at = table.offset + n * 24;
    const info = image[at + 4]!;
    let shndx = image.readUInt16LE(at + 6);
    if (shndx === SHN_XINDEX && indexOf > 0) shndx = image.readUInt32LE(sections[indexOf]!.offset + n * 4);
    const section = shndx === SHN_UNDEF ? '*UND*' : shndx === SHN_ABS ? '*ABS*' : shndx === SHN_COMMON ? '*COM*' : shndx >= SHN_LORESERVE ? '*UND*' : sections[shndx]!.name;
    const kind = KIND[info & 0xf] ?? ' ';
    const name = kind === 'd' ? section : cString(image, strings.offset + image.readUInt32LE(at));
    byIndex.push(name);
    symbols.push({ name, section, value: Number(image.readBigUInt64LE(at + 8)), size: Number(image.readBigUInt64LE(at + 16)), kind });
  }
  return { symbols, byIndex };
}

/**
 * The exact value of each symbol of elfSymbols(), in the same order: a kernel address (0xffffffff8...) does not fit a
 * JavaScript number without losing its low bits.
 */
export function elfSymbolValues(image: Buffer, sections: ElfSection[]): bigint[] {
  const table = sections.find((s) => s.type === SHT_SYMTAB);
  if (!table) return [];
  const out: bigint[] = [];
  for (let n = 1; n < table.size / 24; n++) out.push(image.readBigUInt64LE(table.offset + n * 24 + 8));
  return out;
}

/** x86-64 relocation types by number, named as objdump names them. */
const RELOCATION_TYPES = [
  'R_X86_64_NONE', 'R_X86_64_64', 'R_X86_64_PC32', 'R_X86_64_GOT32', 'R_X86_64_PLT32', 'R_X86_64_COPY', 'R_X86_64_GLOB_DAT', 'R_X86_64_JUMP_SLOT',
  'R_X86_64_RELATIVE', 'R_X86_64_GOTPCREL', 'R_X86_64_32', 'R_X86_64_32S', 'R_X86_64_16', 'R_X86_64_PC16', 'R_X86_64_8', 'R_X86_64_PC8',
  'R_X86_64_DTPMOD64', 'R_X86_64_DTPOFF64', 'R_X86_64_TPOFF64', 'R_X86_64_TLSGD', 'R_X86_64_TLSLD', 'R_X86_64_DTPOFF32', 'R_X86_64_GOTTPOFF',
  'R_X86_64_TPOFF32', 'R_X86_64_PC64', 'R_X86_64_GOTOFF64', 'R_X86_64_GOTPC32', 'R_X86_64_GOT64', 'R_X86_64_GOTPCREL64', 'R_X86_64_GOTPC64',
  'R_X86_64_GOTPLT64', 'R_X86_64_PLTOFF64', 'R_X86_64_SIZE32', 'R_X86_64_SIZE64', 'R_X86_64_GOTPC32_TLSDESC', 'R_X86_64_TLSDESC_CALL',
  'R_X86_64_TLSDESC', 'R_X86_64_IRELATIVE', 'R_X86_64_RELATIVE64', 'R_X86_64_PC32_BND', 'R_X86_64_PLT32_BND', 'R_X86_64_GOTPCRELX', 'R_X86_64_REX_GOTPCRELX',
];

/** Every RELA section's relocations, keyed by the section they apply to, as `objdump -r` lists them. */
export function elfRelocations(image: Buffer, sections: ElfSection[], symbolNames: string[]): Map<string, Relocation[]> {
  const out = new Map<string, Relocation[]>();
  for (const s of sections) {
    if (s.type !== SHT_RELA) continue;
    const list: Relocation[] = [];
    for (let at = s.offset; at + 24 <= s.offset + s.size; at += 24) {
      const info = image.readBigUInt64LE(at + 8);
      const type = Number(info & 0xffffffffn);
      list.push({ offset: Number(image.readBigUInt64LE(at)), type: RELOCATION_TYPES[type] ?? `R_X86_64_${type}`, symbol: symbolNames[Number(info >> 32n)] ?? '', addend: Number(image.readBigInt64LE(at + 16)) });
    }
    out.set(sections[s.info]!.name, list);
  }
  return out;
}

function cString(image: Buffer, start: number): string {
  return image.toString('latin1', start, image.indexOf(0, start));
}
