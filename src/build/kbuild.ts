// Reading Kbuild without running it: which CONFIG_ symbols build an object, what a symbol depends on,
// and the compiler's warnings and errors. Pure functions over text.
import path from 'node:path';

export type ReadText = (file: string) => Promise<string | undefined>;

/** Makefile text with `\`-continued lines joined. */
function logicalLines(text: string): string[] {
  return text.replace(/\\\n/g, ' ').split('\n');
}

/**
 * The CONFIG_ symbols that must all be set for `file` (a .c or .S path) to be built, found by walking the
 * `obj-$(CONFIG_X) += file.o` / composite `foo-y += file.o` lines of its directory's Makefile and up through the
 * parent directories (`obj-$(CONFIG_Y) += dir/`). Returns undefined when no Makefile line names the object.
 */
export async function configSymbolsFor(file: string, read: ReadText): Promise<string[] | undefined> {
  const symbols: string[] = [];
  let dir = path.posix.dirname(file);
  let target = `${path.posix.basename(file).replace(/\.[cS]$/, '')}.o`;
  for (let depth = 0; depth < 20; depth++) {
    const text = (await read(`${dir}/Kbuild`)) ?? (await read(`${dir}/Makefile`));
    const found = text === undefined ? undefined : findAssignment(text, target);
    // Unnamed at the start: not a kbuild object. Unnamed higher up: the directory is pulled in some other way
    // (an arch Makefile, core-y), so what was found so far is all we can say.
    if (!found) return depth === 0 ? undefined : unique(symbols);
    if (found.symbol) symbols.push(found.symbol);
    if (found.variable !== 'obj' && found.variable !== 'lib') {
      target = `${found.variable}.o`; // composite object: now find how foo.o itself is built
      continue;
    }
    // Reached obj-/lib-: the directory must be built too, which its parent decides.
    if (!dir.includes('/')) return unique(symbols);
    target = `${path.posix.basename(dir)}/`;
    dir = path.posix.dirname(dir);
  }
  return unique(symbols);
}

function findAssignment(makefile: string, target: string): { variable: string; symbol?: string } | undefined {
  for (const line of logicalLines(makefile)) {
    const m = /^\s*([A-Za-z0-9_.-]+)-(y|objs|\$\(CONFIG_([A-Za-z0-9_]+)\))\s*[:+]?=\s*(.*)$/.exec(line);
    if (!m) continue;
    const words = m[4]!.split(/\s+/);
    if (!words.includes(target)) continue;
    return { variable: m[1]!, symbol: m[3] };
  }
  return undefined;
}

/**
 * What `config SYMBOL` in a Kconfig file's text depends on: the conditions of the `if` blocks around it and its own
 * `depends on` lines. Undefined when the file does not define the symbol.
 */
export function kconfigDepends(kconfig: string, symbol: string): string[] | undefined {
  const lines = kconfig.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^\\s*(menu)?config\\s+${symbol}\\s*$`).test(l));
  if (start < 0) return undefined;
  // `if` blocks stand at the start of a line; an indented "if ..." is help text.
  const enclosing: string[] = [];
  for (const line of lines.slice(0, start)) {
    const open = /^if\s+(.*?)\s*$/.exec(line);
    if (open) enclosing.push(open[1]!);
    else if (/^endif\b/.test(line)) enclosing.pop();
  }
  const deps: string[] = [...enclosing];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*(menu)?config\s|^\s*(endmenu|endif|menu|if|choice|endchoice|source|comment)\b/.test(line)) break;
    const d = /^\s*depends on\s+(.*?)\s*$/.exec(line);
    if (d) deps.push(d[1]!);
  }
  return deps;
}

/** The symbols a dependency list needs set, when it is only a conjunction of plain symbols; else undefined. */
export function plainSymbols(deps: string[]): string[] | undefined {
  const words = deps.flatMap((d) => d.split(/\s*&&\s*/)).map((w) => w.replace(/^\((.*)\)$/, '$1').trim());
  return words.every((w) => /^[A-Z0-9_]+$/.test(w)) ? words : undefined;
}

export interface CompilerMessage {
  level: 'warning' | 'error';
  file: string;
  line: number;
  column: number;
  message: string;
  /** The -W option named in brackets, when there is one. */
  flag: string | undefined;
  /** The line as the compiler printed it, with the source path made relative to the tree. */
  text: string;
}

/** gcc's `file:line:col: warning|error: message [-Wflag]` lines; `sourceRoot` is stripped from paths. */
export function parseCompilerOutput(output: string, sourceRoot: string): CompilerMessage[] {
  const prefix = sourceRoot.endsWith('/') ? sourceRoot : `${sourceRoot}/`;
  const out: CompilerMessage[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.split(prefix).join('');
    const m = /^([^\s:][^:]*):(\d+):(\d+): (warning|error): (.*?)(?: \[(-W[^\]]+)\])?$/.exec(line);
    if (!m) continue;
    out.push({ level: m[4] as 'warning' | 'error', file: m[1]!, line: Number(m[2]), column: Number(m[3]), message: m[5]!, flag: m[6], text: line });
  }
  return out;
}

/** A warning's identity across a patch: file, message and flag, not the line (a patch moves old warnings). */
export function warningKey(w: CompilerMessage): string {
  return `${w.file}\0${w.message.replace(/‘|’/g, "'")}\0${w.flag ?? ''}`;
}

/** Warnings of `after` that `before` did not have (counting duplicates). */
export function newWarnings(before: CompilerMessage[], after: CompilerMessage[]): CompilerMessage[] {
  const seen = new Map<string, number>();
  for (const w of before) if (w.level === 'warning') seen.set(warningKey(w), (seen.get(warningKey(w)) ?? 0) + 1);
  const fresh: CompilerMessage[] = [];
  for (const w of after) {
    if (w.level !== 'warning') continue;
    const n = seen.get(warningKey(w)) ?? 0;
    if (n > 0) seen.set(warningKey(w), n - 1);
    else fresh.push(w);
  }
  return fresh;
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
