// Reading the tree's Kconfig files without running kconfig: where each symbol is defined and what it depends on
// (its own `depends on` lines, the `if` and `menu` blocks around it, and the conditions of the `source` lines that
// pulled its file in), and from that which architectures can build it. Pure but for kconfigIndexAt, which reads them.
import { gitRaw, readManyAtCommit } from '../tools/git.js';
import { conjuncts, type BuildWay } from './kbuild.js';

export type Arches = string[] | 'any';

interface Definition {
  file: string;
  deps: string[];
  /** The symbols it selects unconditionally. */
  selects: string[];
}

/** Symbols followed this deep through `depends on` before the answer is "any architecture". */
const MAX_DEPTH = 6;

export class KconfigIndex {
  private readonly symbols = new Map<string, Definition[]>();
  private readonly memo = new Map<string, Arches>();

  /** `files`: every Kconfig file of the tree by path (arch/x86/Kconfig, drivers/net/Kconfig, ...). */
  constructor(files: ReadonlyMap<string, string>) {
    const local = new Map<string, { defs: [string, string[], string[]][]; sources: [string, string[]][] }>();
    for (const [file, text] of files) local.set(file, parseKconfig(text));
    // The conditions a file inherits from the `source` lines (under `if`/`menu`) that include it.
    const inherited = new Map<string, string[]>();
    const visit = (file: string, conditions: string[], depth: number) => {
      if (depth > 20 || inherited.has(file)) return;
      inherited.set(file, conditions);
      for (const [target, deps] of local.get(file)?.sources ?? []) visit(target, [...conditions, ...deps], depth + 1);
    };
    visit('Kconfig', [], 0);
    for (const [file, { defs }] of local) {
      const above = inherited.get(file) ?? [];
      for (const [symbol, deps, selects] of defs) {
        const list = this.symbols.get(symbol) ?? [];
        list.push({ file, deps: [...above, ...deps], selects });
        this.symbols.set(symbol, list);
      }
    }
  }

  /** Whether a Kconfig file of the tree defines `symbol` (`config` or `menuconfig`). */
  defines(symbol: string): boolean {
    return this.symbols.has(symbol);
  }

  /**
   * The architectures that can build code that needs `symbol`: those whose `arch/<a>/` Kconfig files define it, or
   * whatever its dependencies allow; `COMPILE_TEST` is no architecture (such code runs nowhere else).
   */
  archesOf(symbol: string, depth = 0): Arches {
    const known = this.memo.get(symbol);
    if (known) return known;
    if (symbol === 'COMPILE_TEST') return [];
    const defs = this.symbols.get(symbol);
    if (!defs || depth > MAX_DEPTH) return 'any';
    this.memo.set(symbol, 'any'); // a cycle answers "any"
    let out: Arches = [];
    for (const d of defs) {
      const own = /^arch\/([^/]+)\//.exec(d.file);
      let arches: Arches = own ? [own[1]!] : 'any';
      for (const dep of d.deps) arches = intersect(arches, this.archesOfExpression(dep, depth + 1));
      out = union(out, arches);
    }
    this.memo.set(symbol, out);
    return out;
  }

  /**
   * The symbols set wherever `symbol` is: the plain conjuncts of its dependencies (`A && B`, `A=y`, not `A || B`) and
   * what it selects, and theirs in turn (its first definition's). Where a Kconfig file defines it.
   */
  implied(symbol: string): Set<string> {
    const out = new Set<string>();
    const queue = [symbol];
    while (queue.length) {
      const s = queue.shift()!;
      if (out.has(s)) continue;
      out.add(s);
      const d = this.symbols.get(s)?.[0];
      if (!d) continue;
      const plain = conjuncts(d.deps).flatMap((c) => /^([A-Z0-9_]+)(?:\s*(?:=\s*[ym]|!=\s*n))?$/.exec(c)?.[1] ?? []);
      queue.push(...plain, ...d.selects);
    }
    return out;
  }

  /** Whether a definition of `symbol` can be built by COMPILE_TEST on a machine that is not its platform. */
  compileTestable(symbol: string): boolean {
    return (this.symbols.get(symbol) ?? []).some((d) => d.deps.some((x) => /\bCOMPILE_TEST\b/.test(x)));
  }

  /** The architectures that can build an object with one of `ways` (each a list of symbols that must all be set). */
  archesOfWays(ways: BuildWay[]): Arches {
    let out: Arches = [];
    for (const way of ways) {
      let arches: Arches = 'any';
      for (const s of way) arches = intersect(arches, this.archesOf(s));
      out = union(out, arches);
    }
    return ways.length === 0 ? 'any' : out;
  }

  private archesOfExpression(expr: string, depth: number): Arches {
    const tokens = expr.match(/\(|\)|&&|\|\||!=|!|=|"[^"]*"|[A-Za-z0-9_]+/g) ?? [];
    let i = 0;
    const or = (): Arches => {
      let a = and();
      while (tokens[i] === '||') {
        i++;
        a = union(a, and());
      }
      return a;
    };
    const and = (): Arches => {
      let a = unary();
      while (tokens[i] === '&&') {
        i++;
        a = intersect(a, unary());
      }
      return a;
    };
    const unary = (): Arches => {
      const t = tokens[i++];
      if (t === '!') {
        unary();
        return 'any';
      }
      let a: Arches;
      if (t === '(') {
        a = or();
        if (tokens[i] === ')') i++;
      } else if (t === undefined) return 'any';
      else a = /^[A-Z][A-Z0-9_]*$/.test(t) ? this.archesOf(t, depth) : t === 'n' ? [] : 'any';
      // `A = y`, `A != B`: a comparison says nothing of the architecture.
      if (tokens[i] === '=' || tokens[i] === '!=') {
        i += 2;
        return 'any';
      }
      return a;
    };
    return or();
  }
}

function intersect(a: Arches, b: Arches): Arches {
  if (a === 'any') return b;
  if (b === 'any') return a;
  return a.filter((x) => b.includes(x));
}

function union(a: Arches, b: Arches): Arches {
  if (a === 'any' || b === 'any') return 'any';
  return [...new Set([...a, ...b])].sort();
}

/** One Kconfig file: each `config`'s dependencies (its `if`/`menu` blocks and own `depends on`), and its `source` lines. */
function parseKconfig(text: string): { defs: [string, string[], string[]][]; sources: [string, string[]][] } {
  const defs: [string, string[], string[]][] = [];
  const sources: [string, string[]][] = [];
  /** Open blocks: `if X` and `menu` (with its `depends on`), innermost last. */
  const blocks: { kind: 'if' | 'menu' | 'choice'; deps: string[] }[] = [];
  let entry: string[] | undefined;
  let selects: string[] = [];
  let menuHead: string[] | undefined;
  const stacked = () => blocks.flatMap((b) => b.deps);
  /** Inside help text: lines indented deeper than the `help` line. */
  let helpIndent = -1;
  // A line ending in a backslash goes on on the next ("depends on A || \\" then "B").
  for (const raw of text.replace(/\\\n/g, ' ').split('\n')) {
    const line = raw.replace(/#.*$/, '').trimEnd();
    const word = /^\s*(\S+)/.exec(line)?.[1];
    if (!word) continue;
    const indent = indentOf(raw);
    if (helpIndent >= 0) {
      if (indent > helpIndent) continue;
      helpIndent = -1;
    }
    if (word === 'help' || word === '---help---') {
      helpIndent = indent;
      continue;
    }
    const rest = line.trim().slice(word.length).trim();
    if (word === 'config' || word === 'menuconfig') {
      entry = [];
      selects = [];
      menuHead = undefined;
      defs.push([rest, entry, selects]);
      entry.push(...stacked());
    } else if (word === 'depends' && rest.startsWith('on ')) {
      const dep = rest.slice(3).trim();
      if (entry) entry.push(dep);
      else if (menuHead) menuHead.push(dep);
    } else if (word === 'select' && entry && /^[A-Za-z0-9_]+$/.test(rest)) {
      selects.push(rest);
    } else if (word === 'if' && /^if\s/.test(line)) {
      blocks.push({ kind: 'if', deps: [rest] });
      entry = undefined;
    } else if (word === 'menu' || word === 'choice') {
      menuHead = [];
      blocks.push({ kind: word, deps: menuHead });
      entry = undefined;
    } else if (word === 'endif' || word === 'endmenu' || word === 'endchoice') {
      blocks.pop();
      entry = undefined;
      menuHead = undefined;
    } else if (word === 'source' || word === 'rsource' || word === 'osource') {
      const target = /"([^"]+)"/.exec(rest)?.[1];
      if (target && !target.includes('$')) sources.push([target, stacked()]);
      entry = undefined;
      menuHead = undefined;
    } else if (word === 'comment' || word === 'mainmenu') {
      entry = undefined;
    }
  }
  return { defs, sources };
}

function indentOf(line: string): number {
  let n = 0;
  for (const c of line) {
    if (c === ' ') n++;
    else if (c === '\t') n += 8 - (n % 8);
    else break;
  }
  return n;
}

/** Every Kconfig file of the tree at `commit`, indexed; one index per tree and commit while kseries runs. */
export function kconfigIndexAt(tree: { root: string }, commit: string): Promise<KconfigIndex> {
  const key = `${tree.root}\0${commit}`;
  let index = INDEXES.get(key);
  if (!index) {
    index = (async () => {
      const paths = (await gitRaw(tree.root, ['ls-tree', '-r', '--name-only', commit])).split('\n').filter((f) => /(^|\/)Kconfig[^/]*$/.test(f));
      return new KconfigIndex(await readManyAtCommit(tree.root, commit, paths));
    })();
    INDEXES.set(key, index);
  }
  return index;
}

const INDEXES = new Map<string, Promise<KconfigIndex>>();
