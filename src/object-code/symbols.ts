// Functions of an object: gcc's names for their clones and split parts, and the function that holds an address.
import type { ObjectCode, ObjSymbol } from './parse.js';

/** A function's name without the suffixes gcc adds to its clones and split parts (.cold, .part.0, .isra.0, ...). */
export function baseFunction(name: string): string {
  return name.replace(/\.(cold|part|isra|constprop|lto_priv|localalias)(\.\d+)?/g, '');
}

/** The function symbols of an object by section, sorted by address (made once per symbol table). */
const FUNCTIONS = new WeakMap<ObjSymbol[], Map<string, ObjSymbol[]>>();

export function functionsBySection(code: ObjectCode): Map<string, ObjSymbol[]> {
  let out = FUNCTIONS.get(code.symbols);
  if (!out) {
    out = new Map();
    for (const s of code.symbols) {
      if (s.kind !== 'F' || s.section === '*UND*') continue;
      if (!out.has(s.section)) out.set(s.section, []);
      out.get(s.section)!.push(s);
    }
    for (const list of out.values()) list.sort((a, b) => a.value - b.value);
    FUNCTIONS.set(code.symbols, out);
  }
  return out;
}

/** The function symbol of `section` whose [value, value+size) holds `address`. */
export function functionAt(code: ObjectCode, section: string, address: number): ObjSymbol | undefined {
  const list = functionsBySection(code).get(section);
  if (!list) return undefined;
  let lo = 0;
  let hi = list.length - 1;
  let found: ObjSymbol | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.value <= address) {
      found = list[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found && address < found.value + Math.max(found.size, 1) ? found : undefined;
}
