// Reading Kbuild: which symbols build an object, what a symbol depends on, and compiler output.
import { expect, test } from 'vitest';
import { configSymbolsFor, kconfigDepends, newWarnings, parseCompilerOutput, plainSymbols } from '../../src/build/kbuild.js';

const TREE: Record<string, string> = {
  'drivers/Makefile': 'obj-y += base/\nobj-$(CONFIG_NET) += net/\n',
  'drivers/net/Makefile': 'obj-$(CONFIG_ETHERNET) += ethernet/ \\\n\tother/\n',
  'drivers/net/ethernet/Makefile': 'obj-$(CONFIG_NET_VENDOR_ACME) += acme/\n',
  'drivers/net/ethernet/acme/Makefile': 'obj-$(CONFIG_ACME) += acme.o\nacme-objs := acme_main.o \\\n\tacme_hw.o\nacme-$(CONFIG_ACME_PTP) += acme_ptp.o\n',
  'mm/Makefile': 'obj-y := filemap.o\nobj-$(CONFIG_MEMCG) += memcontrol.o vmpressure.o\n',
  'lib/Makefile': 'lib-y := ctype.o\nobj-y += bcd.o sort.o\n',
};
const read = async (f: string) => TREE[f];

test.each([
  ['mm/memcontrol.c', ['MEMCG']],
  ['mm/filemap.c', []],
  ['lib/bcd.c', []],
  ['lib/ctype.c', []],
  ['drivers/net/ethernet/acme/acme_hw.c', ['ACME', 'NET_VENDOR_ACME', 'ETHERNET', 'NET']],
  ['drivers/net/ethernet/acme/acme_ptp.c', ['ACME_PTP', 'ACME', 'NET_VENDOR_ACME', 'ETHERNET', 'NET']],
  ['mm/nothing.c', undefined],
])('%s is built by %j', async (file, symbols) => {
  expect(await configSymbolsFor(file, read)).toEqual(symbols);
});

test('depends on lines of one config entry, and the if blocks around it', () => {
  const kconfig = ['if OUTER', 'config H', '\thelp', '\t  if this were a block it would count', 'if INNER', 'endif', 'config A', '\tbool "a"', '\tdepends on B && C', '\tdepends on !D', '', 'config B', '\tdepends on X', 'endif'].join('\n');
  expect(kconfigDepends(kconfig, 'A')).toEqual(['OUTER', 'B && C', '!D']);
  expect(kconfigDepends(kconfig, 'Z')).toBeUndefined();
  expect(plainSymbols(['OUTER', 'B && C'])).toEqual(['OUTER', 'B', 'C']);
  expect(plainSymbols(['B && !D'])).toBeUndefined();
  expect(plainSymbols(['A || B'])).toBeUndefined();
});

const SRC = '/work/tree';
const before = parseCompilerOutput(
  [
    `${SRC}/lib/a.c:10:5: warning: no previous prototype for ‘f’ [-Wmissing-prototypes]`,
    '  CC      lib/a.o',
    `${SRC}/include/x.h:3:1: warning: unused variable ‘v’ [-Wunused-variable]`,
  ].join('\n'),
  SRC,
);

test('compiler lines are parsed, paths made relative to the tree', () => {
  expect(before).toHaveLength(2);
  expect(before[0]).toMatchObject({ level: 'warning', file: 'lib/a.c', line: 10, column: 5, flag: '-Wmissing-prototypes' });
  expect(before[0]!.text).toBe('lib/a.c:10:5: warning: no previous prototype for ‘f’ [-Wmissing-prototypes]');
  expect(parseCompilerOutput(`${SRC}/lib/a.c:3:9: error: expected ‘;’ before ‘}’ token`, SRC)[0]).toMatchObject({ level: 'error', flag: undefined });
});

test('new warnings are matched by file, message and flag, not by line', () => {
  const after = parseCompilerOutput(
    [
      `${SRC}/lib/a.c:14:5: warning: no previous prototype for ‘f’ [-Wmissing-prototypes]`,
      `${SRC}/lib/a.c:20:5: warning: no previous prototype for ‘g’ [-Wmissing-prototypes]`,
      `${SRC}/include/x.h:3:1: warning: unused variable ‘v’ [-Wunused-variable]`,
      `${SRC}/include/x.h:9:1: warning: unused variable ‘v’ [-Wunused-variable]`,
    ].join('\n'),
    SRC,
  );
  expect(newWarnings(before, after).map((w) => w.text)).toEqual([
    'lib/a.c:20:5: warning: no previous prototype for ‘g’ [-Wmissing-prototypes]',
    'include/x.h:9:1: warning: unused variable ‘v’ [-Wunused-variable]',
  ]);
});
