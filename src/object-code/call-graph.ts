// Who calls whom inside one object, with gcc's clones and split parts counted as their function. Pure.
import type { ObjectCode } from './parse.js';
import { operandRelocations } from './relocations.js';
import { baseFunction } from './symbols.js';

/** Per function present in the object (its parts together): the functions it calls or tail-calls. */
export function callGraph(code: ObjectCode): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [section, list] of code.instructions) {
    const relocs = operandRelocations(code, section);
    for (const [n, i] of list.entries()) {
      const fn = baseFunction(i.function);
      if (!graph.has(fn)) graph.set(fn, new Set());
      if (!/^(call|jmp)/.test(i.mnemonic)) continue;
      const named = /<([^>+]+)>$/.exec(i.operands)?.[1];
      if (named && baseFunction(named) !== fn) graph.get(fn)!.add(baseFunction(named));
      const r = relocs[n];
      if (r) graph.get(fn)!.add(baseFunction(r.symbol));
    }
  }
  return graph;
}
