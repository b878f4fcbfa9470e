// Reading Kbuild: which symbols build an object, what a symbol depends on, and compiler output.
import { expect, test } from 'vitest';
import { buildWays, chooseWay, configSymbolsFor, kconfigDepends, kconfigSelectors, sourceConditions, newWarnings, parseCompilerOutput, symbolsToMeet, setSymbols } from '../../src/build/kbuild.js';

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

// A directory pulled in by several lines (drivers/Makefile names usb/ six times, three here), an object named twice, composites
// made with foo-y, foo-objs and foo-$(CONFIG_X), a list used whole, conditionals around lines, and the top Kbuild.
const ALTERNATIVES: Record<string, string> = {
  Kbuild: 'obj-y += drivers/\nobj-$(CONFIG_NET) += net/\nobj-y += arch/$(SRCARCH)/\n',
  'drivers/Makefile': 'obj-$(CONFIG_USB_PHY)\t\t+= usb/\nobj-$(CONFIG_USB_SUPPORT)\t+= usb/\nobj-$(CONFIG_PCI)\t\t+= usb/\n',
  'drivers/usb/Makefile': 'obj-$(CONFIG_USB) += core/\nobj-$(CONFIG_USB_MUSB_HDRC) += musb/\n',
  'drivers/usb/core/Makefile': [
    'usbcore-y := usb.o hub.o',
    'usbcore-y += config.o',
    'usbcore-$(CONFIG_OF) += of.o',
    'ifdef CONFIG_USB_ONBOARD_DEV',
    'usbcore-y += onboard.o',
    'endif',
    'ifeq ($(CONFIG_ACPI),y)',
    'usbcore-y += acpi.o',
    'else',
    'usbcore-y += noacpi.o',
    'endif',
    'obj-$(CONFIG_USB) += usbcore.o',
    '',
  ].join('\n'),
  'drivers/usb/musb/Makefile': 'obj-$(CONFIG_USB_MUSB_HDRC) += musb_hdrc.o\nmusb_hdrc-$(CONFIG_USB_MUSB_HOST)$(CONFIG_USB_MUSB_DUAL_ROLE) += musb_host.o\n',
  'net/Makefile': 'obj-$(CONFIG_INET) += ipv4/\nobj-$(CONFIG_L2TP) += l2tp/\n',
  'net/ipv4/Makefile': 'obj-y := route.o\nobj-$(CONFIG_IP_MROUTE) += ipmr.o\nobj-$(CONFIG_IP_PIMSM_V1) += ipmr.o\n',
  'net/l2tp/Makefile': 'obj-$(subst y,$(CONFIG_L2TP),$(CONFIG_L2TP_IP)) += l2tp_ip.o\n',
  'fs/Makefile': 'obj-$(CONFIG_EXT4_FS) += ext4/\n',
  'fs/ext4/Makefile': 'obj-$(CONFIG_EXT4_FS) += ext4.o\n\next4-y\t:= balloc.o bitmap.o \\\n\t\tinode.o\next4-$(subst m,y,$(CONFIG_FS_ENCRYPTION)) += crypto.o\n',
  'drivers/gpu/Makefile': 'obj-$(CONFIG_DRM_I915) += i915/\n',
  'drivers/gpu/i915/Makefile': 'gt-y += gt/intel_gt.o \\\n\tgt/intel_rps.o\ni915-y := i915_driver.o\ni915-y += $(gt-y)\nobj-$(CONFIG_DRM_I915) += i915.o\n',
  'arch/x86/Kbuild': 'obj-y += kernel/\n',
  'arch/x86/kernel/Makefile': 'obj-y := head_$(BITS).o\nobj-$(CONFIG_X86_32) += tls.o\nobj-$(CONFIG_IA32_EMULATION) += tls.o\n',
  'scripts/Makefile': 'hostprogs := sorttable\nsorttable-objs := sorttable_main.o\n',
};
const readAlternatives = async (f: string) => ALTERNATIVES[f];

test('every way to an object: one per line that pulls in each directory, composite or not', async () => {
  expect(await buildWays('drivers/usb/core/hub.c', readAlternatives)).toEqual([['USB', 'USB_PHY'], ['USB', 'USB_SUPPORT'], ['USB', 'PCI']]);
  expect(await buildWays('net/ipv4/ipmr.c', readAlternatives)).toEqual([['IP_MROUTE', 'INET', 'NET'], ['IP_PIMSM_V1', 'INET', 'NET']]);
  expect(await buildWays('drivers/usb/musb/musb_host.c', readAlternatives)).toHaveLength(6);
  expect(await buildWays('drivers/usb/core/nothing.c', readAlternatives)).toBeUndefined();
});

test.each([
  // An OR: the line whose symbol the config sets is the one to follow, whatever the Makefile order.
  ['drivers/usb/core/hub.c', ['USB', 'PCI'], ['USB', 'PCI']],
  ['drivers/usb/core/hub.c', ['USB', 'USB_SUPPORT', 'PCI'], ['USB', 'USB_SUPPORT']],
  // None set: the way that needs fewest switched on; without a config, the first.
  ['drivers/usb/core/hub.c', ['PCI'], ['USB', 'PCI']],
  ['drivers/usb/core/hub.c', undefined, ['USB', 'USB_PHY']],
  ['net/ipv4/ipmr.c', ['NET', 'INET', 'IP_PIMSM_V1'], ['IP_PIMSM_V1', 'INET', 'NET']],
  ['net/ipv4/ipmr.c', ['NET', 'INET'], ['IP_MROUTE', 'INET', 'NET']],
  ['arch/x86/kernel/tls.c', ['IA32_EMULATION'], ['IA32_EMULATION']],
  // $(CONFIG_A)$(CONFIG_B): either one.
  ['drivers/usb/musb/musb_host.c', ['USB_SUPPORT', 'USB_MUSB_HDRC', 'USB_MUSB_DUAL_ROLE'], ['USB_MUSB_DUAL_ROLE', 'USB_MUSB_HDRC', 'USB_SUPPORT']],
])('%s with %j set needs %j', async (file, set, symbols) => {
  expect(await configSymbolsFor(file, readAlternatives, set && new Set(set))).toEqual(symbols);
});

test.each([
  ['fs/ext4/inode.c', ['EXT4_FS']], // foo-y := over a continued line
  ['fs/ext4/crypto.c', ['FS_ENCRYPTION', 'EXT4_FS']], // foo-$(subst m,y,$(CONFIG_X))
  ['drivers/usb/core/of.c', ['OF', 'USB', 'USB_PHY']], // foo-$(CONFIG_X)
  ['drivers/usb/core/onboard.c', ['USB_ONBOARD_DEV', 'USB', 'USB_PHY']], // ifdef around foo-y
  ['drivers/usb/core/acpi.c', ['ACPI', 'USB', 'USB_PHY']], // ifeq ($(CONFIG_X),y)
  ['drivers/usb/core/noacpi.c', ['USB', 'USB_PHY']], // its else: "ACPI not set" is never a symbol to switch on
  ['drivers/gpu/i915/gt/intel_rps.c', ['DRM_I915']], // in a subdirectory, through a list used whole: i915-y += $(gt-y)
  ['net/l2tp/l2tp_ip.c', ['L2TP', 'L2TP_IP', 'NET']], // $(subst y,$(CONFIG_A),$(CONFIG_B)): both
  ['arch/x86/kernel/head_64.S', []], // head_$(BITS).o, in arch/$(SRCARCH)/
  ['scripts/sorttable_main.c', []], // a host program's foo-objs: no kernel composite, no symbol
])('composite member %s is built by %j (none set: the first line to each directory)', async (file, symbols) => {
  expect(await configSymbolsFor(file, readAlternatives, new Set())).toEqual(symbols);
});

test('chooseWay: all set first, then fewest to switch on, then shortest, then Makefile order', () => {
  const ways = [['A', 'X'], ['A', 'B', 'C'], ['A', 'Y']];
  expect(chooseWay(ways, new Set(['A', 'B', 'C']))).toEqual(['A', 'B', 'C']);
  expect(chooseWay(ways, new Set(['A', 'Y']))).toEqual(['A', 'Y']);
  expect(chooseWay(ways, new Set(['A']))).toEqual(['A', 'X']);
  expect(chooseWay([['P', 'Q'], ['R']], new Set())).toEqual(['R']);
  expect(chooseWay([['P', 'Q'], ['P']], new Set(['P', 'Q']))).toEqual(['P']);
  expect(chooseWay([['P'], ['Q']])).toEqual(['P']);
  expect(chooseWay([], new Set())).toEqual([]);
});

test('the symbols a .config sets, to y or m', () => {
  const config = ['CONFIG_USB=y', 'CONFIG_E1000=m', '# CONFIG_USB_PHY is not set', 'CONFIG_HZ=250', 'CONFIG_LOCALVERSION=""', ''].join('\n');
  expect([...setSymbols(config)]).toEqual(['USB', 'E1000']);
});

test('depends on lines of one config entry, and the if blocks around it', () => {
  const kconfig = ['if OUTER', 'config H', '\thelp', '\t  if this were a block it would count', 'if INNER', 'endif', 'config A', '\tbool "a"', '\tdepends on B && C', '\tdepends on !D', '', 'config B', '\tdepends on X', 'endif'].join('\n');
  expect(kconfigDepends(kconfig, 'A')).toEqual(['OUTER', 'B && C', '!D']);
  expect(kconfigDepends(kconfig, 'Z')).toBeUndefined();
  expect(symbolsToMeet(['OUTER', 'B && C'])).toEqual(['OUTER', 'B', 'C']);
  expect(symbolsToMeet(['B && !D'])).toBeUndefined();
  // Alternatives: the first that names no platform; one the .config already meets before it.
  expect(symbolsToMeet(['A || B'])).toEqual(['A']);
  expect(symbolsToMeet(['A || B'], (s) => s === 'B')).toEqual(['B']);
  expect(symbolsToMeet(['ARCH_IXP4XX || MACH_FOO'])).toBeUndefined();
  // A negation is met when its symbol is off (COMPILE_TEST && !64BIT on x86-64 is not).
  expect(symbolsToMeet(['B && !D'], () => false)).toEqual(['B']);
  expect(symbolsToMeet(['COMPILE_TEST && !64BIT'], (s) => s === '64BIT')).toBeUndefined();
  // A driver for another machine is built with COMPILE_TEST (drivers/spi/Kconfig, SPI_ASPEED_SMC).
  expect(symbolsToMeet(['SPI', 'ARCH_ASPEED || COMPILE_TEST && OF'])).toEqual(['SPI', 'COMPILE_TEST', 'OF']);
  // drivers/i2c/busses/Kconfig, I2C_SPRD: a part in parentheses, and a symbol with its value.
  expect(symbolsToMeet(['I2C=y && (ARCH_SPRD || COMPILE_TEST) && COMMON_CLK'])).toEqual(['I2C', 'COMPILE_TEST', 'COMMON_CLK']);
  expect(symbolsToMeet(['(A && B)'])).toEqual(['A', 'B']);
  expect(symbolsToMeet(['(A || B) && (C || D)'])).toEqual(['A', 'C']);
});

test('Kconfig lines continued with a backslash are one; the entries that select a symbol', () => {
  // drivers/net/ethernet/smsc/Kconfig, SMC91X in 6.12: its architectures go on on the next line.
  const smc = ['config SMC91X', '\ttristate "SMC 91C9x/91C1xxx support"', '\tdepends on !OF || GPIOLIB', '\tdepends on ARM || ARM64 || ATARI_ETHERNAT || COLDFIRE || \\', '\t\t   MIPS || NIOS2 || SUPERH || XTENSA || COMPILE_TEST', ''].join('\n');
  expect(kconfigDepends(smc, 'SMC91X')).toEqual(['!OF || GPIOLIB', 'ARM || ARM64 || ATARI_ETHERNAT || COLDFIRE || MIPS || NIOS2 || SUPERH || XTENSA || COMPILE_TEST']);
  expect(symbolsToMeet(kconfigDepends(smc, 'SMC91X')!, (s) => s === 'X86')).toEqual(['COMPILE_TEST']);
  // MLX4_CORE has no prompt: MLX4_EN selects it.
  const mlx4 = ['config MLX4_EN', '	tristate "Mellanox Technologies 1/10/40Gbit Ethernet support"', '	depends on PCI && NETDEVICES && ETHERNET && INET', '	select MLX4_CORE', '	select PAGE_POOL if FOO', '', 'config MLX4_CORE', '	tristate', '	depends on PCI', 'config OTHER', '	select MLX4_CORE_GEN2'].join('\n');
  expect(kconfigSelectors(mlx4, 'MLX4_CORE')).toEqual(['MLX4_EN']);
  expect(kconfigSelectors(mlx4, 'PAGE_POOL')).toEqual(['MLX4_EN']);
  expect(kconfigSelectors(mlx4, 'NOPE')).toEqual([]);
});

test("the conditions open at a file's source line: its entries inherit them", () => {
  // drivers/infiniband/Kconfig in 6.12: qedr's Kconfig is sourced inside `if INFINIBAND`, two `if`s and a closed one.
  const kconfig = ['menuconfig INFINIBAND', '\ttristate "InfiniBand support"', 'if INFINIBAND', 'if X', 'endif', 'menu "Drivers"', '\tdepends on PCI', 'if INFINIBAND_USER_ACCESS || !INFINIBAND_USER_ACCESS', 'if !UML', 'source "drivers/infiniband/hw/qedr/Kconfig"', 'endif # !UML', 'endif', 'endmenu', 'endif # INFINIBAND'].join('\n');
  expect(sourceConditions(kconfig, 'drivers/infiniband/hw/qedr/Kconfig')).toEqual(['INFINIBAND', 'PCI', 'INFINIBAND_USER_ACCESS || !INFINIBAND_USER_ACCESS', '!UML']);
  expect(sourceConditions(kconfig, 'drivers/other/Kconfig')).toBeUndefined();
  expect(symbolsToMeet(sourceConditions(kconfig, 'drivers/infiniband/hw/qedr/Kconfig')!, (s) => s === 'PCI')).toEqual(['INFINIBAND', 'PCI']);
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
  // kernel-doc, run by W=1, prints no column.
  const doc = parseCompilerOutput(`${SRC}/drivers/net/phy/phylink.c:1586: warning: Excess function parameter 'nonexistent' description in 'phylink_create'`, SRC);
  expect(doc).toEqual([{ level: 'warning', file: 'drivers/net/phy/phylink.c', line: 1586, column: 0, message: "Excess function parameter 'nonexistent' description in 'phylink_create'", flag: undefined, text: "drivers/net/phy/phylink.c:1586: warning: Excess function parameter 'nonexistent' description in 'phylink_create'" }]);
  // dtc, for a device tree: line.column-line.column, its check in parentheses.
  const dtc = parseCompilerOutput(`${SRC}/arch/arm64/boot/dts/freescale/imx8mq.dtsi:1284.13-1292.8: Warning (graph_child_address): /soc@0/dsi@30a00000/ports/port@0: graph node has single child node 'endpoint@0'`, SRC);
  expect(dtc).toEqual([{ level: 'warning', file: 'arch/arm64/boot/dts/freescale/imx8mq.dtsi', line: 1284, column: 13, message: "/soc@0/dsi@30a00000/ports/port@0: graph node has single child node 'endpoint@0'", flag: 'graph_child_address', text: expect.stringMatching(/^arch\/arm64\/boot\/dts\/freescale\/imx8mq\.dtsi:1284\.13-1292\.8: Warning/) }]);
  expect(parseCompilerOutput(`${SRC}/arch/arm/boot/dts/x.dts:7.1-3: ERROR (duplicate_label): /a: Duplicate label 'l'`, SRC)[0]).toMatchObject({ level: 'error', flag: 'duplicate_label', line: 7 });
  // objtool names the object and the function's offset, which any change to the function moves.
  const objtool = (offset: string) => parseCompilerOutput(`lib/test_kprobes.o: warning: objtool: kprobe_loop_target+${offset}: unreachable instruction`, SRC);
  expect(objtool('0xd')).toEqual([{ level: 'warning', file: 'lib/test_kprobes.o', line: 0, column: 0, message: 'kprobe_loop_target: unreachable instruction', flag: 'objtool', text: 'lib/test_kprobes.o: warning: objtool: kprobe_loop_target+0xd: unreachable instruction' }]);
  expect(newWarnings(objtool('0xd'), objtool('0x11'))).toEqual([]);
  expect(newWarnings([], objtool('0x11'))).toHaveLength(1);
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

test("a header's or the command line's warning inside a macro a .c line expands is that line's (pr_debug()'s format, gcc 12)", () => {
  const out = [
    'In file included from /src/include/asm-generic/bug.h:22,',
    '/src/include/linux/kern_levels.h:5:25: warning: format ‘%lu’ expects argument of type ‘long unsigned int’, but argument 5 has type ‘size_t’ {aka ‘unsigned int’} [-Wformat=]',
    '    5 | #define KERN_SOH        "\\001"',
    '/src/include/linux/printk.h:135:25: note: in definition of macro ‘no_printk’',
    '/src/include/linux/kern_levels.h:15:25: note: in expansion of macro ‘KERN_SOH’',
    '/src/drivers/demo/lamp.c:12:9: note: in expansion of macro ‘DEMO_DEBUG’',
    '/src/drivers/demo/lamp.c:669:9: note: in expansion of macro ‘pr_debug’',
    '/src/drivers/demo/lamp.c:700:1: warning: no previous prototype for ‘f’ [-Wmissing-prototypes]',
    '/src/drivers/demo/lamp.c:701:9: note: in expansion of macro ‘pr_debug’',
    // With CONFIG_DYNAMIC_DEBUG the format is checked in pr_fmt()'s KBUILD_MODNAME, a macro of the command line.
    '<command-line>: warning: format ‘%lu’ expects argument of type ‘long unsigned int’, but argument 6 has type ‘size_t’ {aka ‘unsigned int’} [-Wformat=]',
    '<command-line>: note: in definition of macro ‘KBUILD_MODNAME’',
    '/src/include/linux/dynamic_debug.h:224:29: note: in expansion of macro ‘pr_fmt’',
    '/src/drivers/demo/lamp.c:720:9: note: in expansion of macro ‘pr_debug’',
  ].join('\n');
  expect(parseCompilerOutput(out, '/src').map((m) => m.text)).toEqual([
    "drivers/demo/lamp.c:669:9: warning: format ‘%lu’ expects argument of type ‘long unsigned int’, but argument 5 has type ‘size_t’ {aka ‘unsigned int’} [-Wformat=]",
    'drivers/demo/lamp.c:700:1: warning: no previous prototype for ‘f’ [-Wmissing-prototypes]',
    "drivers/demo/lamp.c:720:9: warning: format ‘%lu’ expects argument of type ‘long unsigned int’, but argument 6 has type ‘size_t’ {aka ‘unsigned int’} [-Wformat=]",
  ]);
});
