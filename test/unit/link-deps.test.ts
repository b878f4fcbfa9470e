// What would not link with a symbol off (issue 45), on a small tree of our own: a driver calling a function that only
// a file built under CONFIG_DEMO_BUS exports, without depending on it; the same driver with `depends on DEMO_BUS`, or
// with a stub in the header for the other side, is told nothing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { KconfigIndex } from '../../src/build/kconfig.js';
import { HeaderReader, sidesOf } from '../../src/check/config-sides.js';
import { linkWarnings } from '../../src/check/link-deps.js';

const BUS_H = '#ifndef DEMO_BUS_H\n#define DEMO_BUS_H\nstruct demo_bus;\nint demo_bus_register(struct demo_bus *bus);\n#define module_demo_driver(d) module_driver(d, demo_bus_register)\n#endif\n';
const STUBBED_H = '#ifdef CONFIG_DEMO_BUS\nint demo_bus_register(struct demo_bus *bus);\n#else\nstatic inline int demo_bus_register(struct demo_bus *bus) { return 0; }\n#endif\n#define module_demo_driver(d) module_driver(d, demo_bus_register)\n';
const kconfig = (depends: string) => `config DEMO_BUS\n\ttristate "demo bus"\n\nconfig DEMO_DRV\n\ttristate "demo driver"\n${depends}\tdepends on I2C\n`;

async function warningsFor(header: string, depends: string, use = 'module_demo_driver(drv);\n'): Promise<string[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-link-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'K', GIT_AUTHOR_EMAIL: 'k@k.dev', GIT_COMMITTER_NAME: 'K', GIT_COMMITTER_EMAIL: 'k@k.dev' } });
  const files: Record<string, string> = {
    Kbuild: 'obj-y += drivers/\n',
    'drivers/Makefile': 'obj-y += demo/ bus/\n',
    'drivers/bus/Makefile': 'obj-$(CONFIG_DEMO_BUS) += demo_bus.o\n',
    'drivers/bus/demo_bus.c': 'int demo_bus_register(struct demo_bus *bus)\n{\n\treturn 0;\n}\nEXPORT_SYMBOL_GPL(demo_bus_register);\n',
    'drivers/demo/Makefile': 'obj-$(CONFIG_DEMO_DRV) += demo_drv.o\n',
    'drivers/demo/Kconfig': kconfig(depends),
    'include/linux/demo_bus.h': header,
    'drivers/demo/demo_drv.c': '#include <linux/demo_bus.h>\n',
  };
  for (const [f, t] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), t);
  }
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'base');
  fs.appendFileSync(path.join(root, 'drivers/demo/demo_drv.c'), `\nstatic struct demo_drv drv;\n${use}`);
  git('commit', '-qam', 'use');
  const read = async (f: string) => {
    try {
      return git('show', `HEAD:${f}`);
    } catch {
      return undefined;
    }
  };
  const sides = await sidesOf(root, 'HEAD', 'drivers/demo/demo_drv.c', new HeaderReader(root, 'x86'));
  const index = new KconfigIndex(new Map([['Kconfig', 'source "drivers/demo/Kconfig"\n'], ['drivers/demo/Kconfig', kconfig(depends)]]));
  const [out] = await linkWarnings(root, 'HEAD', [{ file: 'drivers/demo/demo_drv.c', calls: sides.calls ?? [] }], index, read);
  fs.rmSync(root, { recursive: true, force: true });
  return out;
}

test('a call through a macro to a function only a file under another symbol exports: a warning at the calling line', async () => {
  expect(await warningsFor(BUS_H, '')).toEqual([
    "drivers/demo/demo_drv.c:4: warning: demo_bus_register() is defined in drivers/bus/demo_bus.c, built only with CONFIG_DEMO_BUS, which CONFIG_DEMO_DRV neither depends on nor selects: with CONFIG_DEMO_BUS=n the kernel does not link (undefined reference to `demo_bus_register') [Kconfig]",
  ]);
});

test('a driver that depends on the symbol, or selects it, or a header with a stub for the other side: nothing to tell', async () => {
  expect(await warningsFor(BUS_H, '\tdepends on DEMO_BUS\n')).toEqual([]);
  expect(await warningsFor(BUS_H, '\tselect DEMO_BUS\n')).toEqual([]);
  expect(await warningsFor(STUBBED_H, '')).toEqual([]);
  expect(await warningsFor(BUS_H, '', '#ifdef CONFIG_DEMO_BUS\nmodule_demo_driver(drv);\n#endif\n')).toEqual([]);
});
