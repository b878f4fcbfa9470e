// Small lexical helpers for reading C text without a parser: masking, brace depth, line numbers.

/** The text with comments, string and character literals blanked (newlines and quotes kept), so offsets still match. */
export function maskC(text: string): string {
  return readC(text).masked;
}

const UTF16 = new TextDecoder('utf-16le');
/** The masked characters are written here, reused from file to file (a scan reads thousands). */
let scratch = new Uint16Array(1 << 16);
const [NL, SPACE, QUOTE, APOSTROPHE, SLASH, STAR, BACKSLASH, OPEN, CLOSE] = [10, 32, 34, 39, 47, 42, 92, 123, 125];

/**
 * One pass over C text: the masked text (see maskC; an unterminated literal ends at its line's end) and the top-level
 * brace blocks (function bodies, initializers) of what is left.
 */
export function readC(text: string): { masked: string; blocks: Blocks } {
  const n = text.length;
  if (scratch.length < n) scratch = new Uint16Array(Math.max(n, 2 * scratch.length));
  const out = scratch;
  const spans: number[] = [];
  let depth = 0;
  let open = -1;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      for (; i < stop; i++) out[i] = text.charCodeAt(i) === NL ? NL : SPACE;
    } else if (c === SLASH && text.charCodeAt(i + 1) === SLASH) {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? n : end;
      out.fill(SPACE, i, stop);
      i = stop;
    } else if (c === QUOTE || c === APOSTROPHE) {
      out[i++] = c;
      while (i < n) {
        const e = text.charCodeAt(i);
        if (e === BACKSLASH) {
          out[i++] = SPACE;
          if (i < n) out[i] = text.charCodeAt(i) === NL ? NL : SPACE;
          i++;
        } else if (e === c) {
          out[i++] = c;
          break;
        } else if (e === NL) break;
        else out[i++] = SPACE;
      }
    } else {
      if (c === OPEN && depth++ === 0) open = i;
      else if (c === CLOSE && depth > 0 && --depth === 0) spans.push(open, i);
      out[i++] = c;
    }
  }
  if (depth > 0) spans.push(open, n);
  return { masked: UTF16.decode(out.subarray(0, n)), blocks: new Blocks(Int32Array.from(spans)) };
}

/** The top-level `{...}` blocks of masked C text, as pairs of offsets of their braces. */
export class Blocks {
  constructor(private readonly spans: Int32Array) {}

  /** Offset of the `{` of the top-level block that holds `at` (after its `{`, up to its `}`), or -1 at file scope. */
  openOf(at: number): number {
    let lo = 0;
    let hi = this.spans.length / 2 - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.spans[2 * mid]! < at) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found >= 0 && at <= this.spans[2 * found + 1]! ? this.spans[2 * found]! : -1;
  }

  isTopLevel(at: number): boolean {
    return this.openOf(at) < 0;
  }
}

/** Offsets where `word` occurs as a whole identifier. */
export function findIdentifier(masked: string, word: string): number[] {
  return findIdentifiers(masked, [word]).get(word)!;
}

/** Offsets of each of `words` as a whole identifier, in one pass over the text. */
export function findIdentifiers(masked: string, words: Iterable<string>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const w of words) out.set(w, []);
  if (out.size === 0) return out;
  const re = new RegExp(`(?<![A-Za-z0-9_])(?:${[...out.keys()].join('|')})(?![A-Za-z0-9_])`, 'g');
  for (const m of masked.matchAll(re)) out.get(m[0])!.push(m.index!);
  return out;
}

export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(private readonly text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
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
export function enclosingFunction(masked: string, blocks: Blocks, at: number): string | undefined {
  const open = blocks.openOf(at);
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
