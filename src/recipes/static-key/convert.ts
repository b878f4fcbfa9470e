// The explicit static-key conversion of one file-scope flag: text in, converted text (or a refusal naming the line) out.
import { TransformError } from '../../errors.js';
import {
  commentMentions,
  enclosingFunction,
  enclosingParen,
  findIdentifier,
  LineIndex,
  maskC,
  nextNonSpace,
  prevNonSpace,
  readC,
  wordEndingAt,
} from '../../c-source/text.js';

export type Hint = 'likely' | 'unlikely';

/** The code the conversion writes, rendered from the recipe's templates. */
export interface KeyFragments {
  /** `shared`: other files use the key (no `static`). */
  define(v: { key: string; initiallyTrue: boolean; readOnlyAfterInit: boolean; shared: boolean }): string;
  /** A header's (or another file's) `extern` declaration of a shared flag, as the key's. */
  declare?(v: { key: string; initiallyTrue: boolean }): string;
  read(v: { key: string; hint: Hint; negated: boolean }): string;
  write(v: { key: string; enable: boolean }): string;
  include(): string;
  /** A read of the value (returned, printed, passed on): static_key_enabled(&key). */
  value?(v: { key: string }): string;
}

export interface SiteRecord {
  line: number;
  /** The function holding the site; undefined at file scope. */
  function: string | undefined;
  before: string;
  after: string;
  /** A test: the hint it had in the source (none: undefined) and the one its static_branch_*() has. */
  hint?: { before: Hint | undefined; after: Hint };
  /** A write: static_branch_enable() (true) or static_branch_disable() (false). */
  enable?: boolean;
}

export interface Conversion {
  text: string;
  type: 'bool' | 'int';
  initiallyTrue: boolean;
  /** The key is defined _RO: the flag was __ro_after_init (`readOnlyDeclared`), or bootOnly asked for it. */
  readOnlyAfterInit: boolean;
  readOnlyDeclared: boolean;
  /** The definition (undefined where a shared flag's other file is converted: its `extern`, if any, is in `declarations`). */
  declaration: SiteRecord | undefined;
  /** `extern` declarations that became DECLARE_STATIC_KEY_*() (a shared flag's header). */
  declarations: SiteRecord[];
  reads: SiteRecord[];
  writes: SiteRecord[];
  /** Reads of the value outside a branch condition, each now static_key_enabled() (the `values` option). */
  values: SiteRecord[];
  includeAdded: boolean;
  /** Lines (of the converted text, before any include is added) whose comments named the flag and now name the key. */
  commentsUpdated: number[];
  /** The boot option whose name the flag has, when comments naming the flag were left for it; else false. */
  commentsKept: string | false;
}

interface Replacement {
  start: number;
  end: number;
  text: string;
  kind: 'declaration' | 'extern' | 'export' | 'read' | 'write' | 'value';
  hint?: SiteRecord['hint'];
  enable?: boolean;
}

const FLAG_ATTRIBUTES = new Set(['__read_mostly', '__ro_after_init']);
/** <linux/static_key.h> is <linux/jump_label.h> and nothing else: either one gives the file the static key API. */
const JUMP_LABEL_INCLUDE = /^#include\s*<linux\/(?:jump_label|static_key)\.h>/m;
/** A file that already uses the static key API gets <linux/jump_label.h> through its includes (memcontrol.h does). */
const STATIC_KEY_API = /\b(?:static_branch_\w+|static_key_\w+|(?:DEFINE|DECLARE)_STATIC_KEY_\w+)\s*\(/;

/**
 * Convert `flag` into the static key `key`. Tests without a likely()/unlikely() hint are laid out for `usualValue`,
 * the value the flag holds on a running system (default: its initial value; an initcall that sets it on every boot
 * makes that value the usual one), so the usual path is the NOP.
 */
/**
 * `bootOnly`: every writer runs before mark_readonly() (boot-option handlers, initcalls), so the key is defined _RO
 * as a flag marked __ro_after_init is. `values`: a read outside a branch condition (`return flag;`, a printk argument)
 * becomes static_key_enabled(&key) instead of refusing the flag. `shared`: a flag other files use — `define` converts
 * the file that defines it (the key is not static; its tests may all be elsewhere), `use` another file that names it
 * (its `extern` declaration becomes DECLARE_STATIC_KEY_*(), with the definition's type and initial value).
 */
export interface ConvertOptions {
  bootOnly?: boolean;
  values?: boolean;
  shared?: { role: 'define' } | { role: 'use'; type: 'bool' | 'int'; initiallyTrue: boolean };
}

export function convertFlag(file: string, text: string, flag: string, key: string, fragments: KeyFragments, usualValue?: boolean, opts: ConvertOptions = {}): Conversion {
  const { masked, blocks } = readC(text);
  const lines = new LineIndex(text);
  const refuse = (offset: number, why: string): never => {
    const line = lines.lineOf(offset);
    throw new TransformError(
      `${file}:${line}: ${why}: \`${lines.lineText(line).trim()}\``,
      'convert that use by hand first, or choose another flag; nothing was changed',
    );
  };
  if (findIdentifier(masked, key).length > 0 && key !== flag) {
    refuse(findIdentifier(masked, key)[0]!, `the key name ${key} is already used in this file`);
  }

  const uses = findIdentifier(masked, flag).filter((at) => !isMemberAccess(masked, at));
  const topLevel = uses.filter((at) => blocks.isTopLevel(at));
  for (const at of uses) if (isPreprocessorLine(masked, at)) refuse(at, `${flag} is used in a preprocessor line`);
  const shared = opts.shared;
  let decl: { type: 'bool' | 'int'; initiallyTrue: boolean; readOnlyAfterInit: boolean };
  const replacements: Replacement[] = [];
  if (shared?.role === 'use') {
    decl = { type: shared.type, initiallyTrue: shared.initiallyTrue, readOnlyAfterInit: false };
    const declare = fragments.declare;
    if (topLevel.length > 0 && !declare) throw new TransformError(`${file}: no template declares a shared key`, 'give the recipe a code/declare.hbs');
    for (const at of topLevel) replacements.push({ ...parseExtern(masked, at, flag, refuse), kind: 'extern', text: declare!({ key, initiallyTrue: shared.initiallyTrue }) });
  } else {
    if (topLevel.length === 0) {
      throw new TransformError(`${file}: no file-scope declaration of ${flag}`, 'name a flag declared at file scope in this file');
    }
    for (const at of topLevel.slice(1)) {
      // A shared flag's export exports the key: the other files' uses become the key's.
      const exported = shared?.role === 'define' ? exportAt(masked, at, flag) : undefined;
      if (exported) replacements.push({ ...exported, kind: 'export', text: key });
      else refuse(at, `${flag} is used at file scope again (declared twice, or passed to a macro)`);
    }
    const d = parseDeclaration(masked, topLevel[0]!, flag, refuse, shared?.role === 'define');
    decl = d;
    replacements.push({ ...d.span, kind: 'declaration', text: fragments.define({ key, initiallyTrue: d.initiallyTrue, readOnlyAfterInit: d.readOnlyAfterInit || !!opts.bootOnly, shared: !!shared }) });
  }
  for (const at of uses.filter((u) => !blocks.isTopLevel(u))) {
    const write = parseWrite(masked, at, flag, decl.type, refuse);
    if (write) {
      replacements.push({ start: write.start, end: write.end, kind: 'write', text: fragments.write({ key, enable: write.enable }), enable: write.enable });
      continue;
    }
    const value = opts.values && fragments.value ? valueRead(masked, at, flag) : undefined;
    if (value) {
      replacements.push({ ...value, kind: 'value', text: fragments.value!({ key }) });
      continue;
    }
    const read = parseBranchRead(masked, at, flag, refuse);
    const hint = read.hint ?? ((usualValue ?? decl.initiallyTrue) ? 'likely' : 'unlikely');
    replacements.push({ start: read.start, end: read.end, kind: 'read', text: fragments.read({ key, hint, negated: read.negated }), hint: { before: read.hint, after: hint } });
  }
  if (!shared && !replacements.some((r) => r.kind === 'read')) {
    throw new TransformError(`${file}: ${flag} is never tested in a branch`, 'a static key only pays off where a branch tests it');
  }

  let out = text;
  const records = new Map<Replacement, SiteRecord>();
  for (const r of [...replacements].sort((a, b) => b.start - a.start)) {
    const facts = { ...(r.hint ? { hint: r.hint } : {}), ...(r.enable !== undefined ? { enable: r.enable } : {}) };
    records.set(r, { line: lines.lineOf(r.start), function: enclosingFunction(masked, blocks, r.start), before: text.slice(r.start, r.end), after: r.text, ...facts });
    out = out.slice(0, r.start) + r.text + out.slice(r.end);
  }
  out = out
    .split('\n')
    .map((line) => (line.includes(`&${key})`) ? wrapCondition(line) : line))
    .join('\n');
  // A comment that still named the flag would name a variable that is gone: it names the key now. Unless a boot
  // option of the file has the flag's name ("force_ep80219" on 6.1): the comment may mean the option, which stays.
  const option = optionNamed(text, flag);
  const named = commentMentions(out, maskC(out), flag);
  const mentions = option ? [] : named;
  const commentLines = new LineIndex(out);
  const commentsUpdated = [...new Set(mentions.map((at) => commentLines.lineOf(at)))];
  for (const at of [...mentions].reverse()) out = out.slice(0, at) + key + out.slice(at + flag.length);
  // Another file of a shared flag that does not declare the key gets it, and the API, from the header that does.
  const declaresKey = shared?.role !== 'use' || replacements.some((r) => r.kind === 'extern');
  const includeAdded = declaresKey && !JUMP_LABEL_INCLUDE.test(maskC(out)) && !STATIC_KEY_API.test(masked);
  if (includeAdded) out = addInclude(out, fragments.include());
  const of = (kind: Replacement['kind']) => replacements.filter((r) => r.kind === kind).map((r) => records.get(r)!);
  return {
    text: out,
    type: decl.type,
    initiallyTrue: decl.initiallyTrue,
    readOnlyAfterInit: decl.readOnlyAfterInit || !!opts.bootOnly,
    readOnlyDeclared: decl.readOnlyAfterInit,
    declaration: of('declaration')[0],
    declarations: of('extern'),
    reads: of('read'),
    writes: of('write'),
    values: of('value'),
    includeAdded,
    commentsUpdated,
    commentsKept: option && named.length > 0 ? option : false,
  };
}

/**
 * A read of the flag's value that is no branch test (what parseBranchRead() refuses as read outside a branch or an
 * if/while condition): its span, READ_ONCE() included; undefined for a test, a write or a comparison.
 */
function valueRead(masked: string, at: number, flag: string): { start: number; end: number } | undefined {
  try {
    parseBranchRead(masked, at, flag, (_o, why) => {
      throw new Error(why);
    });
    return undefined;
  } catch (e) {
    if (!/read outside (a branch|an if\/while) condition/.test((e as Error).message)) return undefined;
  }
  let start = at;
  let end = at + flag.length;
  const open = prevNonSpace(masked, start);
  if (masked[open] === '(' && wordEndingAt(masked, prevNonSpace(masked, open)) === 'READ_ONCE' && masked[nextNonSpace(masked, end)] === ')') {
    start = prevNonSpace(masked, open) - 'READ_ONCE'.length + 1;
    end = nextNonSpace(masked, end) + 1;
  }
  return { start, end };
}

export function isMemberAccess(masked: string, at: number): boolean {
  const p = prevNonSpace(masked, at);
  return masked[p] === '.' || (masked[p] === '>' && masked[p - 1] === '-');
}

export function isPreprocessorLine(masked: string, at: number): boolean {
  const start = masked.lastIndexOf('\n', at) + 1;
  return /^\s*#/.test(masked.slice(start, at));
}

export type Refuse = (offset: number, why: string) => never;

/** `static bool flag __read_mostly = false;` and its permutations; anything else is refused. */
export function parseDeclaration(masked: string, at: number, flag: string, refuse: Refuse, shared = false) {
  const start = masked.lastIndexOf('\n', at) + 1;
  const semi = masked.indexOf(';', at);
  if (semi < 0 || masked.slice(at, semi).includes('\n\n')) refuse(at, `cannot read the declaration of ${flag}`);
  const [lhs = '', init, ...rest] = masked.slice(start, semi).split('=').map((part) => part.trim());
  if (rest.length > 0 || /[^\w\s]/.test(lhs)) refuse(at, `cannot read the declaration of ${flag}`);
  const words = lhs.split(/\s+/);
  if (!words.includes(flag)) refuse(at, `cannot read the declaration of ${flag}`);
  if (words[0] === 'extern') refuse(at, `${flag} is declared extern here; convert it in the file that defines it`);
  if (!shared && !words.includes('static')) refuse(at, `${flag} is not static, so other files may use it (a shared flag needs DECLARE_STATIC_KEY in a header)`);
  const types = words.filter((w) => w === 'bool' || w === 'int');
  if (types.length !== 1) refuse(at, `${flag} is not a plain bool or int flag`);
  const others = words.filter((w) => !['static', 'bool', 'int', flag].includes(w) && !FLAG_ATTRIBUTES.has(w));
  if (others.length > 0) refuse(at, `the declaration of ${flag} has ${others.join(' ')}, which a static key cannot keep`);
  if (words[words.length - 1] !== flag && !FLAG_ATTRIBUTES.has(words[words.length - 1]!)) refuse(at, `cannot read the declaration of ${flag}`);
  let initiallyTrue = false;
  if (init !== undefined) {
    if (init === 'true' || init === '1') initiallyTrue = true;
    else if (init !== 'false' && init !== '0') refuse(at, `${flag} starts as ${init}, not a constant true/false/0/1`);
  }
  return {
    span: { start, end: semi + 1 },
    type: types[0] as 'bool' | 'int',
    initiallyTrue,
    readOnlyAfterInit: words.includes('__ro_after_init'),
  };
}

/** `EXPORT_SYMBOL(flag);` / `EXPORT_SYMBOL_GPL(flag);`: the span of the name in it; undefined for any other use. */
function exportAt(masked: string, at: number, flag: string): { start: number; end: number } | undefined {
  const open = prevNonSpace(masked, at);
  const close = nextNonSpace(masked, at + flag.length);
  const macro = wordEndingAt(masked, prevNonSpace(masked, open));
  if (masked[open] !== '(' || masked[close] !== ')' || !/^EXPORT_SYMBOL(_GPL)?$/.test(macro)) return undefined;
  return { start: at, end: at + flag.length };
}

/** `extern bool flag;` (attributes allowed) as a statement of its own: its span; anything else at file scope is refused. */
function parseExtern(masked: string, at: number, flag: string, refuse: Refuse): { start: number; end: number } {
  const start = masked.lastIndexOf('\n', at) + 1;
  const semi = masked.indexOf(';', at);
  const words = semi < 0 ? [] : masked.slice(start, semi).trim().split(/\s+/);
  const plain = words[0] === 'extern' && words.includes(flag) && words.every((w) => ['extern', 'bool', 'int', flag].includes(w) || FLAG_ATTRIBUTES.has(w));
  if (!plain) refuse(at, `${flag} is used at file scope other than by an extern declaration`);
  return { start, end: semi + 1 };
}

/** `flag = true;` / `WRITE_ONCE(flag, 0);` as a statement; undefined when the use is no write; refusal for other writes. */
export function parseWrite(masked: string, at: number, flag: string, type: 'bool' | 'int', refuse: Refuse) {
  let start = at;
  let after = nextNonSpace(masked, at + flag.length);
  let closeWrapper = false;
  const before = prevNonSpace(masked, at);
  if (masked[before] === '(' && wordEndingAt(masked, before - 1) === 'WRITE_ONCE') {
    start = before - 'WRITE_ONCE'.length;
    if (masked[after] !== ',') refuse(at, `cannot read this WRITE_ONCE() of ${flag}`);
    closeWrapper = true;
  } else {
    const op = masked.slice(after, after + 2);
    if (/^(\+\+|--|[-+*/%&|^]=|<<|>>)/.test(op) || /(\+\+|--)$/.test(masked.slice(prevNonSpace(masked, at) - 1, prevNonSpace(masked, at) + 1))) {
      refuse(at, `${flag} is changed arithmetically, not set to a constant`);
    }
    if (masked[after] !== '=' || masked[after + 1] === '=') return undefined;
  }
  const valueStart = nextNonSpace(masked, after + 1);
  const value = /^[A-Za-z0-9_]+/.exec(masked.slice(valueStart))?.[0] ?? '';
  let end = nextNonSpace(masked, valueStart + value.length);
  if (closeWrapper) {
    if (masked[end] !== ')') refuse(at, `${flag} is written with a non-constant value`);
    end = nextNonSpace(masked, end + 1);
  }
  const constants = type === 'bool' ? ['true', 'false', '0', '1'] : ['0', '1'];
  if (!constants.includes(value)) refuse(at, `${flag} is written with a value that is not a constant ${constants.join('/')}`);
  const prev = prevNonSpace(masked, start);
  // After a preprocessor line (`#ifdef CONFIG_X`) a statement starts.
  const prevChar = prev >= 0 && isPreprocessorLine(masked, prev) ? ';' : (masked[prev] ?? ';');
  if (masked[end] !== ';' || (!';{}):'.includes(prevChar) && wordEndingAt(masked, prev) !== 'else' && prev >= 0)) {
    refuse(at, `the write to ${flag} is part of an expression, not a statement`);
  }
  return { start, end: end + 1, enable: value === 'true' || value === '1' };
}

/**
 * A read that is a truth value in the condition of an `if` or `while`, or of BUG_ON()/WARN_ON()/WARN(): `x`, `!x`,
 * `READ_ONCE(x)`, optionally inside `likely()`/`unlikely()`, as the whole condition or an operand of `&&`/`||`.
 * Anything else is refused.
 */
export function parseBranchRead(masked: string, at: number, flag: string, refuse: Refuse) {
  let start = at;
  let end = at + flag.length;
  const amp = prevNonSpace(masked, at);
  if (masked[amp] === '&' && masked[amp - 1] !== '&') refuse(at, `the address of ${flag} is taken, so it may be written through a pointer`);
  const wrappedBy = (name: string): boolean => {
    const open = prevNonSpace(masked, start);
    const close = nextNonSpace(masked, end);
    if (masked[open] !== '(' || masked[close] !== ')' || wordEndingAt(masked, open - 1) !== name) return false;
    start = open - name.length;
    end = close + 1;
    return true;
  };
  const bang = (): boolean => {
    const p = prevNonSpace(masked, start);
    if (masked[p] !== '!') return false;
    start = p;
    return true;
  };
  wrappedBy('READ_ONCE');
  let negated = bang();
  let hint: Hint | undefined;
  if (wrappedBy('unlikely')) hint = negated ? 'likely' : 'unlikely';
  else if (wrappedBy('likely')) hint = negated ? 'unlikely' : 'likely';
  if (hint && bang()) negated = !negated;

  const prev = prevNonSpace(masked, start);
  const next = nextNonSpace(masked, end);
  const prevOp = masked.slice(prev - 1, prev + 1);
  const nextOp = masked.slice(next, next + 2);
  const operandOfLogic = prevOp === '&&' || prevOp === '||' || nextOp === '&&' || nextOp === '||';
  const wholeCondition = masked[prev] === '(' && (masked[next] === ')' || (masked[next] === ',' && WARN_WITH_MESSAGE.has(wordEndingAt(masked, prevNonSpace(masked, prev)))));
  if (/^[=!<>]=|^[<>]/.test(nextOp) || /[=!<>]=/.test(prevOp)) refuse(at, `${flag} is compared with a value, not tested as a boolean`);
  if (!operandOfLogic && !wholeCondition) refuse(at, `${flag} is read outside a branch condition`);
  if (!inBranchCondition(masked, start)) refuse(at, `${flag} is read outside an if/while condition`);
  return { start, end, negated, hint };
}

/** Macros that test their (first) argument as a branch condition: each is `if (unlikely(cond))` inside. */
const CONDITION_MACROS = new Set(['BUG_ON', 'WARN_ON', 'WARN_ON_ONCE', 'VM_BUG_ON', 'VM_WARN_ON', 'VM_WARN_ON_ONCE', 'WARN', 'WARN_ONCE']);
/** Those whose first argument is the condition and the rest a message. */
const WARN_WITH_MESSAGE = new Set(['WARN', 'WARN_ONCE']);

/**
 * Walk out through enclosing parens (plain grouping and likely/unlikely) to an `if (` or `while (`, or to a macro that
 * tests its argument (BUG_ON, WARN_ON, WARN_ON_ONCE, WARN's condition).
 */
function inBranchCondition(masked: string, from: number): boolean {
  let pos = from;
  for (;;) {
    const open = enclosingParen(masked, pos);
    if (open < 0) return false;
    const word = wordEndingAt(masked, prevNonSpace(masked, open));
    if (word === 'if' || word === 'while' || CONDITION_MACROS.has(word)) return true;
    if (word !== '' && word !== 'likely' && word !== 'unlikely') return false;
    pos = open;
  }
}

/** Insert the include after the first block of <linux/...> includes, in order when that block is sorted. */
/** The boot option of the file (__setup(), early_param()) that has the name `name`, with or without its '='. */
function optionNamed(text: string, name: string): string | undefined {
  return new RegExp(`\\b(?:__setup|early_param)\\(\\s*"(${name}=?)"`).exec(text)?.[1];
}

function addInclude(text: string, include: string): string {
  const lines = text.split('\n');
  const linux = lines.flatMap((l, i) => (/^#include\s*<linux\//.test(l) ? [i] : []));
  if (linux.length === 0) {
    const anyInclude = lines.findIndex((l) => l.startsWith('#include'));
    lines.splice(anyInclude < 0 ? 0 : anyInclude, 0, include);
    return lines.join('\n');
  }
  let end = 0;
  while (end + 1 < linux.length && linux[end + 1] === linux[end]! + 1) end++;
  const block = linux.slice(0, end + 1);
  const names = block.map((i) => lines[i]!);
  const sorted = names.every((n, i) => i === 0 || names[i - 1]! <= n);
  const at = sorted ? (block.find((i) => lines[i]! > include) ?? block[block.length - 1]! + 1) : block[block.length - 1]! + 1;
  lines.splice(at, 0, include);
  return lines.join('\n');
}

const MAX_COLUMNS = 80;

function columns(text: string): number {
  let col = 0;
  for (const c of text) col = c === '\t' ? col + 8 - (col % 8) : col + 1;
  return col;
}

/**
 * A condition made longer than 80 columns by the conversion is broken after its last `&&`/`||` that fits, the rest
 * aligned with the open parenthesis of the `if (`/`while (`, as coding-style.rst asks.
 */
export function wrapCondition(line: string): string {
  if (columns(line) <= MAX_COLUMNS) return line;
  const m = /^(\s*)(?:\}\s*else\s+)?(if|while)\s*\(/.exec(line);
  if (!m) return line;
  const open = m[0].length - 1;
  const indent = m[1]! + ' '.repeat(columns(line.slice(0, open + 1)) - columns(m[1]!));
  const parts: string[] = [];
  let rest = line;
  let from = open + 1;
  for (;;) {
    const at = lastFittingBreak(rest, from);
    if (at < 0 || columns(rest) <= MAX_COLUMNS) break;
    parts.push(rest.slice(0, at).trimEnd());
    rest = indent + rest.slice(at).trimStart();
    from = indent.length;
  }
  return [...parts, rest].join('\n');
}

/** Offset just after the last top-level `&&`/`||` from `from` on that still ends within 80 columns, or -1. */
function lastFittingBreak(line: string, from: number): number {
  const masked = maskC(line);
  let depth = 0;
  let best = -1;
  for (let i = from; i < masked.length - 1; i++) {
    const c = masked[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && /^(&&|\|\|)/.test(masked.slice(i, i + 2)) && columns(line.slice(0, i + 2)) <= MAX_COLUMNS) best = i + 2;
  }
  return best;
}
