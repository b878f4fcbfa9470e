// A C file's functions and how each name is used in it, read from masked text without a parser: where functions are
// defined, where a name is called (and from which function), and where its address is handed to something else (a
// registration macro's argument, a struct field, a pointer). Pure: text in, facts out.
import { enclosingParen, findIdentifiers, LineIndex, nextNonSpace, prevNonSpace, readC, wordEndingAt, type Blocks } from './text.js';

export interface FunctionDef {
  name: string;
  /** Offsets of the body's braces. */
  open: number;
  close: number;
  /** Offset of the name in the definition. */
  at: number;
  line: number;
  isStatic: boolean;
  /** The declaration before the name: storage class, return type, attributes. */
  header: string;
  /** Section and calling attributes written in the header: __init, __exit, __meminit, notrace, noinstr... */
  attrs: Set<string>;
}

/** One use of a name other than its definition. */
export type NameUse =
  | { kind: 'call'; at: number; line: number; in: FunctionDef }
  /** The name (or its address) is an argument of `api` (a function or macro), at position `arg` (from 0). */
  | { kind: 'argument'; at: number; line: number; in?: FunctionDef; api: string; arg: number }
  /** Stored in a struct field: `.field = name` in an initializer, or `x->field = name` / `x.field = name`. */
  | { kind: 'field'; at: number; line: number; in?: FunctionDef; field: string; initializer?: string }
  /** Anything else: a macro body, an assignment to a variable, a comparison. */
  | { kind: 'other'; at: number; line: number; in?: FunctionDef };

/** Attributes that say where a function lives or how it may be called. */
const ATTRIBUTES = /\b(__init|__exit|__meminit|__ref|__cold|notrace|noinstr|__kprobes|__always_inline|inline|__irq_entry|__visible)\b/g;

/** Macros written after a parameter list and before the body: `void f(void) __releases(l)`. */
const TRAILING = new Set(['__acquires', '__releases', '__must_hold', '__attribute__', '__printf', '__scanf', '__nocfi']);

export class CFile {
  readonly masked: string;
  readonly blocks: Blocks;
  readonly lines: LineIndex;
  private defs?: Map<string, FunctionDef>;
  private byOpen?: Map<number, FunctionDef>;

  constructor(
    readonly path: string,
    readonly text: string,
    read?: { masked: string; blocks: Blocks; lines?: LineIndex },
  ) {
    const r = read ?? readC(text);
    this.masked = r.masked;
    this.blocks = r.blocks;
    this.lines = read?.lines ?? new LineIndex(text);
  }

  /** Functions defined in the file, by name (a name defined twice, under #ifdef, keeps its first body). */
  get functions(): Map<string, FunctionDef> {
    if (this.defs) return this.defs;
    this.defs = new Map();
    this.byOpen = new Map();
    for (const [open, close] of this.blocks.spans()) {
      const def = this.definitionAt(open, close);
      if (!def) continue;
      this.byOpen.set(open, def);
      if (!this.defs.has(def.name)) this.defs.set(def.name, def);
    }
    return this.defs;
  }

  /** The function whose body holds `at`. */
  functionAt(at: number): FunctionDef | undefined {
    void this.functions;
    return this.byOpen!.get(this.blocks.openOf(at));
  }

  /** Every use of `name` as an identifier, except its definitions, prototypes and member accesses. */
  usesOf(name: string): NameUse[] {
    const out: NameUse[] = [];
    for (const at of findIdentifiers(this.masked, [name]).get(name)!) {
      const use = this.useAt(at, name);
      if (use) out.push(use);
    }
    return out;
  }

  private readonly locals = new Map<string, boolean>();

  /** `at` is in the parameter list of a function definition (`static int f(int name)`). */
  private isParameter(at: number): boolean {
    const open = enclosingParen(this.masked, at);
    if (open < 0) return false;
    const fn = wordEndingAt(this.masked, prevNonSpace(this.masked, open));
    const def = fn ? this.functions.get(fn) : undefined;
    return !!def && def.at < open && open < def.open && at < def.open;
  }

  /** Does `fn` declare a variable (or parameter) called `name`, which hides the file-scope one in its body? */
  private declaresLocal(fn: FunctionDef, name: string): boolean {
    const id = `${fn.open}:${name}`;
    let hit = this.locals.get(id);
    if (hit === undefined) {
      const params = this.masked.slice(this.masked.indexOf('(', fn.at), fn.open);
      const body = this.masked.slice(fn.open, fn.close);
      const declared = new RegExp(`(?:^|[;{}(,])\\s*(?!(?:return|else|goto|case|do|sizeof)\\b)(?:\\w+\\s+){0,3}\\w+\\s*\\**\\s*${name}\\s*(?:[=;,)]|\\[)`);
      hit = declared.test(body) || declared.test(params);
      this.locals.set(id, hit);
    }
    return hit;
  }

  /** Does the file define `name` as a function (any linkage)? */
  defines(name: string): boolean {
    return this.functions.has(name);
  }

  private useAt(at: number, name: string): NameUse | undefined {
    const m = this.masked;
    const before = prevNonSpace(m, at);
    if (m[before] === '.' || (m[before] === '>' && m[before - 1] === '-')) return undefined;
    const line = this.lines.lineOf(at);
    const inFn = this.functionAt(at);
    if (inFn?.at === at) return undefined;
    // A local variable of that name (auto_movable_zone_for_pfn()'s `unsigned long online_pages = 0`) is no use of it.
    if (inFn && this.declaresLocal(inFn, name)) return undefined;
    if (!inFn && this.isParameter(at)) return undefined;
    const after = nextNonSpace(m, at + name.length);
    const lineStart = m.lastIndexOf('\n', at) + 1;
    if (/^\s*#/.test(m.slice(lineStart, at))) return { kind: 'other', at, line, in: inFn };
    if (m[after] === '(' && m[before] !== '&') {
      // At file scope (or in a struct body) a name followed by a parameter list is a declaration or a definition.
      if (!inFn) return this.isDefinitionName(at) || this.blocks.isTopLevel(at) ? undefined : { kind: 'other', at, line };
      return { kind: 'call', at, line, in: inFn };
    }
    const start = m[before] === '&' ? before : at;
    const p = prevNonSpace(m, start);
    if (m[p] === '=' && !'=!<>'.includes(m[p - 1]!)) {
      const target = prevNonSpace(m, p);
      const field = wordEndingAt(m, target);
      const dot = prevNonSpace(m, target - field.length + 1);
      if (field && (m[dot] === '.' || (m[dot] === '>' && m[dot - 1] === '-'))) {
        return { kind: 'field', at, line, in: inFn, field, initializer: m[dot] === '.' && m[prevNonSpace(m, dot)] !== ')' ? this.initializerName(dot) : undefined };
      }
    }
    const open = enclosingParen(m, start);
    if (open >= 0) {
      const api = wordEndingAt(m, prevNonSpace(m, open));
      if (api) return { kind: 'argument', at, line, in: inFn, api, arg: commasBetween(m, open, start) };
    }
    return { kind: 'other', at, line, in: inFn };
  }

  private isDefinitionName(at: number): boolean {
    for (const d of this.functions.values()) if (d.at === at) return true;
    return false;
  }

  /** `static struct notifier_block nb = { .notifier_call = f };`: the variable the initializer that holds `at` sets. */
  private initializerName(at: number): string | undefined {
    const open = this.blocks.openOf(at);
    if (open < 0) return undefined;
    const eq = prevNonSpace(this.masked, open);
    if (this.masked[eq] !== '=') return undefined;
    const m = this.masked;
    let end = prevNonSpace(m, eq);
    // Attributes between the name and `=`: `__initconst`, `__aligned(8)`, `__section(".x")`.
    for (;;) {
      const close = m[end] === ')' ? end : -1;
      const word = wordEndingAt(m, close >= 0 ? prevNonSpace(m, m.lastIndexOf('(', close)) : end);
      if (!/^__\w+$/.test(word)) break;
      end = prevNonSpace(m, (close >= 0 ? prevNonSpace(m, m.lastIndexOf('(', close)) : end) - word.length + 1);
    }
    if (m[end] === ']') end = prevNonSpace(m, m.lastIndexOf('[', end));
    return wordEndingAt(m, end) || undefined;
  }

  private definitionAt(open: number, close: number): FunctionDef | undefined {
    const m = this.masked;
    let paren = prevNonSpace(m, open);
    for (;;) {
      if (m[paren] !== ')') return undefined;
      const lp = matchingOpen(m, paren);
      if (lp < 0) return undefined;
      const nameEnd = prevNonSpace(m, lp);
      const name = wordEndingAt(m, nameEnd);
      if (!name) return undefined;
      if (TRAILING.has(name)) {
        paren = prevNonSpace(m, nameEnd - name.length + 1);
        continue;
      }
      // Statements, and loop macros whose block an #ifdef'd brace left at file scope.
      if (/^(if|while|for|switch|return|sizeof)$|for_each|while_each/.test(name)) return undefined;
      const at = nameEnd - name.length + 1;
      const header = m.slice(headerStart(m, at), at);
      return { name, open, close, at, line: this.lines.lineOf(at), isStatic: /\bstatic\b/.test(header), header: header.trim(), attrs: new Set(header.match(ATTRIBUTES) ?? []) };
    }
  }
}

/** Where the declaration before a function's name starts: after the last `;`, `}` or preprocessor line before it. */
function headerStart(m: string, at: number): number {
  let i = at - 1;
  for (; i >= 0; i--) {
    const c = m[i];
    if (c === ';' || c === '}' || c === '{') break;
    if (c === '\n' && m[i + 1] === '#') {
      const end = m.indexOf('\n', i + 1);
      return end < 0 || end > at ? at : end + 1;
    }
  }
  return i + 1;
}

function matchingOpen(m: string, close: number): number {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    if (m[i] === ')') depth++;
    else if (m[i] === '(' && --depth === 0) return i;
    else if ((m[i] === ';' || m[i] === '{' || m[i] === '}') && depth > 0 && i < close) return -1;
  }
  return -1;
}

/** Which argument of the call that opens at `open` holds `at`: top-level commas between them. */
function commasBetween(m: string, open: number, at: number): number {
  let depth = 0;
  let n = 0;
  for (let i = open + 1; i < at; i++) {
    const c = m[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) n++;
  }
  return n;
}
