// The static-key-toggle transform: fixture pairs compared byte-exact (a module parameter, two sysctls, a debugfs
// file), and the interfaces it must refuse.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { TransformError } from '../../src/errors.js';
import { modeBits } from '../../src/c-source/text.js';
import { convertToggle, type ToggleFragments } from '../../src/recipes/static-key/toggle/convert.js';
import { BUILTIN_RECIPES } from '../../src/recipes/load.js';
import { loadTemplate } from '../../src/templates/render.js';

const FIXTURES = path.resolve(__dirname, '../../src/recipes/static-key/toggle/__fixtures__');

/** The recipe's own code templates, as generate uses them. */
function templateFragments(): ToggleFragments {
  const one = (name: string, vars: object) => loadTemplate(path.join(BUILTIN_RECIPES, 'static-key-toggle', 'code', name))(vars as Record<string, unknown>).replace(/\n+$/, '');
  return {
    define: (v) => one('define.hbs', v),
    read: (v) => one('read.hbs', v),
    write: (v) => one('write.hbs', v),
    include: () => one('include.hbs', {}),
    param: (v) => one('param.hbs', v),
    sysctl: (v) => one('sysctl.hbs', v),
    debugfs: (v) => one('debugfs.hbs', v),
  };
}

const cases = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.input.c')).map((f) => f.replace('.input.c', ''));

describe('static-key-toggle fixture pairs', () => {
  test('there are fixtures for each interface', () => expect(cases.sort()).toEqual(['debugfs-bool', 'module-param', 'sysctl-bool', 'sysctl-minmax']));
  for (const name of cases) {
    test(name, () => {
      const input = fs.readFileSync(path.join(FIXTURES, `${name}.input.c`), 'utf8');
      const opts = JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as { flag: string };
      const c = convertToggle(`${name}.c`, input, opts.flag, `${opts.flag}_key`, templateFragments());
      const out = path.join(FIXTURES, `${name}.output.c`);
      if (process.env.KSERIES_WRITE_FIXTURES) fs.writeFileSync(out, c.text);
      expect(c.text).toBe(fs.readFileSync(out, 'utf8'));
    });
  }
});

describe('interfaces a key cannot keep', () => {
  const refusals: [string, string, RegExp][] = [
    ['an int module parameter', 'static int f;\nvoid g(void)\n{\n\tif (f)\n\t\th();\n}\nmodule_param(f, int, 0644);\n', /module parameter of type int/],
    ['a sysctl that takes 0..2', 'static int f;\nvoid g(void)\n{\n\tif (f)\n\t\th();\n}\nstatic struct ctl_table t[] = {\n\t{ .data = &f, .proc_handler = proc_dointvec_minmax, .extra1 = SYSCTL_ZERO, .extra2 = SYSCTL_TWO, },\n};\n', /takes values other than 0 and 1/],
    ['a sysctl with any int', 'static int f;\nvoid g(void)\n{\n\tif (f)\n\t\th();\n}\nstatic struct ctl_table t[] = {\n\t{ .data = &f, .proc_handler = proc_dointvec, },\n};\n', /handled by proc_dointvec/],
    ['a writable param of a __ro_after_init flag', 'static bool f __ro_after_init;\nvoid g(void)\n{\n\tif (f)\n\t\th();\n}\nmodule_param(f, bool, 0644);\n', /__ro_after_init but its parameter is writable/],
    ['no interface at all', 'static bool f;\nvoid g(void)\n{\n\tif (f)\n\t\th();\n}\n', /has no module parameter, sysctl or debugfs file/],
  ];
  test.each(refusals)('%s', (_what, source, why) => {
    expect(() => convertToggle('t.c', source, 'f', 'f_key', templateFragments())).toThrow(TransformError);
    expect(() => convertToggle('t.c', source, 'f', 'f_key', templateFragments())).toThrow(why);
  });

  test('debugfs modes are read as the kernel writes them', () => {
    expect(modeBits('0600')).toBe(0o600);
    expect(modeBits('S_IRUSR | S_IWUSR')).toBe(0o600);
    expect(modeBits('0444')! & 0o222).toBe(0);
    expect(modeBits('mode')).toBeUndefined();
  });
});
