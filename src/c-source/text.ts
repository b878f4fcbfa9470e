// Small lexical helpers for reading C text without a parser: masking, brace depth, line numbers.

/** The text with comments, string and character literals blanked (newlines and quotes kept), so offsets still match. */
export function maskC(text: string): string {
  return readC(text).masked;
}

/** What ends plain code: a comment, a literal, a brace. */
const SPECIAL = /\/[*/]|["'{}]/g;

/**
 * One pass over C text: the masked text (see maskC; an unterminated literal ends at its line's end) and the top-level
 * brace blocks (function bodies, initializers) of what is left. The regex engine finds the next comment, literal or
 * brace; the code between them is kept as slices of the text.
 */
export function readC(text: string): { masked: string; blocks: Blocks } {
  const n = text.length;
  const parts: string[] = [];
  const spans: number[] = [];
  let depth = 0;
  let open = -1;
  let last = 0;
  const re = new RegExp(SPECIAL);
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const i = m.index;
    const c = text[i]!;
    if (c === '{') {
      if (depth++ === 0) open = i;
      continue;
    }
    if (c === '}') {
      if (depth > 0 && --depth === 0) spans.push(open, i);
      continue;
    }
    let stop: number;
    let blank: string;
    if (c === '/') {
      if (text[i + 1] === '*') {
        const end = text.indexOf('*/', i + 2);
        stop = end < 0 ? n : end + 2;
        blank = blankKeepingLines(text, i, stop);
      } else {
        const end = text.indexOf('\n', i);
        stop = end < 0 ? n : end;
        blank = ' '.repeat(stop - i);
      }
    } else {
      // A literal: the quotes stay, what is between them becomes spaces (an escaped newline stays a newline).
      let j = i + 1;
      let body = '';
      for (; j < n; j++) {
        const e = text[j];
        if (e === '\\') {
          body += text[j + 1] === '\n' ? ' \n' : j + 1 < n ? '  ' : ' ';
          j++;
        } else if (e === c) break;
        else if (e === '\n') break;
        else body += ' ';
      }
      const closed = j < n && text[j] === c;
      stop = closed ? j + 1 : Math.min(j, n);
      blank = `${c}${body.slice(0, stop - i - 1 - (closed ? 1 : 0))}${closed ? c : ''}`;
    }
    parts.push(text.slice(last, i), blank);
    last = stop;
    re.lastIndex = stop;
  }
  parts.push(text.slice(last));
  if (depth > 0) spans.push(open, n);
  return { masked: parts.join(''), blocks: new Blocks(Int32Array.from(spans)) };
}

/** Spaces for text[from, to), newlines kept. */
function blankKeepingLines(text: string, from: number, to: number): string {
  let out = '';
  let at = from;
  for (let nl = text.indexOf('\n', at); nl >= 0 && nl < to; nl = text.indexOf('\n', at)) {
    out += ' '.repeat(nl - at) + '\n';
    at = nl + 1;
  }
  return out + ' '.repeat(to - at);
}

/** The top-level `{...}` blocks of masked C text, as pairs of offsets of their braces. */
export class Blocks {
  constructor(private readonly edges: Int32Array) {}

  /** Offset of the `{` of the top-level block that holds `at` (after its `{`, up to its `}`), or -1 at file scope. */
  openOf(at: number): number {
    let lo = 0;
    let hi = this.edges.length / 2 - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.edges[2 * mid]! < at) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found >= 0 && at <= this.edges[2 * found + 1]! ? this.edges[2 * found]! : -1;
  }

  isTopLevel(at: number): boolean {
    return this.openOf(at) < 0;
  }

  /** Each block's `{` and `}` offsets, in order. */
  *spans(): Generator<[number, number]> {
    for (let i = 0; i < this.edges.length; i += 2) yield [this.edges[i]!, this.edges[i + 1]!];
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

const MODE_BITS: Record<string, number> = {
  S_IRUSR: 0o400, S_IWUSR: 0o200, S_IRGRP: 0o40, S_IWGRP: 0o20, S_IROTH: 0o4, S_IWOTH: 0o2, S_IRUGO: 0o444, S_IWUGO: 0o222,
};

/** A file mode written as an octal constant or S_I* names joined by `|`; undefined for anything else. */
export function modeBits(mode: string): number | undefined {
  let bits = 0;
  for (const part of mode.split('|').map((p) => p.trim())) {
    if (/^0[0-7]*$/.test(part)) bits |= parseInt(part, 8);
    else if (part in MODE_BITS) bits |= MODE_BITS[part]!;
    else return undefined;
  }
  return bits;
}

/**
 * Offsets where `word` stands as a whole word in a comment (not in code, not in a string or character literal): a
 * place the masked text blanks where no literal is open on that line (an even number of quotes before it).
 */
export function commentMentions(text: string, masked: string, word: string): number[] {
  const out: number[] = [];
  const re = new RegExp(`\\b${word}\\b`, 'g');
  for (const m of text.matchAll(re)) {
    const at = m.index!;
    if (masked.slice(at, at + word.length) === word) continue;
    const lineStart = masked.lastIndexOf('\n', at) + 1;
    const quotes = (masked.slice(lineStart, at).match(/["']/g) ?? []).length;
    if (quotes % 2 === 0) out.push(at);
  }
  return out;
}
