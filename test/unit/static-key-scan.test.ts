// The static-key classifier: one small C file per rule, and the verdict, reason and needs it must give.
import { describe, expect, test } from 'vitest';
import { archView, readArchFacts } from '../../src/recipes/static-key/arch.js';
import { scanFile } from '../../src/recipes/static-key/scan.js';

const READER = 'void hot(void)\n{\n\tif (unlikely(f))\n\t\tslow();\n}\n';
const SETUP = 'static int __init f_setup(char *s)\n{\n\tf = true;\n\treturn 1;\n}\n__setup("f", f_setup);\n';
const SETUP_INT = SETUP.replace('f = true', 'f = 1');
const INITCALL = 'static int __init f_init(void)\n{\n\tf = true;\n\treturn 0;\n}\nlate_initcall(f_init);\n';
/** A static helper that writes the flag, called from `caller`. */
const HELPER = (caller: string) => `static void f_on(void)\n{\n\tf = true;\n}\n${caller}`;

type Verdict = 'auto' | 'manual' | 'reject';
const cases: [what: string, source: string, verdict: Verdict, reason: RegExp, needs?: string[]][] = [
  ['written by a __setup() handler', `static bool f __read_mostly;\n${READER}${SETUP}`, 'auto', /f_setup\(\) \(__setup at t\.c:12\): __setup\(\) handler/],
  ['written by an initcall', `static bool f;\n${READER}${INITCALL}`, 'auto', /f_init\(\) \(late_initcall at t\.c:12\): late_initcall\(\)/],
  ['written by module_init', `static int f;\n${READER}static int __init f_init(void)\n{\n\tf = 1;\n\treturn 0;\n}\nmodule_init(f_init);\n`, 'auto', /module_init/],
  ['written by a static helper an initcall calls', `static bool f;\n${READER}${HELPER('static int __init f_init(void)\n{\n\tf_on();\n\treturn 0;\n}\nsubsys_initcall(f_init);\n')}`, 'auto', /f_on\(\) <- f_init\(\) \(subsys_initcall at t\.c:16\): subsys_initcall\(\)/],
  ['written by early_param() in generic code', `static bool f;\n${READER}static int __init f_early(char *s)\n{\n\tf = true;\n\treturn 0;\n}\nearly_param("f", f_early);\n`, 'manual', /generic code, built for every architecture, and some architectures parse early parameters before jump_label_init\(\)/, ['a boot-time writer on every architecture']],
  ['written under a spinlock', `static bool f;\n${READER}void stop(void)\n{\n\tspin_lock(&l);\n\tf = false;\n\tspin_unlock(&l);\n}\n${SETUP}`, 'reject', /written in stop\(\) \(spin_lock\(\) at t\.c:9\): spinlock held \(line 10\): static_branch_enable\(\) sleeps/],
  ['written under a spinlock an error path drops', `static bool f;\n${READER}void stop(int e)\n{\n\tspin_lock(&l);\n\tif (e) {\n\t\tspin_unlock(&l);\n\t\treturn;\n\t}\n\tf = false;\n\tspin_unlock(&l);\n}\n${SETUP}`, 'reject', /spinlock held/],
  ['written after a lock taken and dropped in an if block', `static bool f;\n${READER}static void stop(int e)\n{\n\tif (e) {\n\t\tspin_lock(&l);\n\t\tspin_unlock(&l);\n\t}\n\tf = false;\n}\n${SETUP}static int __init f_init(void)\n{\n\tstop(0);\n\treturn 0;\n}\nlate_initcall(f_init);\n`, 'auto', /stop\(\) <- f_init\(\)/],
  ['written in an RCU read-side section', `static bool f;\n${READER}void stop(void)\n{\n\trcu_read_lock();\n\tf = false;\n\trcu_read_unlock();\n}\n${SETUP}`, 'reject', /RCU read-side section/],
  ['written with interrupts off', `static bool f;\n${READER}void stop(void)\n{\n\tlocal_irq_disable();\n\tf = false;\n}\n${SETUP}`, 'reject', /interrupts off/],
  ['written under a scoped_guard(spinlock)', `static bool f;\n${READER}void stop(void)\n{\n\tscoped_guard(spinlock, &l) {\n\t\tf = false;\n\t}\n}\n${SETUP}`, 'reject', /scoped_guard\(spinlock\)\(\) at t\.c:9\): spinlock held/],
  ['written in an interrupt handler', `static bool f;\n${READER}static irqreturn_t f_irq(int irq, void *d)\n{\n\tf = true;\n\treturn IRQ_HANDLED;\n}\n`, 'reject', /hardirq/],
  ['written by a helper of a handler request_irq() registers', `static bool f;\n${READER}${HELPER('static irqreturn_t f_irq(int irq, void *d)\n{\n\tf_on();\n\treturn IRQ_HANDLED;\n}\nstatic int __init f_init(void)\n{\n\treturn request_irq(3, f_irq, 0, "f", NULL);\n}\n')}`, 'reject', /f_on\(\) <- f_irq\(\) \(request_irq at t\.c:18\): hardirq/],
  ['written by a timer callback', `static bool f;\n${READER}${HELPER('static void f_tick(struct timer_list *t)\n{\n\tf_on();\n}\nstatic DEFINE_TIMER(f_timer, f_tick);\n')}`, 'reject', /f_on\(\) <- f_tick\(\) \(DEFINE_TIMER at t\.c:15\): timer callback/],
  ['written by an atomic notifier', `static bool f;\n${READER}static int f_panic(struct notifier_block *nb, unsigned long e, void *p)\n{\n\tf = true;\n\treturn NOTIFY_DONE;\n}\nstatic struct notifier_block f_nb = {\n\t.notifier_call = f_panic,\n};\nstatic int __init f_init(void)\n{\n\tatomic_notifier_chain_register(&panic_notifier_list, &f_nb);\n\treturn 0;\n}\n`, 'reject', /f_panic\(\) \(atomic_notifier_chain_register at t\.c:17\): atomic notifier/],
  ['written by an IPI callback', `static bool f;\n${READER}${HELPER('static void f_ipi(void *info)\n{\n\tf_on();\n}\nvoid f_all(void)\n{\n\ton_each_cpu(f_ipi, NULL, 1);\n}\n')}`, 'reject', /IPI/],
  ['written before jump_label_init() in start_kernel()', `static bool f;\n${READER}${HELPER('void start_kernel(void)\n{\n\tf_on();\n\tjump_label_init();\n}\n')}`, 'reject', /before jump_label_init\(\)/],
  ['written by a work item', `static bool f;\n${READER}${HELPER('static void f_work_fn(struct work_struct *w)\n{\n\tf_on();\n}\nstatic DECLARE_WORK(f_work, f_work_fn);\n')}`, 'manual', /written at run time in process context: f_on\(\) <- f_work_fn\(\) \(DECLARE_WORK at t\.c:15\): work item/, ['a person to judge the run-time writer']],
  ['written by a sysfs store', `static bool f;\n${READER}static ssize_t f_store(struct device *d, struct device_attribute *a, const char *b, size_t n)\n{\n\tf = true;\n\treturn n;\n}\nstatic DEVICE_ATTR_WO(f);\n`, 'manual', /sysfs store/],
  ['written in a static function nobody calls', `static bool f;\n${READER}static void f_on(void)\n{\n\tf = true;\n}\n`, 'manual', /found no caller of f_on\(\)/, ['a writer context kseries can establish']],
  ['written in a global function (callers not searched)', `static bool f;\n${READER}void f_on(void)\n{\n\tf = true;\n}\n`, 'manual', /f_on\(\) is global and kseries has not searched the tree/],
  ['written by a global function that is exported', `static bool f;\n${READER}void f_on(void)\n{\n\tf = true;\n}\nEXPORT_SYMBOL_GPL(f_on);\n`, 'manual', /exported to modules/],
  ['a module parameter', `static bool f;\nmodule_param(f, bool, 0644);\nMODULE_PARM_DESC(f, "f");\n${READER}${SETUP}`, 'manual', /module_param\(\): a module parameter/, ['a param setter']],
  ['a sysctl with proc_dobool', `static bool f;\nstatic struct ctl_table t[] = {\n\t{ .data = &f, .maxlen = sizeof(f), .proc_handler = proc_dobool, },\n};\n${READER}${SETUP}`, 'manual', /a sysctl \(proc_dobool\)/, ['a sysctl handler']],
  ['a sysctl bounded to 0..1', `static int f;\nstatic struct ctl_table t[] = {\n\t{ .data = &f, .proc_handler = proc_dointvec_minmax, .extra1 = SYSCTL_ZERO, .extra2 = SYSCTL_ONE },\n};\n${READER}${SETUP_INT}`, 'manual', /0\.\.1/, ['a sysctl handler']],
  ['a sysctl that stores any int', `static int f;\nstatic struct ctl_table t[] = {\n\t{ .data = &f, .proc_handler = proc_dointvec },\n};\n${READER}${SETUP_INT}`, 'reject', /a sysctl \(proc_dointvec\) that stores any integer/],
  ['a sysctl that takes 0..2', `static int f;\nstatic struct ctl_table t[] = {\n\t{ .data = &f, .proc_handler = proc_dointvec_minmax, .extra1 = SYSCTL_ZERO, .extra2 = SYSCTL_TWO },\n};\n${READER}${SETUP_INT}`, 'reject', /stores values other than 0 and 1/],
  ['its address given to debugfs', `static bool f;\n${READER}${SETUP}void dbg(void)\n{\n\tdebugfs_create_bool("f", 0600, NULL, &f);\n}\n`, 'manual', /debugfs_create_bool\(\) gives debugfs its address/, ['a debugfs file with its own fops']],
  ['read as a value too', `static bool f;\n${READER}${SETUP}bool f_on(void)\n{\n\treturn f;\n}\n`, 'manual', /read as a value at line 15: `return f;`/, ['static_key_enabled() for the value read at line 15']],
  ['tested in BUG_ON(), WARN_ON(!...) and WARN()', `static bool f;\nvoid a(void)\n{\n\tBUG_ON(f);\n}\nvoid b(void)\n{\n\tWARN_ON(!f);\n}\nvoid c(void)\n{\n\tWARN(f, "f is %d", 1);\n}\n${SETUP}`, 'auto', /__setup\(\) handler/],
  ['tested in an && chain inside an if', `static bool f;\nvoid a(int x)\n{\n\tif (x > 2 && (x & 1 || !f))\n\t\tslow();\n}\n${SETUP}`, 'auto', /__setup\(\) handler/],
  ['read only in __init code', `static bool f;\nstatic int __init f_use(void)\n{\n\tif (f)\n\t\tslow();\n\treturn 0;\n}\n${SETUP}`, 'reject', /no benefit: read only at init\/exit, in f_use\(\) \(__init\)/],
  ['read only in a driver probe', `static bool f;\nstatic int f_probe(struct platform_device *p)\n{\n\tif (f)\n\t\tslow();\n\treturn 0;\n}\nstatic struct platform_driver f_driver = {\n\t.probe = f_probe,\n};\n${SETUP}`, 'reject', /no benefit: read only at init\/exit, in f_probe\(\) \(probe\)/],
  ['not static', `bool f;\n${READER}${SETUP}`, 'manual', /not static/, ['DECLARE_STATIC_KEY in a header']],
  ['exported', `static bool f;\nEXPORT_SYMBOL(f);\n${READER}${SETUP}`, 'manual', /exported to modules/, ['DECLARE_STATIC_KEY in a header']],
  ['an int compared with 2', `static int f;\nvoid hot(void)\n{\n\tif (f == 2)\n\t\tslow();\n}\n${SETUP}`, 'reject', /compared with a value/],
  ['a counter', `static int f;\n${READER}void more(void)\n{\n\tf++;\n}\n`, 'reject', /arithmetically/],
  ['a non-constant write', `static bool f;\n${READER}void set(bool v)\n{\n\tf = v;\n}\n`, 'reject', /not a constant/],
  ['never tested in a branch', `static bool f;\n${SETUP}`, 'reject', /never tested in a branch/],
  ['never written', `static bool f = true;\n${READER}`, 'reject', /never written/],
];

describe('verdicts', () => {
  for (const [what, source, verdict, reason, needs] of cases) {
    test(`${what}: ${verdict}`, () => {
      const file = /start_kernel/.test(source) ? 'init/main.c' : 't.c';
      const [c, ...rest] = scanFile(file, source);
      expect(rest).toEqual([]);
      expect(c!.variable).toBe('f');
      expect(c!.verdict, JSON.stringify(c!.reasons)).toBe(verdict);
      expect(c!.reasons.join('\n')).toMatch(reason);
      expect(c!.needs).toEqual(needs ?? (verdict === 'manual' ? expect.any(Array) : []));
    });
  }
});

describe('architectures read from the tree', () => {
  const kconfig = (jumpLabel: boolean) => `config X\n\tdef_bool y\n${jumpLabel ? '\tselect HAVE_ARCH_JUMP_LABEL\n' : '\t# select HAVE_ARCH_JUMP_LABEL\n'}`;
  const facts = readArchFacts(
    new Map([
      ['x86', kconfig(true)],
      ['arm', kconfig(true)],
      ['sh', kconfig(false)],
    ]),
    new Map([
      ['arch/x86/kernel/setup.c', 'void __init setup_arch(char **p)\n{\n\tjump_label_init();\n\tparse_early_param();\n}\n'],
      ['arch/arm/kernel/setup.c', 'void __init setup_arch(char **p)\n{\n\tparse_early_param();\n}\n'],
    ]),
  );
  const early = `static bool f;\n${READER}static int __init f_early(char *s)\n{\n\tf = true;\n\treturn 0;\n}\nearly_param("f", f_early);\n`;

  test('which architectures have jump labels, and which parse early parameters after jump_label_init()', () => {
    expect(facts).toEqual({ all: ['arm', 'sh', 'x86'], jumpLabel: ['arm', 'x86'], earlyParamsAfterJumpLabel: ['sh', 'x86'], earlyBefore: { arm: ['arch/arm/kernel/setup.c:3'] }, earlyAfter: { x86: ['arch/x86/kernel/setup.c:4'] } });
  });

  test('an early_param() writer is boot-time in x86 code, not in arm code or generic code', () => {
    const view = archView(facts);
    expect(scanFile('arch/x86/kernel/f.c', early, view)[0]!.verdict).toBe('auto');
    expect(scanFile('arch/x86/kernel/f.c', early, view)[0]!.earlyParamArches).toEqual([{ arch: 'x86', where: 'arch/x86/kernel/setup.c:4' }]);
    const arm = scanFile('arch/arm/kernel/f.c', early, view)[0]!;
    expect(arm.verdict).toBe('manual');
    expect(arm.reasons.join('\n')).toMatch(/built for arm, and arm parses early parameters before jump_label_init\(\)/);
    const generic = scanFile('kernel/f.c', early, view)[0]!;
    expect(generic.reasons.join('\n')).toMatch(/generic code, built for every architecture, and arm parses early parameters/);
    // Generic code that Kconfig builds only for x86 counts as x86 code.
    expect(scanFile('drivers/platform/x86/f.c', early, archView(facts, () => ['x86']))[0]!.verdict).toBe('auto');
  });

  test('code built only for an architecture without jump labels gains nothing', () => {
    const c = scanFile('arch/sh/kernel/f.c', `static bool f;\n${READER}${SETUP}`, archView(facts))[0]!;
    expect(c.verdict).toBe('reject');
    expect(c.reasons).toContain('built only for sh: no jump labels on sh');
  });
});

test('reads and writes are listed with their lines, functions, contexts and the path that decided', () => {
  const [c] = scanFile('t.c', `static bool f __read_mostly;\n${READER}${SETUP}`);
  expect(c).toMatchObject({ file: 't.c', line: 1, type: 'bool', reads: [{ line: 4, context: 'if (unlikely(f))' }], writes: [{ line: 9, function: 'f_setup', context: 'setup', via: 'f_setup() (__setup at t.c:12): __setup() handler' }] });
});

test('locals, members and other declarations are not candidates', () => {
  expect(scanFile('t.c', 'struct s { bool f; };\nvoid g(void)\n{\n\tbool f = true;\n\tif (f)\n\t\th();\n}\nstatic int a, b;\nint fn(int x);\n')).toEqual([]);
});

test.each([
  ['tools/perf/builtin-top.c', /host or user-space program/],
  ['drivers/hid/bpf/progs/x.bpf.c', /a BPF program, not kernel code/],
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
  const [c] = scanFile('t.c', `static bool f;\n${READER}${INITCALL}`);
  expect(c!.writes).toEqual([{ line: 9, function: 'f_init', context: 'initcall', value: true, via: 'f_init() (late_initcall at t.c:12): late_initcall()', everyBoot: true }]);
});

test('a write runs on every boot when it is a plain statement all the way up to an initcall of the file', () => {
  const direct = scanFile('t.c', `static bool f;\n${READER}${INITCALL}`)[0]!;
  expect(direct.writes[0]!.everyBoot).toBe(true);
  const conditional = scanFile('t.c', `static bool f;\n${READER}static int __init f_init(void)\n{\n\tif (probe())\n\t\tf = true;\n\treturn 0;\n}\nlate_initcall(f_init);\n`)[0]!;
  expect(conditional.writes[0]!.everyBoot).toBeUndefined();
  const helper = scanFile('t.c', `static bool f;\n${READER}${HELPER('static int __init f_init(void)\n{\n\tf_on();\n\treturn 0;\n}\nlate_initcall(f_init);\n')}`)[0]!;
  expect(helper.writes[0]!.everyBoot).toBe(true);
  const helperInIf = scanFile('t.c', `static bool f;\n${READER}${HELPER('static int __init f_init(void)\n{\n\tif (probe()) {\n\t\tf_on();\n\t}\n\treturn 0;\n}\nlate_initcall(f_init);\n')}`)[0]!;
  expect(helperInIf.writes[0]!.everyBoot).toBeUndefined();
  const setup = scanFile('t.c', `static bool f;\n${READER}${SETUP}`)[0]!;
  expect(setup.writes[0]!.everyBoot).toBeUndefined();
  // erst_init()'s shape: the write follows `return 0;` under an error label, reached only by a goto.
  const errorPath = scanFile('t.c', `static bool f;\n${READER}static int __init f_init(void)\n{\n\tif (probe())\n\t\tgoto err;\n\treturn 0;\nerr:\n\tf = true;\n\treturn -ENODEV;\n}\nlate_initcall(f_init);\n`)[0]!;
  expect(errorPath.writes[0]!.everyBoot).toBeUndefined();
});
