// The section table of an ELF64 little-endian object (the kernel's x86-64 objects), and a section's bytes.
// objdump prints instructions, symbols and relocations; a table's plain numbers (an alternative's length) are read here.
import { ToolFailedError } from '../errors.js';

export interface ElfSection {
  name: string;
  /** SHT_* */
  type: number;
  /** SHF_* */
  flags: number;
  offset: number;
  size: number;
}

const SHT_NOBITS = 8;
const SHF_EXECINSTR = 0x4;

export function elfSections(file: string, image: Buffer): ElfSection[] {
  if (image.length < 64 || image.readUInt32BE(0) !== 0x7f454c46 || image[4] !== 2 || image[5] !== 1) {
    throw new ToolFailedError(`${file} is not a 64-bit little-endian ELF object`, 'give an x86-64 object file (.o) of a kernel build');
  }
  const shoff = Number(image.readBigUInt64LE(0x28));
  const shentsize = image.readUInt16LE(0x3a);
  const shnum = image.readUInt16LE(0x3c);
  const shstrndx = image.readUInt16LE(0x3e);
  const header = (n: number) => {
    const at = shoff + n * shentsize;
    return {
      nameAt: image.readUInt32LE(at),
      type: image.readUInt32LE(at + 4),
      flags: Number(image.readBigUInt64LE(at + 8)),
      offset: Number(image.readBigUInt64LE(at + 0x18)),
      size: Number(image.readBigUInt64LE(at + 0x20)),
    };
  };
  const names = header(shstrndx);
  const nameOf = (at: number) => {
    const start = names.offset + at;
    return image.toString('latin1', start, image.indexOf(0, start));
  };
  const out: ElfSection[] = [];
  for (let n = 1; n < shnum; n++) {
    const h = header(n);
    out.push({ name: nameOf(h.nameAt), type: h.type, flags: h.flags, offset: h.offset, size: h.size });
  }
  return out;
}

export function isCodeSection(s: ElfSection): boolean {
  return (s.flags & SHF_EXECINSTR) !== 0;
}

/** The bytes of the named sections that exist and hold data. */
export function sectionContents(image: Buffer, sections: ElfSection[], names: string[]): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const s of sections) if (names.includes(s.name) && s.type !== SHT_NOBITS) out.set(s.name, image.subarray(s.offset, s.offset + s.size));
  return out;
}
