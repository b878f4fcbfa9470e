// A runtime toggle made a static key with a setter: the flag an administrator flips through a bool module parameter,
// a 0/1 sysctl or a debugfs bool becomes a key, and the interface keeps its name, permissions, accepted inputs and the
// value it reads back, now switching the key. Text in, text out; the rest of the conversion (declaration, tests,
// constant writes) is the static-key recipe's, run on the file with the interface set aside.
import { TransformError } from '../../../errors.js';
import { CFile } from '../../../c-source/functions.js';
import { findIdentifier, modeBits, nextNonSpace, prevNonSpace, wordEndingAt } from '../../../c-source/text.js';
import { convertFlag, type Conversion, type KeyFragments } from '../convert.js';

/** The interface a toggle is written through, as the commit message and the boot check describe it. */
export type ToggleInterface =
  | { kind: 'param'; name: string; perm: string; macro: string }
  | { kind: 'sysctl'; procname: string; handler: string; table: string; path?: string }
  | { kind: 'debugfs'; name: string; mode: string };

/** The code a toggle conversion writes, rendered from the recipe's templates. */
export interface ToggleFragments extends KeyFragments {
  /** The setter and getter, their kernel_param_ops, and module_param_cb()/core_param_cb() in place of module_param(). */
  param(v: { flag: string; key: string; name: string; perm: string; core: boolean }): string;
  /** The proc handler that wraps the original one on a local copy and switches the key. */
  sysctl(v: { flag: string; key: string; handler: string; type: 'bool' | 'int' }): string;
  /** The file_operations that read and write the key as debugfs_create_bool()'s did the flag (by its mode). */
  debugfs(v: { flag: string; key: string; readable: boolean; writable: boolean }): string;
}

export interface ToggleConversion extends Conversion {
  toggle: ToggleInterface;
}

const PARAM = /^(module_param|module_param_named|core_param)$/;
const SYSCTL = /^(proc_dobool|proc_dointvec_minmax|proc_douintvec_minmax)$/;

export function convertToggle(file: string, text: string, flag: string, key: string, fragments: ToggleFragments): ToggleConversion {
  const cf = new CFile(file, text);
  const m = cf.masked;
  const refuse = (at: number, why: string): never => {
    const line = cf.lines.lineOf(at);
    throw new TransformError(`${file}:${line}: ${why}: \`${cf.lines.lineText(line).trim()}\``, 'convert that use by hand first, or choose another flag; nothing was changed');
  };
  const uses = findIdentifier(m, flag);
  /** Spans set aside while the static-key conversion runs, and what replaces them after. */
  const aside: { start: number; end: number; text: string }[] = [];
  /** Code inserted before an offset (the start of a line). */
  const inserts: { at: number; text: string }[] = [];
  let toggle: ToggleInterface | undefined;
  const declAt = uses.find((at) => cf.blocks.isTopLevel(at))!;
  const declaration = cf.lines.lineText(cf.lines.lineOf(declAt));
  const readOnly = /__ro_after_init/.test(declaration);
  const type = /\bbool\b/.test(declaration) ? 'bool' : 'int';
  for (const at of uses) {
    const open = enclosingOpen(m, at);
    const callee = open >= 0 ? wordEndingAt(m, prevNonSpace(m, open)) : '';
    // A parameter's description names the parameter, not the variable; sizeof(flag) becomes sizeof(its type).
    if (/^(sizeof|MODULE_PARM_DESC)$/.test(callee)) {
      aside.push({ start: at, end: at + flag.length, text: callee === 'sizeof' ? type : flag });
      continue;
    }
    if (PARAM.test(callee)) {
      if (toggle) refuse(at, `${flag} has a second interface`);
      const start = open - callee.length;
      const end = m.indexOf(';', at) + 1;
      const args = splitArgs(m.slice(open + 1, m.lastIndexOf(')', end)));
      const [name, type, perm] = callee === 'module_param' ? [args[0]!, args[1]!, args[2]!] : [args[0]!, args[2]!, args[3]!];
      if (type !== 'bool') refuse(at, `${flag} is a module parameter of type ${type}: a key holds only the values of a bool`);
      if (readOnly && perm !== '0') refuse(at, `${flag} is __ro_after_init but its parameter is writable at run time`);
      if (declAt > at) refuse(at, `${flag} is declared after its module parameter`);
      toggle = { kind: 'param', name, perm, macro: callee };
      aside.push({ start, end, text: fragments.param({ flag, key, name, perm, core: callee === 'core_param' }) });
      continue;
    }
    const amp = prevNonSpace(m, at);
    if (m[amp] !== '&' || m[amp - 1] === '&') continue;
    if (callee === 'debugfs_create_bool') {
      if (toggle) refuse(at, `${flag} has a second interface`);
      const start = open - callee.length;
      const end = m.indexOf(';', at) + 1;
      const args = splitArgs(text.slice(open + 1, m.lastIndexOf(')', end)));
      const fn = cf.functionAt(at);
      if (!fn) refuse(at, `debugfs_create_bool() of ${flag} outside a function`);
      const mode = modeBits(args[1]!);
      if (mode === undefined) refuse(at, `the debugfs mode ${args[1]} of ${flag} is no constant kseries can read`);
      toggle = { kind: 'debugfs', name: args[0]!, mode: args[1]! };
      aside.push({ start, end, text: `debugfs_create_file(${args[0]}, ${args[1]}, ${args[2]}, NULL, &${flag}_fops);` });
      // As debugfs_create_bool(): no read or write operation where the mode gives nobody that permission.
      inserts.push({ at: lineStart(m, declarationStart(m, fn!.at)), text: `${fragments.debugfs({ flag, key, readable: (mode! & 0o444) !== 0, writable: (mode! & 0o222) !== 0 })}\n\n` });
      continue;
    }
    const eq = prevNonSpace(m, amp);
    const field = wordEndingAt(m, prevNonSpace(m, eq));
    if (m[eq] === '=' && field === 'data') {
      if (toggle) refuse(at, `${flag} has a second interface`);
      const entryOpen = m.lastIndexOf('{', at);
      const entryClose = m.indexOf('}', at);
      const entry = m.slice(entryOpen, entryClose);
      const value = (name: string) => new RegExp(`\\.${name}\\s*=\\s*([^,}]+?)\\s*[,}\\n]`).exec(`${entry}}`)?.[1];
      const handler = value('proc_handler') ?? '';
      if (!SYSCTL.test(handler) || (handler === 'proc_dobool') !== (type === 'bool')) refuse(at, `the sysctl of ${flag} is handled by ${handler || 'nothing'}: only proc_dobool on a bool and proc_dointvec_minmax limited to 0..1 keep their values in a key`);
      if (handler !== 'proc_dobool' && !(value('extra1') === 'SYSCTL_ZERO' && value('extra2') === 'SYSCTL_ONE')) refuse(at, `the sysctl of ${flag} takes values other than 0 and 1`);
      if (readOnly) refuse(at, `${flag} is __ro_after_init but its sysctl is writable`);
      // `.data = &flag,` goes; the handler is ours, wrapping the original one.
      const lineFrom = lineStart(m, at);
      const lineTo = m.indexOf('\n', at) + 1;
      aside.push({ start: lineFrom, end: lineTo, text: '' });
      const h = new RegExp(`\\.proc_handler\\s*=\\s*${handler}\\b`).exec(entry)!;
      const hAt = entryOpen + h.index + h[0].length - handler.length;
      aside.push({ start: hAt, end: hAt + handler.length, text: `${flag}_sysctl` });
      const procname = /\.procname\s*=\s*"([^"]*)"/.exec(text.slice(entryOpen, entryClose))?.[1] ?? '';
      const table = tableOf(m, entryOpen);
      toggle = { kind: 'sysctl', procname, handler, table: table.name, path: sysctlPath(text, table.name) };
      inserts.push({ at: lineStart(m, table.start), text: `${fragments.sysctl({ flag, key, handler, type })}\n\n` });
      continue;
    }
  }
  if (!toggle) throw new TransformError(`${file}: ${flag} has no module parameter, sysctl or debugfs file`, 'static-key-toggle converts a flag written through one of those; kseries scan static-keys says how yours is written');

  // Set the interface aside (placeholders that name no identifier), convert the rest, put the new interface in.
  const token = (i: number) => `__kseries_toggle_${i}__`;
  const edits = [...aside.map((a, i) => ({ ...a, placeholder: token(i) })), ...inserts.map((s, i) => ({ start: s.at, end: s.at, text: s.text, placeholder: `/* ${token(aside.length + i)} */\n` }))].sort((a, b) => b.start - a.start || b.end - a.end);
  let staged = text;
  for (const e of edits) staged = staged.slice(0, e.start) + e.placeholder + staged.slice(e.end);
  const conv = convertFlag(file, staged, flag, key, fragments);
  let out = conv.text;
  for (const e of edits) out = out.replace(e.placeholder, () => e.text);
  return { ...conv, text: out, toggle };
}

/** The `(` of the call or macro whose arguments hold `at`, across initializer braces not. */
function enclosingOpen(m: string, at: number): number {
  let depth = 0;
  for (let i = at - 1; i >= 0; i--) {
    const c = m[i];
    if (c === ')') depth++;
    else if (c === '(') {
      if (depth === 0) return i;
      depth--;
    } else if (c === ';' || c === '{' || c === '}') return -1;
  }
  return -1;
}

function splitArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(from, i).trim());
      from = i + 1;
    }
  }
  out.push(s.slice(from).trim());
  return out;
}

function lineStart(m: string, at: number): number {
  return m.lastIndexOf('\n', at - 1) + 1;
}

/** Where the declaration of the function or object named at `at` starts: after the last `;`, `}` or preprocessor line. */
function declarationStart(m: string, at: number): number {
  let i = at - 1;
  while (i >= 0 && !';}{'.includes(m[i]!)) {
    if (m[i] === '\n' && m[i + 1] === '#') return m.indexOf('\n', i + 1) + 1;
    i--;
  }
  return nextNonSpace(m, i + 1);
}

/** The ctl_table whose initializer holds the entry at `entryOpen`: its name and where its declaration starts. */
function tableOf(m: string, entryOpen: number): { name: string; start: number } {
  let depth = 0;
  let i = entryOpen - 1;
  for (; i >= 0; i--) {
    if (m[i] === '}') depth++;
    else if (m[i] === '{') {
      if (depth === 0) break;
      depth--;
    }
  }
  const eq = prevNonSpace(m, i);
  let end = prevNonSpace(m, eq);
  if (m[end] === ']') end = prevNonSpace(m, m.lastIndexOf('[', end));
  const name = wordEndingAt(m, end);
  return { name, start: declarationStart(m, end - name.length + 1) };
}

/** /proc/sys/<dir>/ of a table registered in the file with register_sysctl("dir", table) or register_sysctl_init(). */
function sysctlPath(text: string, table: string): string | undefined {
  const r = new RegExp(`register_sysctl(?:_init|_sz)?\\s*\\(\\s*"([^"]+)"\\s*,\\s*${table}\\b`).exec(text);
  return r ? r[1] : undefined;
}
