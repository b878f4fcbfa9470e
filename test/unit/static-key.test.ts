// The static-key transform: fixture pairs compared byte-exact, and a table of inputs it must refuse.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { TransformError } from '../../src/errors.js';
import { convertFlag, wrapCondition, type KeyFragments } from '../../src/recipes/static-key/convert.js';
import { groupPrefix, subjectPrefix } from '../../src/subsystems/groups.js';
import { BUILTIN_RECIPES } from '../../src/recipes/load.js';
import { loadTemplate } from '../../src/templates/render.js';

const FIXTURES = path.resolve(__dirname, '../../src/recipes/static-key/__fixtures__');

/** The recipe's own code templates, as generate uses them. */
function templateFragments(): KeyFragments {
  const t = (name: string) => loadTemplate(path.join(BUILTIN_RECIPES, 'static-key', 'code', name));
  const one = (name: string, vars: Record<string, unknown>) => t(name)(vars).replace(/\n+$/, '');
  return {
    define: (v) => one('define.hbs', v),
    read: (v) => one('read.hbs', v),
    write: (v) => one('write.hbs', v),
    include: () => one('include.hbs', {}),
    declare: (v) => one('declare.hbs', v),
  };
}

const cases = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.input.c')).map((f) => f.replace('.input.c', ''));

describe('static-key fixture pairs', () => {
  test('there are fixtures', () => expect(cases.length).toBeGreaterThanOrEqual(2));
  for (const name of cases) {
    test(name, () => {
      const input = fs.readFileSync(path.join(FIXTURES, `${name}.input.c`), 'utf8');
      const expected = fs.readFileSync(path.join(FIXTURES, `${name}.output.c`), 'utf8');
      const opts = JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as { flag: string; key?: string };
      const c = convertFlag(`${name}.c`, input, opts.flag, opts.key ?? `${opts.flag}_key`, templateFragments());
      expect(c.text).toBe(expected);
      expect(c.text).not.toBe(input);
    });
  }
});

test('records reads and writes with their functions', () => {
  const input = fs.readFileSync(path.join(FIXTURES, 'read-mostly-bool.input.c'), 'utf8');
  const c = convertFlag('x.c', input, 'sample_tracing', 'k', templateFragments());
  expect(c.reads.map((r) => [r.line, r.function])).toEqual([[26, 'sample_event']]);
  expect(c.writes.map((w) => [w.line, w.function, w.after])).toEqual([
    [35, 'sample_trace_setup', 'static_branch_enable(&k);'],
    [42, 'sample_trace_stop', 'static_branch_disable(&k);'],
  ]);
  expect(c.includeAdded).toBe(true);
  expect(c.initiallyTrue).toBe(false);
});

test('bootOnly: a flag only boot-time code writes becomes an _RO key; without it the key is as the flag was', () => {
  const input = fs.readFileSync(path.join(FIXTURES, 'read-mostly-bool.input.c'), 'utf8');
  expect(convertFlag('x.c', input, 'sample_tracing', 'k', templateFragments(), undefined, { bootOnly: true }).text).toContain('DEFINE_STATIC_KEY_FALSE_RO(k);');
  expect(convertFlag('x.c', input, 'sample_tracing', 'k', templateFragments()).text).toContain('DEFINE_STATIC_KEY_FALSE(k);');
});

test('a comment naming a flag that is also the name of a boot option (a string of the file) is left as it is', () => {
  const input = 'static bool force_ep;\n/* force_ep: see the force_ep option */\nvoid a(void)\n{\n\tif (force_ep)\n\t\tb();\n}\nstatic int __init s(char *x)\n{\n\tforce_ep = true;\n\treturn 1;\n}\n__setup("force_ep", s);\n';
  const c = convertFlag('x.c', input, 'force_ep', 'force_ep_key', templateFragments());
  expect(c.commentsUpdated).toEqual([]);
  expect(c.text).toContain('/* force_ep: see the force_ep option */');
  expect(c.text).toContain('__setup("force_ep", s);');
});

test('a file that already uses the static key API gets jump_label.h through its includes: none is added', () => {
  const input = '#include <linux/memcontrol.h>\n\nstatic bool f;\nvoid a(void)\n{\n\tif (f)\n\t\tstatic_branch_inc(&other_key);\n}\n';
  const c = convertFlag('x.c', input, 'f', 'f_key', templateFragments());
  expect(c.includeAdded).toBe(false);
  expect(c.text).not.toContain('jump_label.h');
});

test('a file that includes <linux/static_key.h> (which is <linux/jump_label.h>) gets no second include', () => {
  const input = '#include <linux/static_key.h>\n\nstatic bool f;\nvoid a(void)\n{\n\tif (f)\n\t\tb();\n}\n';
  const c = convertFlag('x.c', input, 'f', 'f_key', templateFragments());
  expect(c.includeAdded).toBe(false);
  expect(c.text).not.toContain('jump_label.h');
});

const HEAD = '#include <linux/jump_label.h>\n';
const refusals: [what: string, source: string, line: number, why: RegExp][] = [
  ['not static', 'bool f;\nvoid a(void) { if (f) b(); }\n', 1, /not static/],
  ['extern', 'extern bool f;\nvoid a(void) { if (f) b(); }\n', 1, /extern/],
  ['initdata', 'static bool f __initdata;\nvoid a(void) { if (f) b(); }\n', 1, /__initdata/],
  ['array', 'static bool f[2];\nvoid a(void) { if (f[0]) b(); }\n', 1, /cannot read the declaration/],
  ['two declarations', 'static bool f;\nstatic bool f;\nvoid a(void) { if (f) b(); }\n', 2, /file scope again/],
  ['module_param', 'static bool f;\nmodule_param(f, bool, 0644);\nvoid a(void) { if (f) b(); }\n', 2, /file scope again/],
  ['address taken', 'static bool f;\nvoid a(void) { bool *p = &f; if (f) b(); }\n', 2, /address of f is taken/],
  ['return value', 'static bool f;\nbool a(void) { return f; }\nvoid c(void) { if (f) b(); }\n', 2, /outside a branch condition/],
  ['assignment read', 'static bool f;\nvoid a(void) { bool g = f; if (f) b(); }\n', 2, /outside a branch condition/],
  ['ternary', 'static bool f;\nint a(void) { return f ? 1 : 2; }\nvoid c(void) { if (f) b(); }\n', 2, /outside a branch condition/],
  ['int compared', 'static int f;\nvoid a(void) { if (f == 2) b(); }\n', 2, /compared with a value/],
  ['bigger than', 'static int f;\nvoid a(void) { if (f > 0) b(); }\n', 2, /compared with a value/],
  ['non-constant write', 'static bool f;\nvoid a(bool v) { f = v; if (f) b(); }\n', 2, /not a constant/],
  ['int set to 2', 'static int f;\nvoid a(void) { f = 2; if (f) b(); }\n', 2, /not a constant/],
  ['increment', 'static int f;\nvoid a(void) { f++; if (f) b(); }\n', 2, /arithmetically/],
  ['compound assignment', 'static int f;\nvoid a(void) { f |= 1; if (f) b(); }\n', 2, /arithmetically/],
  ['write in expression', 'static bool f;\nvoid a(void) { c(f = true); if (f) b(); }\n', 2, /part of an expression/],
  ['preprocessor', 'static bool f;\n#define F_ON() (f)\nvoid a(void) { if (f) b(); }\n', 2, /preprocessor/],
  ['never in a branch', 'static bool f;\nvoid a(void) { f = true; }\n', 0, /never tested in a branch/],
  ['initialised from a macro', 'static bool f = IS_ENABLED(CONFIG_X);\nvoid a(void) { if (f) b(); }\n', 1, /cannot read|not a constant/],
  ['return of a logical expression', 'static bool f;\nbool a(int x) { return x && f; }\n', 2, /outside an if\/while condition/],
];

describe('static-key refuses what it cannot convert, naming the line', () => {
  for (const [what, source, line, why] of refusals) {
    test(what, () => {
      let error: unknown;
      try {
        convertFlag('t.c', HEAD + source, 'f', 'f_key', templateFragments());
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TransformError);
      const message = (error as Error).message;
      expect(message).toMatch(why);
      if (line > 0) expect(message).toContain(`t.c:${line + 1}:`);
    });
  }
});

test('long conditions are wrapped at && aligned with the open parenthesis', () => {
  const line = '\tif (some_long_function_name(argument_one) && !static_branch_unlikely(&my_rather_long_key_name))';
  expect(wrapCondition(line)).toBe('\tif (some_long_function_name(argument_one) &&\n\t    !static_branch_unlikely(&my_rather_long_key_name))');
  expect(wrapCondition('\tif (x)')).toBe('\tif (x)');
});

test.each([
  ['lib/vsprintf.c', 'vsprintf'],
  ['kernel/sched/core.c', 'sched/core'],
  ['mm/memcontrol.c', 'mm: memcontrol'],
  ['net/ipv4/tcp.c', 'ipv4: tcp'],
  ['kernel/printk/printk.c', 'printk'],
  ['drivers/gpio/gpiolib.c', 'gpio: gpiolib'],
  ['drivers/gpio/gpio-wm831x.c', 'gpio: wm831x'],
  ['drivers/i2c/busses/i2c-st.c', 'i2c: st'],
  ['tools/testing/selftests/rseq/param_test.c', 'selftests/rseq'],
  ['tools/perf/tests/shell/lib/perf_json_output_lint.py', 'perf'],
  ['scripts/macro_checker.py', 'scripts: macro_checker'],
  ['lib/Kconfig.debug', 'Kconfig.debug'],
  ['drivers/clk/clk.c', 'clk'],
  ['arch/x86/kernel/tsc.c', 'x86/tsc'],
  ['arch/x86/kernel/cpu/intel.c', 'x86/cpu/intel'],
  ['arch/mips/kernel/cpu-probe.c', 'mips/cpu-probe'],
  ['arch/x86/mm/mm.c', 'x86/mm'],
])('subject prefix of %s is "%s"', (file, prefix) => expect(subjectPrefix(file)).toBe(prefix));

test.each([
  [['mm/memcontrol.c'], 'mm: memcontrol'],
  [['drivers/pci/pci.c', 'drivers/pci/quirks.c'], 'pci'],
  [['kernel/trace/trace.c', 'kernel/trace/ring_buffer.c'], 'trace'],
  [['mm/a.c', 'net/b.c'], 'treewide'],
  [['arch/x86/kernel/tsc.c', 'arch/x86/kernel/smp.c'], 'x86'],
  [['arch/x86/kernel/cpu/intel.c', 'arch/x86/kernel/cpu/common.c'], 'x86/cpu'],
])('group prefix of %j is "%s"', (files, prefix) => expect(groupPrefix(files)).toBe(prefix));

test('shared: the definition loses static and its EXPORT_SYMBOL_GPL() exports the key; another file converts its extern and tests', () => {
  const def = 'int erst_off;\nEXPORT_SYMBOL_GPL(erst_off);\n\nvoid f(void)\n{\n\terst_off = 1;\n}\n';
  const c = convertFlag('a.c', def, 'erst_off', 'erst_off_key', templateFragments(), undefined, { shared: { role: 'define' } });
  expect(c.text).toContain('\nDEFINE_STATIC_KEY_FALSE(erst_off_key);\nEXPORT_SYMBOL_GPL(erst_off_key);\n');
  // No test in this file is no refusal for a shared flag: its tests may all be elsewhere.
  expect(c.reads).toEqual([]);
  expect(() => convertFlag('a.c', def, 'erst_off', 'erst_off_key', templateFragments())).toThrow(/used at file scope again/);
  expect(() => convertFlag('a.c', 'int erst_off;\nvoid f(void)\n{\n\tif (erst_off)\n\t\tg();\n}\n', 'erst_off', 'k', templateFragments())).toThrow(/not static/);
  const use = '#include <linux/types.h>\n\nextern int erst_off;\n\nstatic inline bool g(void)\n{\n\tif (erst_off)\n\t\treturn true;\n\treturn false;\n}\n';
  const u = convertFlag('a.h', use, 'erst_off', 'erst_off_key', templateFragments(), undefined, { values: true, shared: { role: 'use', type: 'int', initiallyTrue: false } });
  expect(u.text).toContain('\nDECLARE_STATIC_KEY_FALSE(erst_off_key);\n');
  expect(u.text).toContain('\tif (static_branch_unlikely(&erst_off_key))\n');
  expect(u.declarations.map((d) => d.line)).toEqual([3]);
  expect(() => convertFlag('b.h', '#define erst_off 0\n', 'erst_off', 'k', templateFragments(), undefined, { shared: { role: 'use', type: 'int', initiallyTrue: false } })).toThrow(/preprocessor line/);
});
