// The hunks of one file's diff, and what a maintainer asks of them before they go out: none that changes code the
// compiler never sees (`#if 0`), and no added line over the tree's column limit where C lets it break. Pure: the
// diff and the file's text at the base in, a diff out (hunk headers are recounted when the diff is applied).

export interface Hunk {
  /** The `@@ -a,b +c,d @@` line. */
  header: string;
  lines: string[];
  /** The first line of the hunk in the old file. */
  oldStart: number;
}

/** A file's diff as its header lines (---/+++ and before) and its hunks. */
export function splitHunks(text: string): { head: string[]; hunks: Hunk[] } {
  const head: string[] = [];
  const hunks: Hunk[] = [];
  for (const l of text.replace(/\n$/, '').split('\n')) {
    const at = /^@@ -(\d+)/.exec(l);
    if (at) hunks.push({ header: l, lines: [], oldStart: Number(at[1]) });
    else if (hunks.length) hunks[hunks.length - 1]!.lines.push(l);
    else head.push(l);
  }
  return { head, hunks };
}

export function joinHunks(head: string[], hunks: Hunk[]): string {
  return `${[...head, ...hunks.flatMap((h) => [h.header, ...h.lines])].join('\n')}\n`;
}

/** The old file's line numbers (1-based) that a hunk removes or changes. */
function removedLines(h: Hunk): number[] {
  const out: number[] = [];
  let line = h.oldStart;
  for (const l of h.lines) {
    if (l.startsWith('-')) out.push(line++);
    else if (l.startsWith(' ')) line++;
  }
  return out;
}

/**
 * The lines (1-based) the preprocessor drops whatever the configuration: inside `#if 0` (to its `#else` or
 * `#endif`), and everything nested there.
 */
export function deadLines(text: string): Set<number> {
  const dead = new Set<number>();
  // Per open conditional: is its current branch dead of itself (an `#if 0`), and was it opened inside dead code.
  const stack: { zero: boolean; inDead: boolean }[] = [];
  const isDead = () => stack.some((f) => f.zero || f.inDead);
  text.split('\n').forEach((l, i) => {
    const d = /^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$/.exec(l);
    if (d?.[1] === 'if' || d?.[1] === 'ifdef' || d?.[1] === 'ifndef') {
      const inDead = isDead();
      stack.push({ zero: d[1] === 'if' && /^\s*0\s*(\/[/*].*)?$/.test(d[2]!), inDead });
      return;
    }
    if ((d?.[1] === 'else' || d?.[1] === 'elif') && stack.length) stack[stack.length - 1]!.zero = false;
    if (d?.[1] === 'endif') {
      stack.pop();
      return;
    }
    if (isDead()) dead.add(i + 1);
  });
  return dead;
}

/** The diff without the hunks `drop` names, and where those were (the old file's first changed line). */
export function dropHunks(text: string, drop: (h: Hunk, removed: number[]) => boolean): { text: string; dropped: number[] } {
  const { head, hunks } = splitHunks(text);
  const kept: Hunk[] = [];
  const dropped: number[] = [];
  for (const h of hunks) {
    const removed = removedLines(h);
    if (drop(h, removed)) dropped.push(removed[0] ?? h.oldStart);
    else kept.push(h);
  }
  return { text: kept.length ? joinHunks(head, kept) : '', dropped };
}

/** The diff without the hunks that change only code inside `#if 0`, and where those were (old-file lines). */
export function withoutDeadHunks(text: string, base: string): { text: string; dropped: number[] } {
  const dead = deadLines(base);
  return dropHunks(text, (_, removed) => removed.length > 0 && removed.every((n) => dead.has(n)));
}

/**
 * The diff without the hunks that assign what a `const char *` function returns (`constFns`) to a variable the file
 * declares `char *` (octeontx2's `str = str_enabled_disabled(...)` with `char *str;`): the build warns of the
 * discarded qualifier, an error under CONFIG_WERROR. Whether the declaration may become const, only the author can
 * tell; the hunk is left out and named.
 */
export function withoutConstDiscards(text: string, base: string, constFns: ReadonlySet<string>): { text: string; dropped: number[] } {
  const nonConst = (v: string) => new RegExp(`(^|[^\\w])(?<!const\\s{1,8})char\\s*\\*\\s*${v}\\b`, 'm').test(base);
  return dropHunks(text, (h) =>
    h.lines.some((l) => {
      const m = l.startsWith('+') ? /\b(\w+)\s*=\s*(\w+)\s*\(/.exec(l) : null;
      return !!m && constFns.has(m[2]!) && nonConst(m[1]!);
    }),
  );
}

/** A line's width with tabs at every 8 columns. */
export function columns(line: string): number {
  let n = 0;
  for (const c of line) n = c === '\t' ? n + 8 - (n % 8) : n + 1;
  return n;
}

/** Binary operators a kernel line breaks after ("a &&\n b"): two-character ones first. */
const OPERATORS = ['&&', '||', '&', '|', '+', '?', ':'];

/**
 * An added C line over `max` columns broken where kernel style breaks it: after the last ", " or binary operator
 * (" & ", " && ", ...) outside a string and inside parentheses that leaves the first part within the limit, the
 * rest aligned under the character after the innermost open parenthesis (tabs, then spaces). A line with no such
 * place (one long string) stays as it is.
 */
export function wrapLine(line: string, max: number): string[] {
  if (columns(line) <= max) return [line];
  const open: number[] = [];
  let quote: string | undefined;
  let best: { at: number; paren: number } | undefined;
  const fits = (end: number) => columns(line.slice(0, end)) <= max;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(') open.push(i);
    else if (c === ')') open.pop();
    else if (open.length && c === ',' && line[i + 1] === ' ' && fits(i + 1)) best = { at: i + 1, paren: open[open.length - 1]! };
    else if (open.length && line[i - 1] === ' ') {
      const op = OPERATORS.find((o) => line.startsWith(`${o} `, i));
      if (op && fits(i + op.length)) best = { at: i + op.length, paren: open[open.length - 1]! };
      if (op) i += op.length - 1;
    }
  }
  if (!best) return [line];
  const indentTo = columns(line.slice(0, best.paren + 1));
  const lead = `${'\t'.repeat(Math.floor(indentTo / 8))}${' '.repeat(indentTo % 8)}`;
  const rest = `${lead}${line.slice(best.at + 1)}`;
  // The rest may be long too; a rest no shorter than before cannot be helped.
  return columns(rest) < columns(line) ? [line.slice(0, best.at), ...wrapLine(rest, max)] : [line];
}

/** The diff with each added line over `max` columns wrapped (wrapLine); how many it wrapped. */
export function wrapAdded(text: string, max: number): { text: string; wrapped: number } {
  const { head, hunks } = splitHunks(text);
  let wrapped = 0;
  for (const h of hunks) {
    h.lines = h.lines.flatMap((l) => {
      if (!l.startsWith('+')) return [l];
      const parts = wrapLine(l.slice(1), max);
      if (parts.length > 1) wrapped++;
      return parts.map((p) => `+${p}`);
    });
  }
  return { text: joinHunks(head, hunks), wrapped };
}

/**
 * Where each hunk's first changed line is in the new file, as a report names them ("drivers/x.c:123,140"): from its old
 * position and what the hunks before it added and removed (their headers may not say, after hunks were dropped or
 * lines wrapped).
 */
export function hunkPlaces(file: string, text: string): string {
  let shift = 0;
  const lines = splitHunks(text).hunks.map((h) => {
    const context = h.lines.findIndex((l) => l.startsWith('+') || l.startsWith('-'));
    const line = h.oldStart + shift + Math.max(context, 0);
    shift += h.lines.filter((l) => l.startsWith('+')).length - h.lines.filter((l) => l.startsWith('-')).length;
    return line;
  });
  return `${file}:${lines.join(',')}`;
}
