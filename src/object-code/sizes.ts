// What an object costs in memory, as `size -A` counts it: its allocated sections (SHF_ALLOC), grouped into code, the
// jump-label table and data, and how a patch changes them; and the strings it holds. Pure: section headers in,
// figures out.
import { createHash } from 'node:crypto';
import type { ObjectCode } from './parse.js';

const SHF_ALLOC = 0x2;
const SHF_EXECINSTR = 0x4;
const SHF_MERGE = 0x10;
const SHF_STRINGS = 0x20;
const SHT_NOBITS = 8;

/** Allocated bytes of one object: code (every executable section), `__jump_table`, the rest (data, rodata, bss, tables). */
export interface SectionTotals {
  text: number;
  jumpTable: number;
  data: number;
  total: number;
}

/** The object's allocated sections in groups; undefined when its section headers were not read. */
export function sectionTotals(code: Pick<ObjectCode, 'sections'>): SectionTotals | undefined {
  if (!code.sections) return undefined;
  const t: SectionTotals = { text: 0, jumpTable: 0, data: 0, total: 0 };
  for (const s of code.sections) {
    if ((s.flags & SHF_ALLOC) === 0) continue;
    if (s.name === '__jump_table') t.jumpTable += s.size;
    else if (s.flags & SHF_EXECINSTR) t.text += s.size;
    else t.data += s.size;
    t.total += s.size;
  }
  return t;
}

/** One object before and after a patch, built with the same configuration. */
export interface ObjectSize {
  object: string;
  before: SectionTotals;
  after: SectionTotals;
  /**
   * The strings of its mergeable string sections (`.rodata.str1.1`: the literals it prints) the patch adds and
   * removes; both empty when the object holds the same strings (a clean-up that prints what it printed).
   */
  strings?: { added: string[]; removed: string[] };
  /** Its executable sections hold the same bytes before and after (relocations aside). */
  sameCode?: boolean;
}

/** The strings of an object's mergeable string sections (SHF_MERGE | SHF_STRINGS), each once, sorted. */
export function mergedStrings(image: Buffer, sections: { name: string; type: number; flags: number; offset: number; size: number }[]): string[] {
  const out = new Set<string>();
  for (const s of sections) {
    if ((s.flags & (SHF_MERGE | SHF_STRINGS)) !== (SHF_MERGE | SHF_STRINGS) || s.type === SHT_NOBITS) continue;
    for (const text of image.subarray(s.offset, s.offset + s.size).toString('latin1').split('\0')) if (text) out.add(text);
  }
  return [...out].sort();
}

/** A digest of the bytes of an object's executable sections (RELA relocations keep their targets out of them). */
export function codeBytesDigest(image: Buffer, sections: { type: number; flags: number; offset: number; size: number }[]): string {
  const hash = createHash('sha1');
  for (const s of sections) if (s.flags & SHF_EXECINSTR && s.type !== SHT_NOBITS) hash.update(image.subarray(s.offset, s.offset + s.size));
  return hash.digest('hex');
}

/** What `after` holds of `before`'s strings: those added, those gone. */
export function stringChanges(before: string[], after: string[]): { added: string[]; removed: string[] } {
  const was = new Set(before);
  const now = new Set(after);
  return { added: after.filter((x) => !was.has(x)), removed: before.filter((x) => !now.has(x)) };
}

/** "text 51234 -> 51218 (-16), __jump_table 0 -> 32 (+32), data 1234 -> 1250 (+16); in all +32 bytes" */
export function sizeLine(s: ObjectSize): string {
  const part = (name: string, b: number, a: number) => `${name} ${b} -> ${a} (${signed(a - b)})`;
  return [
    part('text', s.before.text, s.after.text),
    part('__jump_table', s.before.jumpTable, s.after.jumpTable),
    part('data', s.before.data, s.after.data),
  ].join(', ') + `; in all ${signed(s.after.total - s.before.total)} bytes`;
}

export function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}

/** The same figures as aligned rows, for a commit message (whose lines checkpatch keeps under 75 columns). */
export function sizeRows(s: ObjectSize): string[] {
  const rows: [string, number, number][] = [
    ['text', s.before.text, s.after.text],
    ['__jump_table', s.before.jumpTable, s.after.jumpTable],
    ['data', s.before.data, s.after.data],
    ['in all', s.before.total, s.after.total],
  ];
  const w = (i: 1 | 2) => Math.max(...rows.map((r) => String(r[i]).length));
  return rows.map(([name, b, a]) => `${name.padEnd(12)} ${String(b).padStart(w(1))} -> ${String(a).padStart(w(2))} (${signed(a - b)})`);
}

/** Several objects' figures added up, as one "object" named by their count. */
export function totalSize(list: ObjectSize[]): ObjectSize {
  const add = (pick: (s: ObjectSize) => SectionTotals): SectionTotals => ({
    text: list.reduce((n, s) => n + pick(s).text, 0),
    jumpTable: list.reduce((n, s) => n + pick(s).jumpTable, 0),
    data: list.reduce((n, s) => n + pick(s).data, 0),
    total: list.reduce((n, s) => n + pick(s).total, 0),
  });
  return { object: `${list.length} objects`, before: add((s) => s.before), after: add((s) => s.after) };
}
