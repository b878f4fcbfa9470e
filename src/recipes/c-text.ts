// Small lexical helpers for reading C text without a parser: masking, brace depth, line numbers.

/** Comments, and string or character literals (an unterminated one ends at the line's end). */
const COMMENT_OR_LITERAL = /\/\*[\s\S]*?(?:\*\/|$(?![\s\S]))|\/\/[^\n]*|"(?:\\[\s\S]|[^"\\\n])*"?|'(?:\\[\s\S]|[^'\\\n])*'?/g;

/** The text with comments, string and character literals blanked (newlines and quotes kept), so offsets still match. */
export function maskC(text: string): string {
  return text.replace(COMMENT_OR_LITERAL, (m) => {
    if (m[0] === '/') return m.replace(/[^\n]/g, ' ');
    const closed = m.length > 1 && m[m.length - 1] === m[0];
    const inner = m.slice(1, closed ? -1 : undefined).replace(/[^\n]/g, ' ');
    return closed ? `${m[0]}${inner}${m[0]}` : `${m[0]}${inner}`;
  });
}

/** Brace depth at every offset of masked text (the depth before the character at that offset). */
export function braceDepths(masked: string): Int32Array {
  const depth = new Int32Array(masked.length + 1);
  let d = 0;
  for (let i = 0; i < masked.length; i++) {
    depth[i] = d;
    if (masked[i] === '{') d++;
    else if (masked[i] === '}') d = Math.max(0, d - 1);
  }
  depth[masked.length] = d;
  return depth;
}

/** Offsets where `word` occurs as a whole identifier. */
export function findIdentifier(masked: string, word: string): number[] {
  const re = new RegExp(`(?<![A-Za-z0-9_])${word}(?![A-Za-z0-9_])`, 'g');
  return [...masked.matchAll(re)].map((m) => m.index!);
}

export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(private readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text[i] === '\n') this.starts.push(i + 1);
  }
  /** 1-based line of an offset. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
  lineText(line: number): string {
    const start = this.starts[line - 1] ?? this.text.length;
    const end = this.text.indexOf('\n', start);
    return this.text.slice(start, end < 0 ? this.text.length : end);
  }
  lineStart(line: number): number {
    return this.starts[line - 1] ?? this.text.length;
  }
}

/** Index of the previous non-space character before `from`, or -1. */
export function prevNonSpace(masked: string, from: number): number {
  let i = from - 1;
  while (i >= 0 && /\s/.test(masked[i]!)) i--;
  return i;
}

/** Index of the next non-space character at or after `from`, or masked.length. */
export function nextNonSpace(masked: string, from: number): number {
  let i = from;
  while (i < masked.length && /\s/.test(masked[i]!)) i++;
  return i;
}

/** The identifier that ends at `end` (inclusive), or ''. */
export function wordEndingAt(masked: string, end: number): string {
  let s = end;
  while (s >= 0 && /[A-Za-z0-9_]/.test(masked[s]!)) s--;
  return masked.slice(s + 1, end + 1);
}

/** Offset of the `(` that encloses `from` at paren depth 0 going left, or -1. */
export function enclosingParen(masked: string, from: number): number {
  let depth = 0;
  for (let i = from - 1; i >= 0; i--) {
    const c = masked[i];
    if (c === ')') depth++;
    else if (c === '(') {
      if (depth === 0) return i;
      depth--;
    } else if ((c === ';' || c === '{' || c === '}') && depth === 0) return -1;
  }
  return -1;
}

/** Name of the function whose body holds `at` (the identifier before the parameter list of its top-level block). */
export function enclosingFunction(masked: string, depth: Int32Array, at: number): string | undefined {
  let open = at;
  while (open >= 0 && !(masked[open] === '{' && depth[open] === 0)) open--;
  if (open < 0) return undefined;
  const close = prevNonSpace(masked, open);
  if (masked[close] !== ')') return undefined;
  let d = 0;
  for (let i = close; i >= 0; i--) {
    if (masked[i] === ')') d++;
    else if (masked[i] === '(' && --d === 0) return wordEndingAt(masked, prevNonSpace(masked, i)) || undefined;
  }
  return undefined;
}
