// The runtime interfaces that switch a series' static keys (a module parameter's set operation, a sysctl handler),
// and how a booted kernel proves they still behave as the interfaces they replaced: the workload reads the value,
// writes each accepted and one refused input, reads back after each, and restores it. Pure: text in, probes and
// verdicts out.
import { CFile } from '../../c-source/functions.js';
import { modeBits } from '../../c-source/text.js';

export interface ToggleProbe {
  /** /sys/module/<module>/parameters/<name> or /proc/sys/<dir>/<name>. */
  path: string;
  kind: 'param' | 'sysctl';
  /** Where it is defined: file:line. */
  where: string;
  /** What reading it gives for the key's initial state. */
  initial: string;
  /** Each write, and what reading it back must give ('refused': the write must fail and leave the value). */
  writes: { value: string; expect: string | 'refused' }[];
}

/**
 * The probes of one file of the series' tip: module_param_cb()/core_param_cb() whose ops' set operation, and ctl_table
 * entries whose proc_handler, switch one of `keys` (static_branch_enable/disable of it in their body).
 */
export function toggleProbes(file: string, text: string, keys: Set<string>, initiallyTrue: (key: string) => boolean): ToggleProbe[] {
  const cf = new CFile(file, text);
  const switching = (fn: string): string | undefined => {
    const def = cf.functions.get(fn);
    if (!def) return undefined;
    const body = cf.masked.slice(def.open, def.close);
    return [...keys].find((k) => new RegExp(`\\bstatic_branch_(?:enable|disable)\\s*\\(\\s*&\\s*${k}\\b`).test(body));
  };
  const out: ToggleProbe[] = [];
  const module = file.split('/').pop()!.replace(/\.c$/, '');
  for (const m of cf.masked.matchAll(/\b(module_param_cb|core_param_cb)\s*\(\s*(\w+)\s*,\s*&\s*(\w+)\s*,[^,]*,\s*([^)]+?)\s*\)/g)) {
    const ops = new RegExp(`\\b${m[3]}\\s*=\\s*\\{([^}]*)\\}`).exec(cf.masked)?.[1] ?? '';
    const set = /\.set\s*=\s*(\w+)/.exec(ops)?.[1];
    const key = set && switching(set);
    // A parameter nobody may write at run time has only its boot-time value to check: not probed.
    if (!key || ((modeBits(m[4]!) ?? 0) & 0o222) === 0) continue;
    const dir = m[1] === 'core_param_cb' ? 'kernel' : module;
    const on = initiallyTrue(key);
    out.push({
      path: `/sys/module/${dir}/parameters/${m[2]}`,
      kind: 'param',
      where: `${file}:${cf.lines.lineOf(m.index!)}`,
      initial: on ? 'Y' : 'N',
      // param_set_bool(): kstrtobool() takes 0/1, y/n, on/off.
      writes: [
        { value: '1', expect: 'Y' },
        { value: 'n', expect: 'N' },
        { value: 'on', expect: 'Y' },
        { value: '0', expect: 'N' },
        { value: '2', expect: 'refused' },
      ],
    });
  }
  for (const m of cf.masked.matchAll(/\.proc_handler\s*=\s*(\w+)/g)) {
    const key = switching(m[1]!);
    if (!key) continue;
    const open = cf.masked.lastIndexOf('{', m.index!);
    const entry = text.slice(open, cf.masked.indexOf('}', m.index!));
    const procname = /\.procname\s*=\s*"([^"]+)"/.exec(entry)?.[1];
    const table = tableName(cf.masked, open);
    const dir = table && new RegExp(`register_sysctl(?:_init|_sz)?\\s*\\(\\s*"([^"]+)"\\s*,\\s*${table}\\b`).exec(text)?.[1];
    if (!procname || !dir) continue;
    const bool = /proc_dobool/.test(cf.masked.slice(cf.functions.get(m[1]!)!.open, cf.functions.get(m[1]!)!.close));
    const on = initiallyTrue(key);
    out.push({
      path: `/proc/sys/${dir.replace(/\./g, '/')}/${procname}`,
      kind: 'sysctl',
      where: `${file}:${cf.lines.lineOf(m.index!)}`,
      initial: on ? '1' : '0',
      // proc_dobool stores any int as a bool; proc_dointvec_minmax 0..1 refuses what is out of range.
      writes: bool
        ? [
            { value: '1', expect: '1' },
            { value: '0', expect: '0' },
            { value: '5', expect: '1' },
            { value: '0', expect: '0' },
          ]
        : [
            { value: '1', expect: '1' },
            { value: '0', expect: '0' },
            { value: '2', expect: 'refused' },
            { value: '-1', expect: 'refused' },
          ],
    });
  }
  return out;
}

function tableName(m: string, entryOpen: number): string | undefined {
  let depth = 0;
  for (let i = entryOpen - 1; i >= 0; i--) {
    if (m[i] === '}') depth++;
    else if (m[i] === '{') {
      if (depth-- === 0) return /(\w+)\s*(?:\[[^\]]*\])?\s*=\s*$/.exec(m.slice(Math.max(0, i - 200), i))?.[1];
    }
  }
  return undefined;
}

/** The busybox sh lines the workload ends with: each probe's readings as `@@kseries toggle <path> ...` lines. */
export function toggleScript(probes: ToggleProbe[]): string {
  const lines: string[] = [];
  for (const p of probes) {
    lines.push(`f=${p.path}`);
    lines.push(`if [ -e $f ]; then`);
    lines.push(`  echo "@@kseries toggle $f read $(cat $f)"`);
    for (const w of p.writes) lines.push(`  if echo ${w.value} > $f 2>/dev/null; then echo "@@kseries toggle $f write ${w.value} ok $(cat $f)"; else echo "@@kseries toggle $f write ${w.value} refused $(cat $f)"; fi`);
    lines.push(`  echo ${p.kind === 'param' ? (p.initial === 'Y' ? '1' : '0') : p.initial} > $f`);
    lines.push(`else echo "@@kseries toggle $f missing"; fi`);
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** What the console says of the probes, against what they must say; each difference is one failure line. */
export function judgeToggles(probes: ToggleProbe[], console: string): string[] {
  const said = new Map<string, string[]>();
  for (const line of console.split(/\r?\n/)) {
    const m = /@@kseries toggle (\S+) (.*)$/.exec(line);
    if (m) said.set(m[1]!, [...(said.get(m[1]!) ?? []), m[2]!.trim()]);
  }
  const out: string[] = [];
  for (const p of probes) {
    const got = said.get(p.path) ?? [];
    const name = `${p.path} (${p.where})`;
    if (got.length === 0) {
      out.push(`${name}: the workload never reached it`);
      continue;
    }
    if (got[0] === 'missing') {
      out.push(`${name}: not in the booted kernel`);
      continue;
    }
    if (got[0] !== `read ${p.initial}`) out.push(`${name}: reads "${got[0]!.replace(/^read ?/, '')}" at boot, expected "${p.initial}"`);
    let value = p.initial;
    p.writes.forEach((w, i) => {
      const line = got[i + 1] ?? '';
      const want = w.expect === 'refused' ? `write ${w.value} refused ${value}` : `write ${w.value} ok ${w.expect}`;
      if (w.expect !== 'refused') value = w.expect;
      if (line !== want) out.push(`${name}: writing ${w.value} gave "${line}", expected "${want}"`);
    });
  }
  return out;
}
