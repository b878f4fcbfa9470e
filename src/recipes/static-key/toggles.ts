// Uses of a flag that hand it to kernel machinery: a module parameter, a sysctl table entry, a debugfs file, an
// export, or its address passed on. Each says what a static-key conversion would need instead. Pure.
import type { CFile } from '../../c-source/functions.js';
import { enclosingParen, prevNonSpace, wordEndingAt } from '../../c-source/text.js';

export interface Toggle {
  /** `ignore`: not a read or a write (a parameter's description, sizeof). */
  kind: 'param' | 'sysctl' | 'debugfs' | 'address' | 'exported' | 'ignore';
  text: string;
  needs?: string;
  /** The interface allows values other than 0 and 1: no static key can hold them. */
  reject?: boolean;
}

const PARAM = /^(module_param|module_param_named|module_param_unsafe|module_param_named_unsafe|module_param_cb|module_param_cb_unsafe|module_param_hw|module_param_hw_named|core_param|core_param_unsafe)$/;
const DEBUGFS = /^debugfs_create_(bool|u8|u16|u32|u64|x8|x16|x32|x64|atomic_t|ulong|size_t)$/;
const PARSE = /^(kstrtobool|strtobool|kstrtoint|kstrtouint|kstrtou8|kstrtoul|get_option|parse_option_str)$/;
/** sysctl handlers that store a boolean, and those that store any integer (the key could not hold it). */
const SYSCTL_BOOLEAN = /^proc_dobool$/;
const SYSCTL_ANY_INT = /^(proc_dointvec|proc_douintvec|proc_dou8vec|proc_dointvec_jiffies|proc_dointvec_ms_jiffies)$/;
const SYSCTL_BOUNDED = /^(proc_dointvec_minmax|proc_douintvec_minmax|proc_dou8vec_minmax)$/;

/** What the use of a flag at `at` is, when it is one of these; undefined for ordinary reads and writes. */
export function toggleAt(cf: CFile, at: number): Toggle | undefined {
  const m = cf.masked;
  const open = enclosingParen(m, at);
  const callee = open >= 0 ? wordEndingAt(m, prevNonSpace(m, open)) : '';
  if (/^(sizeof|typeof|__typeof__|MODULE_PARM_DESC|ARRAY_SIZE)$/.test(callee)) return { kind: 'ignore', text: '' };
  if (PARAM.test(callee)) return { kind: 'param', text: `${callee}(): a module parameter, stored by the parameter code at boot, at load or through sysfs`, needs: 'a param setter' };
  if (/^EXPORT_SYMBOL/.test(callee)) return { kind: 'exported', text: `${callee}(): exported to modules` };
  const amp = prevNonSpace(m, at);
  if (m[amp] !== '&' || m[amp - 1] === '&') return undefined;
  const line = cf.lines.lineOf(at);
  if (DEBUGFS.test(callee)) return { kind: 'debugfs', text: `${callee}() gives debugfs its address`, needs: 'a debugfs file with its own fops' };
  if (PARSE.test(callee)) return { kind: 'address', text: `its address is passed to ${callee}(), which stores the parsed value`, needs: 'a constant write that switches the key' };
  const field = fieldBefore(m, amp);
  if (field === 'data') return sysctlEntry(cf, at);
  if (callee) return { kind: 'address', text: `its address is passed to ${callee}() at line ${line}, which may write through it`, needs: 'writes that switch the key, not stores through its address' };
  return { kind: 'address', text: `its address is taken at line ${line}, so it may be written through a pointer`, needs: 'writes that switch the key, not stores through its address' };
}

/** `.field = &x`: the field name, or ''. */
function fieldBefore(m: string, amp: number): string {
  const eq = prevNonSpace(m, amp);
  if (m[eq] !== '=') return '';
  const end = prevNonSpace(m, eq);
  const field = wordEndingAt(m, end);
  return m[prevNonSpace(m, end - field.length + 1)] === '.' ? field : '';
}

/** A ctl_table entry `{ .data = &flag, .proc_handler = ..., .extra1/.extra2 }`. */
function sysctlEntry(cf: CFile, at: number): Toggle {
  const m = cf.masked;
  const open = m.lastIndexOf('{', at);
  const close = m.indexOf('}', at);
  const entry = m.slice(open, close < 0 ? m.length : close);
  const field = (name: string) => new RegExp(`\\.${name}\\s*=\\s*&?\\s*([\\w]+)`).exec(entry)?.[1];
  const handler = field('proc_handler');
  if (!handler) return { kind: 'address', text: `its address is stored in .data of a table at line ${cf.lines.lineOf(at)}`, needs: 'writes that switch the key, not stores through its address' };
  const sysctl = { kind: 'sysctl' as const, needs: 'a sysctl handler' };
  if (SYSCTL_BOOLEAN.test(handler)) return { ...sysctl, text: `a sysctl (${handler})` };
  if (SYSCTL_ANY_INT.test(handler)) return { kind: 'sysctl', text: `a sysctl (${handler}) that stores any integer, not only 0 and 1`, reject: true };
  if (SYSCTL_BOUNDED.test(handler)) {
    const lo = field('extra1') ?? 'SYSCTL_ZERO';
    const hi = field('extra2');
    if (/^(SYSCTL_ZERO|SYSCTL_ONE)$/.test(lo) && hi === 'SYSCTL_ONE') return { ...sysctl, text: `a sysctl (${handler}, 0..1)` };
    return { kind: 'sysctl', text: `a sysctl (${handler}, ${lo}..${hi ?? 'INT_MAX'}) that stores values other than 0 and 1`, reject: true };
  }
  return { ...sysctl, text: `a sysctl written by ${handler}()` };
}
