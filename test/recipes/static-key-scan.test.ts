// The static-key classifier: one small C file per rule, and the verdict and reason it must give.
import { describe, expect, test } from 'vitest';
import { scanFile } from '../../src/recipes/static-key/scan.js';

const READER = 'void hot(void)\n{\n\tif (unlikely(f))\n\t\tslow();\n}\n';
const SETUP = 'static int __init f_setup(char *s)\n{\n\tf = true;\n\treturn 1;\n}\n__setup("f", f_setup);\n';

const cases: [what: string, source: string, verdict: 'auto' | 'manual' | 'reject', reason: RegExp][] = [
  ['written by a __setup() handler', `static bool f __read_mostly;\n${READER}${SETUP}`, 'auto', /__setup\(\) or initcall/],
  ['written by an initcall', `static bool f;\n${READER}static int __init f_init(void)\n{\n\tf = true;\n\treturn 0;\n}\nlate_initcall(f_init);\n`, 'auto', /initcall/],
  ['written by module_init', `static int f;\n${READER}static int __init f_init(void)\n{\n\tf = 1;\n\treturn 0;\n}\nmodule_init(f_init);\n`, 'auto', /initcall/],
  ['written by early_param()', `static bool f;\n${READER}static int __init f_early(char *s)\n{\n\tf = true;\n\treturn 0;\n}\nearly_param("f", f_early);\n`, 'manual', /before jump_label_init\(\)/],
  ['written under a spinlock', `static bool f;\n${READER}void stop(void)\n{\n\tspin_lock(&l);\n\tf = false;\n\tspin_unlock(&l);\n}\n${SETUP}`, 'manual', /may sleep/],
  ['written in an RCU read-side section', `static bool f;\n${READER}void stop(void)\n{\n\trcu_read_lock();\n\tf = false;\n\trcu_read_unlock();\n}\n${SETUP}`, 'manual', /may sleep/],
  ['written with interrupts off', `static bool f;\n${READER}void stop(void)\n{\n\tlocal_irq_disable();\n\tf = false;\n}\n${SETUP}`, 'manual', /may sleep/],
  ['written in an interrupt handler', `static bool f;\n${READER}static irqreturn_t f_irq(int irq, void *d)\n{\n\tf = true;\n\treturn IRQ_HANDLED;\n}\n`, 'manual', /interrupt handler f_irq\(\)/],
  ['written where the context is unknown', `static bool f;\n${READER}void f_on(void)\n{\n\tf = true;\n}\n`, 'manual', /cannot establish/],
  ['a module parameter', `static bool f;\nmodule_param(f, bool, 0644);\n${READER}${SETUP}`, 'manual', /module_param\(\) at line 2/],
  ['its address in a sysctl table', `static bool f;\nstatic struct ctl_table t[] = {\n\t{ .data = &f, },\n};\n${READER}${SETUP}`, 'manual', /address is taken at line 3/],
  ['its address given to debugfs', `static bool f;\n${READER}${SETUP}void dbg(void)\n{\n\tdebugfs_create_bool("f", 0600, NULL, &f);\n}\n`, 'manual', /address is taken/],
  ['read outside a branch', `static bool f;\n${READER}${SETUP}bool f_on(void)\n{\n\treturn f;\n}\n`, 'manual', /read outside/],
  ['not static', `bool f;\n${READER}${SETUP}`, 'manual', /not static/],
  ['exported', `static bool f;\nEXPORT_SYMBOL(f);\n${READER}${SETUP}`, 'manual', /exported to modules/],
  ['an int compared with 2', `static int f;\nvoid hot(void)\n{\n\tif (f == 2)\n\t\tslow();\n}\n${SETUP}`, 'reject', /compared with a value/],
  ['a counter', `static int f;\n${READER}void more(void)\n{\n\tf++;\n}\n`, 'reject', /arithmetically/],
  ['a non-constant write', `static bool f;\n${READER}void set(bool v)\n{\n\tf = v;\n}\n`, 'reject', /not a constant/],
  ['never tested in a branch', `static bool f;\n${SETUP}`, 'reject', /never tested in a branch/],
  ['never written', `static bool f = true;\n${READER}`, 'reject', /never written/],
];

describe('verdicts', () => {
  for (const [what, source, verdict, reason] of cases) {
    test(`${what}: ${verdict}`, () => {
      const [c, ...rest] = scanFile('t.c', source);
      expect(rest).toEqual([]);
      expect(c!.variable).toBe('f');
      expect(c!.verdict, JSON.stringify(c!.reasons)).toBe(verdict);
      expect(c!.reasons.join('\n')).toMatch(reason);
    });
  }
});

test('reads and writes are listed with their lines, functions and contexts', () => {
  const [c] = scanFile('t.c', `static bool f __read_mostly;\n${READER}${SETUP}`);
  expect(c).toMatchObject({ file: 't.c', line: 1, type: 'bool', reads: [{ line: 4, context: 'if (unlikely(f))' }], writes: [{ line: 9, function: 'f_setup', context: 'setup' }] });
});

test('locals, members and other declarations are not candidates', () => {
  expect(scanFile('t.c', 'struct s { bool f; };\nvoid g(void)\n{\n\tbool f = true;\n\tif (f)\n\t\th();\n}\nstatic int a, b;\nint fn(int x);\n')).toEqual([]);
});

test.each([
  ['tools/perf/builtin-top.c', /host or user-space program/],
  ['arch/x86/boot/compressed/kaslr.c', /boot or decompressor code/],
  ['arch/arm/vdso/vdsomunge.c', /vDSO code/],
  ['arch/x86/realmode/rm/wakemain.c', /real-mode code/],
  ['drivers/firmware/efi/libstub/efi-stub-helper.c', /the EFI stub/],
])('a flag in %s is rejected: not kernel code', (file, reason) => {
  const [c] = scanFile(file, `static bool f __read_mostly;\n${READER}${SETUP}`);
  expect(c!.verdict).toBe('reject');
  expect(c!.reasons.join('\n')).toMatch(reason);
});

test('writes carry the value they store', () => {
  const [c] = scanFile('t.c', `static bool f;\n${READER}static int __init f_init(void)\n{\n\tf = true;\n\treturn 0;\n}\nlate_initcall(f_init);\n`);
  expect(c!.writes).toEqual([{ line: 9, function: 'f_init', context: 'initcall', value: true }]);
});
