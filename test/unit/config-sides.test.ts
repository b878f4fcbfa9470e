// The guards of what a patch uses (issue 45): the #if blocks at a line, the declarations of a name, and the symbols a
// changed line depends on, on a small tree of our own (the real tree's run is test/kernel/config-sides.test.ts).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { Conditionals, configSymbolsIn, declarationLines } from '../../src/c-source/guards.js';
import { maskC } from '../../src/c-source/text.js';
import { HeaderReader, sidesOf } from '../../src/check/config-sides.js';
import { addedSelects, broughtIn } from '../../src/check/selected.js';

const HEADER = `#ifndef _DEMO_PM_H
#define _DEMO_PM_H
struct demo_pm_info {
\tunsigned int can_wakeup:1;
#ifdef CONFIG_PM
\tatomic_t usage_count;
\tint (*idle)(struct device *dev);
#endif
};
#if IS_ENABLED(CONFIG_OF) && \\
    defined(CONFIG_OF_ADDRESS)
#define demo_match_ptr(_ptr)\t(_ptr)
extern int demo_of_only(int x);
#else
#define demo_match_ptr(_ptr)\tNULL
#endif
#ifdef CONFIG_PM_SLEEP
#define DEMO_SLEEP_OPS(suspend_fn, resume_fn) .suspend = suspend_fn, .resume = resume_fn,
#else
#define DEMO_SLEEP_OPS(suspend_fn, resume_fn)
#endif
#define DEMO_PM_OPS(name, s, r) const struct demo_ops name = { DEMO_SLEEP_OPS(s, r) }
static inline int demo_always(int a) { return a; }
#ifdef CONFIG_64BIT
#define DEMO_WORD 8
#endif
#endif
`;

/** A scratch git repository: its folder, git in it, a writer of its files, and its first commit of what is written. */
function scratchRepo(): { root: string; git: (...args: string[]) => string; write: (file: string, text: string) => void; base: () => void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-sides-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'K', GIT_AUTHOR_EMAIL: 'k@k.dev', GIT_COMMITTER_NAME: 'K', GIT_COMMITTER_EMAIL: 'k@k.dev' } });
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  const base = () => ['init -q', 'add .', 'commit -qm base'].forEach((c) => git(...c.split(' ')));
  return { root, git, write, base };
}

test('the #if blocks open at each line: nesting, #elif and #else, continued directives, and the symbols each tests', () => {
  const c = new Conditionals(HEADER);
  expect(c.at(4).map((g) => g.directive)).toEqual(['#ifndef _DEMO_PM_H']);
  expect(c.at(6).map((g) => g.symbols)).toEqual([[], ['PM']]);
  expect(c.at(12).at(-1)).toMatchObject({ line: 10, opened: 10, symbols: ['OF', 'OF_ADDRESS'] });
  expect(c.at(15).at(-1)).toMatchObject({ line: 14, opened: 10, directive: '#else of #if IS_ENABLED(CONFIG_OF) &&      defined(CONFIG_OF_ADDRESS)' });
  expect(c.at(23).map((g) => g.symbols.length)).toEqual([0]);
  expect(configSymbolsIn('defined(CONFIG_FOO_MODULE) || IS_REACHABLE(CONFIG_BAR)')).toEqual(['FOO', 'BAR']);
});

test('a declaration is a macro, a member, a prototype, an inline function or a tag; a use is none', () => {
  const text = `${HEADER}\nstatic inline void user(struct demo_pm_info *p) { return demo_always(atomic_read(&p->usage_count)); }\n`;
  const found = declarationLines(maskC(text), ['usage_count', 'demo_match_ptr', 'demo_of_only', 'demo_always', 'idle', 'demo_pm_info', 'can_wakeup']);
  expect(Object.fromEntries(found)).toEqual({ usage_count: [6], demo_match_ptr: [12, 15], demo_of_only: [13], demo_always: [23], idle: [7], demo_pm_info: [3], can_wakeup: [4] });
});

test('the sides of a change: its own #if, members and functions declared on one side only, macros that drop an argument (followed through another macro), the word size', async () => {
  const { root, git, write, base } = scratchRepo();
  write('include/linux/demo_pm.h', HEADER);
  const driver = (body: string) => `#include <linux/demo_pm.h>\n#include "local.h"\n\nstatic int probe(struct demo_pm_info *info)\n{\n${body}\treturn 0;\n}\n#ifdef CONFIG_DEMO_DEBUG\nstatic void dump(void) {}\n#endif\n`;
  write('drivers/demo/local.h', '#define LOCAL 1\n');
  write('drivers/demo/demo.c', driver(''));
  base();
  write('drivers/demo/demo.c', driver('\tpr_info("%d", atomic_read(&info->usage_count));\n\tinfo->can_wakeup = demo_always(DEMO_WORD);\n\tconst void *m = demo_match_ptr(table);\n\tDEMO_PM_OPS(ops, a, b);\n'));
  git('commit', '-qam', 'use');
  const sides = await sidesOf(root, 'HEAD', 'drivers/demo/demo.c', new HeaderReader(root, 'x86'));
  expect(sides.symbols.map((s) => s.symbol)).toEqual(['PM', 'OF', 'OF_ADDRESS', 'PM_SLEEP']);
  expect(sides.symbols[0]!.why).toBe('drivers/demo/demo.c:6 uses usage_count, declared only under #ifdef CONFIG_PM (include/linux/demo_pm.h:6)');
  expect(sides.symbols[3]!.why).toMatch(/demo.c:9 uses DEMO_SLEEP_OPS through DEMO_PM_OPS, a macro that drops its argument under #else of #ifdef CONFIG_PM_SLEEP \(include\/linux\/demo_pm.h:20\)/);
  expect(sides.wordSize).toMatch(/DEMO_WORD, declared only under #ifdef CONFIG_64BIT/);
  // A change of the #include lines: every block of the file is a side.
  write('drivers/demo/demo.c', driver('').replace('#include "local.h"\n', ''));
  git('commit', '-qam', 'drop an include');
  const dropped = await sidesOf(root, 'HEAD', 'drivers/demo/demo.c', new HeaderReader(root, 'x86'));
  expect(dropped.symbols.map((s) => s.symbol)).toEqual(['DEMO_DEBUG']);
  expect(dropped.symbols[0]!.why).toBe('drivers/demo/demo.c changes its #include lines; drivers/demo/demo.c:7 #ifdef CONFIG_DEMO_DEBUG');
  fs.rmSync(root, { recursive: true, force: true });
});

test("a name reached only through an #include under a guard is declared only on that side (bitfield.h through string.h's CONFIG_FORTIFY_SOURCE)", async () => {
  const { root, git, write, base } = scratchRepo();
  write('include/linux/demo_string.h', '#ifdef CONFIG_DEMO_FORTIFY\n#include <linux/demo_fortify.h>\n#endif\n#include <linux/demo_plain.h>\n');
  write('include/linux/demo_fortify.h', '#include <linux/demo_bits.h>\n');
  write('include/linux/demo_bits.h', '#define DEMO_FIELD(m, v) ((v) & (m))\n');
  write('include/linux/demo_plain.h', '#define DEMO_PLAIN(v) (v)\n');
  write('drivers/demo/demo.c', '#include <linux/demo_string.h>\n\nint f(int v)\n{\n\treturn v;\n}\n');
  base();
  write('drivers/demo/demo.c', '#include <linux/demo_string.h>\n\nint f(int v)\n{\n\treturn DEMO_FIELD(3, DEMO_PLAIN(v));\n}\n');
  git('commit', '-qam', 'use');
  const sides = await sidesOf(root, 'HEAD', 'drivers/demo/demo.c', new HeaderReader(root, 'x86'));
  expect(sides.symbols).toEqual([{ symbol: 'DEMO_FORTIFY', why: 'drivers/demo/demo.c:5 uses DEMO_FIELD, declared only under #include <linux/demo_fortify.h> under #ifdef CONFIG_DEMO_FORTIFY (include/linux/demo_string.h:2) (include/linux/demo_bits.h:1)' }]);
  fs.rmSync(root, { recursive: true, force: true });
});

test("a 32-bit build for a long printed or a division; the whole kernel's choices flipped only under the patch's own #if", async () => {
  const { root, git, write, base } = scratchRepo();
  write('include/linux/demo_lock.h', '#ifdef CONFIG_PREEMPT_RT\n#define demo_lock(l) rt_lock(l)\n#else\n#define demo_lock(l) raw_lock(l)\n#endif\n');
  const driver = (body: string) => `#include <linux/demo_lock.h>\n\nint f(unsigned long long v, int *l)\n{\n${body}\treturn 0;\n}\n`;
  write('drivers/demo/demo.c', driver(''));
  base();
  write('drivers/demo/demo.c', driver('\tdemo_lock(l);\n\tpr_debug("%d words\\n", 3);\n\tpr_debug("%zu bytes\\n", sizeof(v));\n'));
  git('commit', '-qam', 'print');
  const printed = await sidesOf(root, 'HEAD', 'drivers/demo/demo.c', new HeaderReader(root, 'x86'));
  expect(printed).toEqual({ symbols: [], wordSize: 'drivers/demo/demo.c:7 prints a long or a size_t' });
  write('drivers/demo/demo.c', driver('#ifdef CONFIG_PREEMPT_RT\n\tv = DIV_ROUND_UP(v, 7);\n#endif\n'));
  git('commit', '-qam', 'divide');
  const divided = await sidesOf(root, 'HEAD', 'drivers/demo/demo.c', new HeaderReader(root, 'x86'));
  expect(divided.symbols.map((s) => s.symbol)).toEqual(['PREEMPT_RT']);
  expect(divided).toMatchObject({ divides: 'drivers/demo/demo.c:6 divides' });
  expect(divided.wordSize).toBeUndefined();
  fs.rmSync(root, { recursive: true, force: true });
});

test("a select a patch adds brings into the build the series' own file under the symbol, with all the series changed in it", async () => {
  const { root, git, write, base } = scratchRepo();
  write('drivers/hwmon/Kconfig', 'config SENSORS_A\n\ttristate "A"\n');
  write('drivers/hwmon/Makefile', 'obj-$(CONFIG_SENSORS_A) += a.o\nobj-$(CONFIG_REGMAP_I2C) += regmap-i2c.o\n');
  write('drivers/hwmon/a.c', 'int a;\n');
  write('drivers/hwmon/regmap-i2c.c', 'int r;\n');
  base();
  // Patch 1: a helper under a promptless symbol nothing selects yet.
  write('drivers/hwmon/Kconfig', 'config HWMON_FP\n\ttristate\n\nconfig SENSORS_A\n\ttristate "A"\n');
  write('drivers/hwmon/Makefile', 'obj-$(CONFIG_HWMON_FP) += \\\n\thwmon-fp.o\nobj-$(CONFIG_SENSORS_A) += a.o\nobj-$(CONFIG_REGMAP_I2C) += regmap-i2c.o\n');
  write('drivers/hwmon/hwmon-fp.c', 'unsigned long long fp(unsigned long long v, unsigned long long d)\n{\n\treturn v / d;\n}\n');
  git('add', '.');
  git('commit', '-qm', 'fp');
  // Patch 2: the driver selects it, and a core symbol the series never touched.
  write('drivers/hwmon/Kconfig', 'config HWMON_FP\n\ttristate\n\nconfig SENSORS_A\n\ttristate "A"\n\tselect HWMON_FP\n\tselect REGMAP_I2C\n');
  git('commit', '-qam', 'select');
  const [tip, first] = git('rev-list', 'HEAD', '-2').trim().split('\n');
  expect(addedSelects(git('diff', `${tip}^`, tip!))).toEqual([{ symbol: 'HWMON_FP', kconfig: 'drivers/hwmon/Kconfig' }, { symbol: 'REGMAP_I2C', kconfig: 'drivers/hwmon/Kconfig' }]);
  expect(await broughtIn(root, `${first}^`, tip!)).toEqual([{ object: 'drivers/hwmon/hwmon-fp.o', source: 'drivers/hwmon/hwmon-fp.c', symbol: 'HWMON_FP', kconfig: 'drivers/hwmon/Kconfig' }]);
  expect(await broughtIn(root, `${first}^`, first!)).toEqual([]);
  // Its lines are the series' since the base: patch 2 changed none of them, yet the division is there.
  expect((await sidesOf(root, tip!, 'drivers/hwmon/hwmon-fp.c', new HeaderReader(root, 'x86'))).divides).toBeUndefined();
  expect((await sidesOf(root, tip!, 'drivers/hwmon/hwmon-fp.c', new HeaderReader(root, 'x86'), `${first}^`)).divides).toBe('drivers/hwmon/hwmon-fp.c:3 divides');
});

test("a call only a guarded macro's body makes is not the file's to link; a call the line makes is", async () => {
  const { root, git, write, base } = scratchRepo();
  write('include/linux/demo_branch.h', 'void demo_hit(int v);\nint demo_core(int v);\n#ifdef CONFIG_TRACE_BRANCH_PROFILING\n#define demo_likely(x) ({ demo_hit(x); (x); })\n#else\n#define demo_likely(x) (x)\n#endif\n');
  const driver = (body: string) => `#include <linux/demo_branch.h>\n\nint f(int v)\n{\n${body}\treturn 0;\n}\n`;
  write('drivers/demo/demo.c', driver(''));
  base();
  write('drivers/demo/demo.c', driver('\tif (demo_likely(v))\n\t\treturn demo_core(v);\n'));
  git('commit', '-qam', 'branch');
  const sides = await sidesOf(root, 'HEAD', 'drivers/demo/demo.c', new HeaderReader(root, 'x86'));
  expect(sides.calls).toEqual([{ name: 'demo_core', line: 6, guards: [] }]);
  fs.rmSync(root, { recursive: true, force: true });
});

test('an inline helper is followed to what it calls: a stub on one side of a guard makes that guard a side', async () => {
  const { root, git, write, base } = scratchRepo();
  write('include/linux/demo_of.h', '#ifdef CONFIG_OF\nextern int demo_read_array(int *v, int n);\n#else\nstatic inline int demo_read_array(int *v,\n\t\t\t\t  int n)\n{\n\treturn -ENOSYS;\n}\n#endif\nstatic inline int demo_read(int *v)\n{\n\treturn demo_read_array(v, 1);\n}\nstatic inline void demo_plain(struct demo *dev) { demo_touch(dev); }\n#ifdef CONFIG_PM\nvoid demo_touch(struct demo *d);\n#else\nstatic inline void demo_touch(struct demo *d) { d->n = 0; }\n#endif\n');
  const driver = (body: string) => `#include <linux/demo_of.h>\n\nint f(unsigned long long v, struct demo *dev)\n{\n\tint x;\n${body}\treturn 0;\n}\n`;
  write('drivers/demo/demo.c', driver(''));
  base();
  write('drivers/demo/demo.c', driver('\tif (!demo_read(&x))\n\t\tv = v / x;\n\tdemo_plain(dev);\n'));
  git('commit', '-qam', 'read');
  const sides = await sidesOf(root, 'HEAD', 'drivers/demo/demo.c', new HeaderReader(root, 'x86'));
  // demo_touch() is defined both ways, neither a stub: no side; `dev` is demo_plain()'s parameter, not followed.
  expect(sides.symbols).toEqual([{ symbol: 'OF', why: 'drivers/demo/demo.c:6 uses demo_read_array through demo_read, a stub under #else of #ifdef CONFIG_OF (include/linux/demo_of.h:4)' }]);
  expect(sides.divides).toBe('drivers/demo/demo.c:7 divides');
  fs.rmSync(root, { recursive: true, force: true });
});
