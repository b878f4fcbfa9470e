// The static-key writers of a C file and how a boot makes each one run: an initcall runs on every boot; a __setup() or
// early_param() handler only when its parameter is on the command line, with a value that reaches the write. Pure:
// text in, writers out.

export interface KeyWriter {
  /** The function that calls static_branch_enable/disable (or static_key_*). */
  function: string;
  line: number;
  /** The call, as written. */
  call: string;
  /** The key it switches (`&key` or `&key.key`), when the call names one. */
  key?: string;
  /** How it runs at boot: every boot, with a parameter, or not by booting (called from elsewhere). */
  runs: 'initcall' | 'param' | 'elsewhere';
  /** The kernel parameter that makes it run (`cgroup.memory=nosocket`), for `param`. */
  param?: string;
}

/** A call that switches a key: what `static_branch_enable()` and friends come down to. */
const WRITE = /\b(static_branch_(?:enable|disable)|static_key_(?:enable|disable|slow_inc|slow_dec)|static_branch_(?:inc|dec))(?:_cpuslocked)?\s*\(/;

/** Does this diff add a static key or a write of one? (The conversions `check` boots.) */
export function addsStaticKey(diff: string): boolean {
  return keysAdded(diff).size > 0;
}

/** The keys a diff defines or adds a write of, on its `+` lines. */
export function keysAdded(diff: string): Set<string> {
  const keys = new Set<string>();
  for (const line of diff.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++'))) {
    for (const m of line.matchAll(/\bDEFINE_STATIC_KEY_(?:TRUE|FALSE)(?:_RO)?\(\s*(\w+)\s*\)/g)) keys.add(m[1]!);
    const w = WRITE.exec(line);
    const k = w && keyOf(line.slice(w.index));
    if (k) keys.add(k);
  }
  return keys;
}

function keyOf(call: string): string | undefined {
  return /\(\s*&\s*(\w+)/.exec(call)?.[1];
}

export function keyWriters(text: string): KeyWriter[] {
  const lines = text.split('\n');
  const registered = registrations(text);
  const out: KeyWriter[] = [];
  for (const [i, line] of lines.entries()) {
    const m = WRITE.exec(line);
    if (!m || /^\s*(\*|\/\/|#)/.test(line)) continue;
    const fn = functionAround(lines, i);
    if (!fn) continue;
    const reg = registered.get(fn.name);
    const writer: KeyWriter = { function: fn.name, line: i + 1, call: line.trim(), key: keyOf(line.slice(m.index)), runs: reg ? (reg.param === undefined ? 'initcall' : 'param') : 'elsewhere' };
    if (reg?.param !== undefined) writer.param = paramFor(reg.param, lines.slice(fn.start, i + 1), m[1]!);
    out.push(writer);
  }
  return out;
}

/** The kernel parameters that make every `param` writer run: one per parameter name, values joined by commas. */
export function writerParams(writers: KeyWriter[]): string[] {
  const byName = new Map<string, string[]>();
  for (const w of writers) {
    if (w.runs !== 'param' || !w.param) continue;
    const [name, value] = w.param.includes('=') ? [w.param.slice(0, w.param.indexOf('=') + 1), w.param.slice(w.param.indexOf('=') + 1)] : [w.param, ''];
    const values = byName.get(name) ?? [];
    if (value && !values.includes(value)) values.push(value);
    byName.set(name, values);
  }
  return [...byName].map(([name, values]) => `${name}${values.join(',')}`);
}

/** Functions named in __setup()/early_param() (with the parameter) and in initcall registrations. */
function registrations(text: string): Map<string, { param?: string }> {
  const out = new Map<string, { param?: string }>();
  for (const m of text.matchAll(/^\s*(?:__setup|early_param)\(\s*"([^"]+)"\s*,\s*(\w+)\s*\)/gm)) {
    const early = m[0].includes('early_param');
    out.set(m[2]!, { param: early ? `${m[1]}=` : m[1]! });
  }
  for (const m of text.matchAll(/^\s*(?:(?:early|pure|core|postcore|arch|subsys|fs|rootfs|device|late)_initcall(?:_sync)?|module_init|__initcall|console_initcall)\(\s*(\w+)\s*\)/gm)) {
    if (!out.has(m[1]!)) out.set(m[1]!, {});
  }
  return out;
}

/**
 * The parameter that makes the write run: `name=` takes the string the nearest `if` above the write compares with
 * (strcmp, strncmp, sysfs_streq, parse_option_str, str_has_prefix), else a boolean value (1 to enable, 0 to
 * disable) for a handler that parses one, else the bare name.
 */
function paramFor(name: string, body: string[], call: string): string {
  const enables = /enable|inc/.test(call);
  if (!name.endsWith('=')) return name;
  for (let j = body.length - 2; j >= Math.max(0, body.length - 5); j--) {
    const m = /\b(?:strn?cmp|sysfs_streq|parse_option_str|str_has_prefix|strstr)\s*\([^"]*"([^"]+)"/.exec(body[j]!);
    if (m) return `${name}${m[1]}`;
  }
  if (body.some((l) => /\b(kstrtobool|strtobool|kstrtoint|kstrtouint|simple_strtoul)\s*\(/.test(l))) return `${name}${enables ? '1' : '0'}`;
  return `${name}${enables ? 'on' : 'off'}`;
}

/** The function whose body holds line `at`: its opening brace is the nearest `{` at column 0 above, its name before the `(`. */
function functionAround(lines: string[], at: number): { name: string; start: number } | undefined {
  for (let i = at; i >= 0; i--) {
    if (/^}/.test(lines[i]!) && i !== at) return undefined;
    if (!/^{/.test(lines[i]!)) continue;
    const head = lines.slice(Math.max(0, i - 4), i).join(' ');
    const m = /(\w+)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*$/.exec(head);
    return m ? { name: m[1]!, start: i } : undefined;
  }
  return undefined;
}
