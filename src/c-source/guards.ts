// The preprocessor conditions C text is compiled under: the `#if` blocks open at each line, the CONFIG_ symbols they
// test, and the lines that declare a name (a struct member, a function, a macro, a type), so a check can tell which
// symbols change what a patch's lines mean.
import { maskC } from './text.js';

/** One `#if` block open at a line: where its branch's directive stands and the CONFIG_ symbols the branch tests. */
export interface Guard {
  /** The 1-based line of the `#if`, `#ifdef`, `#elif` or `#else` whose branch holds the line. */
  line: number;
  /** The 1-based line of the `#if` that opens the block (the same for every branch of it). */
  opened: number;
  /** The branch's directive as written ("#ifdef CONFIG_PM", "#else" of "#if IS_ENABLED(CONFIG_OF)"). */
  directive: string;
  /** The CONFIG_ symbols the branch and the branches before it test, without the prefix (PM, OF). */
  symbols: string[];
}

/** The `#if` blocks of C text, to ask which are open at a line. */
export class Conditionals {
  /** For each 1-based line, the guards open there, outermost first (shared arrays: one per stretch of lines). */
  private readonly open: Guard[][] = [[]];

  constructor(text: string) {
    const lines = maskC(text).split('\n');
    const stack: { guard: Guard; opened: string; tested: string[] }[] = [];
    let current: Guard[] = [];
    for (let i = 0; i < lines.length; i++) {
      let line = lines[i]!;
      const at = i + 1;
      this.open[at] = current;
      const m = /^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$/.exec(line);
      if (!m) continue;
      // A directive continued on the next lines ("#if defined(A) || \").
      while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i]}`;
      const expr = /^\s*#\s*\w+(.*)$/.exec(line)![1]!.trim();
      const kind = m[1]!;
      if (kind === 'endif') stack.pop();
      else if (kind === 'if' || kind === 'ifdef' || kind === 'ifndef') {
        const tested = configSymbolsIn(expr);
        stack.push({ guard: { line: at, opened: at, directive: `#${kind} ${expr}`, symbols: tested }, opened: `#${kind} ${expr}`, tested });
      } else {
        const top = stack[stack.length - 1];
        if (!top) continue;
        top.tested = [...new Set([...top.tested, ...configSymbolsIn(expr)])];
        top.guard = { line: at, opened: top.guard.opened, directive: kind === 'else' ? `#else of ${top.opened}` : `#elif ${expr}`, symbols: top.tested };
      }
      current = stack.map((s) => s.guard);
      for (let j = at; j <= i + 1; j++) this.open[j] = current;
    }
  }

  /** The guards open at a 1-based line, outermost first: its `#if` lines themselves count as inside. */
  at(line: number): Guard[] {
    return this.open[line] ?? [];
  }
}

/**
 * The CONFIG_ symbols a condition or line tests, without the prefix: `defined(CONFIG_PM)`, `IS_ENABLED(CONFIG_OF)`,
 * `CONFIG_FOO_MODULE` (FOO as a module).
 */
export function configSymbolsIn(text: string): string[] {
  return [...new Set([...text.matchAll(/\bCONFIG_([A-Za-z0-9_]+)/g)].map((m) => m[1]!.replace(/_MODULE$/, '')))];
}

/** Words that are C, not names a header declares. */
const KEYWORDS = new Set(
  'auto break case char const continue default do double else enum extern float for goto if inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while bool true false NULL __init __exit __user __iomem __maybe_unused __always_inline typeof asm defined __FILE__ __LINE__ __func__ __COUNTER__'.split(
    ' ',
  ),
);

/** The identifiers a line of masked C uses (its words that are not C keywords or numbers). */
export function identifiersIn(maskedLine: string): string[] {
  return [...new Set([...maskedLine.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)].map((m) => m[0]).filter((w) => !KEYWORDS.has(w) && !/^CONFIG_/.test(w)))];
}

/**
 * The 1-based lines of masked C text that declare each of `names`: a macro (`#define X`), a function or a function-like
 * declaration (`int X(`, `*X(`), a member or variable (`type X;`, `X[4];`, `X : 3;`), a tag (`struct X {`), a
 * typedef (`} X;`), an enumerator (`X = 1,` or `X,` on its own line). Calls and uses are no declarations: the word
 * before a declared name is a type's word or `*`, never `return`, an operator or a parenthesis.
 */
export function declarationLines(masked: string, names: Iterable<string>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const wanted = [...names];
  for (const n of wanted) out.set(n, []);
  if (!wanted.length) return out;
  const re = new RegExp(`(?<![A-Za-z0-9_])(?:${wanted.join('|')})(?![A-Za-z0-9_])`, 'g');
  let line = 1;
  let scanned = 0;
  for (const m of masked.matchAll(re)) {
    const at = m.index!;
    for (let nl = masked.indexOf('\n', scanned); nl >= 0 && nl < at; nl = masked.indexOf('\n', nl + 1)) line++;
    scanned = at;
    const start = masked.lastIndexOf('\n', at) + 1;
    const before = masked.slice(start, at);
    const after = masked.slice(at + m[0].length, at + m[0].length + 80);
    // A function's name first on its line, its type on the line before (`struct device *` then `name(...)`).
    const typeBefore = before.trim() === '' && /^\s*\(/.test(after) && /(?:^|\n)[^\n#]*(?:[A-Za-z0-9_]|\*)[ \t]*\n[ \t]*$/.test(masked.slice(Math.max(0, start - 120), start));
    if (typeBefore || isDeclaration(before, after)) {
      const lines = out.get(m[0])!;
      if (lines[lines.length - 1] !== line) lines.push(line);
    }
  }
  return out;
}

function isDeclaration(before: string, after: string): boolean {
  const b = before.trimEnd();
  if (/^\s*#\s*define\s+$/.test(before)) return true;
  if (/^\s*#/.test(before)) return false;
  if (/\b(struct|union|enum)\s+$/.test(before)) return /^\s*\{/.test(after) || /^\s*;/.test(after);
  const word = /([A-Za-z_][A-Za-z0-9_]*|\*|\})\s*$/.exec(b)?.[1];
  // An enumerator stands first on its line: `X,` `X = 3,` `X }`.
  if (b === '') return /^\s*(=[^=]|,|$|\})/.test(after) && !/^\s*=\s*=/.test(after);
  if (!word || ['return', 'case', 'goto', 'sizeof', 'else', 'typeof', 'do'].includes(word)) return false;
  if (/^\s*\(/.test(after)) return word !== '}';
  return /^\s*(\[[^\]]*\]\s*)*(:\s*[A-Za-z0-9_]+\s*)?[;,=)]/.test(after) && !/^\s*==/.test(after);
}
