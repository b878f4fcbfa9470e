// Where a top-level definition sits in a C file, by its name: a function's or a struct's lines, from the first line of
// its declaration (return type, storage class, attributes; not the comment above it) to the line of its closing
// brace (a struct: its `};`). Recipes anchor edits on these so that they survive changes around the definition.
import { CFile } from './functions.js';
import { LineIndex, readC } from './text.js';

export interface DefinitionLines {
  /** 0-based line of the declaration's start, and of the closing brace. */
  first: number;
  last: number;
}

/** Lines of the function `name` defined in `text`, or undefined when the file defines no function of that name. */
export function functionLines(file: string, text: string, name: string): DefinitionLines | undefined {
  const cf = new CFile(file, text);
  const def = cf.functions.get(name);
  if (!def) return undefined;
  return { first: cf.lines.lineOf(declarationStart(cf.masked, def.at)) - 1, last: cf.lines.lineOf(def.close) - 1 };
}

/** Lines of `struct name { ... };` at file scope, or undefined. */
export function structLines(text: string, name: string): DefinitionLines | undefined {
  const { masked, blocks } = readC(text);
  const lines = new LineIndex(text);
  const re = new RegExp(`\\bstruct\\s+${name}\\s*(?:__\\w+(?:\\([^)]*\\))?\\s*)*\\{`, 'g');
  for (const m of masked.matchAll(re)) {
    if (!blocks.isTopLevel(m.index!)) continue;
    const open = m.index! + m[0].length - 1;
    const close = [...blocks.spans()].find(([o]) => o === open)?.[1];
    if (close === undefined) continue;
    const semi = masked.indexOf(';', close);
    return { first: lines.lineOf(declarationStart(masked, m.index!)) - 1, last: lines.lineOf(semi < 0 ? close : semi) - 1 };
  }
  return undefined;
}

/** The first non-blank offset after the statement, block or preprocessor line before `at`: where a declaration starts. */
function declarationStart(masked: string, at: number): number {
  let i = at;
  while (i > 0) {
    const c = masked[i - 1]!;
    if (c === ';' || c === '}' || c === '{') break;
    if (c === '\n' && /^[ \t]*#/.test(lineFrom(masked, i))) break;
    i--;
  }
  // i sits after the terminator (or at a preprocessor line, which is not part of the declaration).
  while (i < at) {
    const line = lineFrom(masked, i);
    if (/^\s*$/.test(line) || /^[ \t]*#/.test(line)) i += line.length + 1;
    else break;
  }
  while (i < at && /\s/.test(masked[i]!)) i++;
  return i;
}

/** The text from `at` to the end of its line. */
function lineFrom(masked: string, at: number): string {
  const nl = masked.indexOf('\n', at);
  return masked.slice(at, nl < 0 ? undefined : nl);
}
