// Subsystem knowledge: which driver a file builds into (Kbuild Makefiles), the prefix its subsystem writes, the
// rules of the tree it goes to. Makefiles are written here in the shapes 6.12's use.
import { expect, test } from 'vitest';
import { driverOf, moduleOf } from '../../src/subsystems/module-name.js';
import { choosePrefix, folderForm, historyPrefix } from '../../src/subsystems/prefix.js';
import { groupFiles, subjectPrefix } from '../../src/subsystems/groups.js';
import { batches, cite, rulesOf } from '../../src/subsystems/profile.js';

const tree = (files: Record<string, string>) => async (f: string) => files[f];

test("a file's driver is the module its Makefile line puts it in", async () => {
  expect(moduleOf('obj-$(CONFIG_R8169) += r8169.o\nr8169-y += r8169_main.o r8169_firmware.o \\\n\tr8169_phy_config.o\n', 'r8169_phy_config.o')).toBe('r8169');
  expect(moduleOf('obj-$(CONFIG_TUN) += tun.o\n', 'tun.o')).toBe('tun');
  // A list another composite takes in (bonding's proc-y) is the outer module's part.
  expect(moduleOf('obj-$(CONFIG_BONDING) += bonding.o\nbonding-objs := bond_main.o\nproc-$(CONFIG_PROC_FS) += bond_procfs.o\nbonding-objs += $(proc-y)\n', 'bond_procfs.o')).toBe('bonding');
  expect(moduleOf('obj-y += a.o\n', 'b.o')).toBeUndefined();
  // A Makefile one folder up names the file with its folder (mlx5/core/Makefile: en/rx.o).
  const read = tree({ 'drivers/x/core/Makefile': 'obj-$(CONFIG_X) += x_core.o\nx_core-y := main.o en/rx.o\n' });
  expect(await driverOf('drivers/x/core/en/rx.c', read)).toEqual({ name: 'x_core', dir: 'drivers/x/core' });
  // A folder whose every module starts with its name is one driver: rtw89_core and rtw89_8852b are rtw89.
  const gpio = tree({ 'drivers/gpio/Makefile': 'obj-$(CONFIG_GPIOLIB) += gpiolib.o\nobj-$(CONFIG_GPIO_WCOVE) += gpio-wcove.o\n' });
  // A subsystem's folder is many drivers, though their modules share a word.
  expect(await driverOf('drivers/gpio/gpio-wcove.c', gpio)).toEqual({ name: 'gpio-wcove', dir: 'drivers/gpio' });
  // Two drivers in one folder whose names share a word (rcar_can, rcar_canfd) stay two.
  const rcar = tree({ 'drivers/net/can/rcar/Makefile': 'obj-$(CONFIG_CAN_RCAR) += rcar_can.o\nobj-$(CONFIG_CAN_RCAR_CANFD) += rcar_canfd.o\n' });
  expect((await driverOf('drivers/net/can/rcar/rcar_canfd.c', rcar)).name).toBe('rcar_canfd');
  const rtw = tree({ 'w/x/y/rtw89/Makefile': 'obj-$(CONFIG_RTW89_CORE) += rtw89_core.o\nrtw89_core-y += core.o\nobj-$(CONFIG_RTW89_8852B) += rtw89_8852b.o\nrtw89_8852b-objs := rtw8852b.o rtw8852b_rfk.o\n' });
  expect(await driverOf('w/x/y/rtw89/rtw8852b_rfk.c', rtw)).toEqual({ name: 'rtw89', dir: 'w/x/y/rtw89' });
  expect(await driverOf('w/x/y/rtw89/core.h', rtw)).toEqual({ name: 'rtw89', dir: 'w/x/y/rtw89' });
  // No Makefile names it: a .c file is its own driver.
  expect(await driverOf('drivers/gpio/gpio-foo.c', tree({}))).toEqual({ name: 'gpio-foo', dir: 'drivers/gpio' });
});

test('prefixes: the file history first, then the form its folder gives its drivers, then the conventions', () => {
  const base = { file: 'drivers/gpio/gpio-mvebu.c', driver: { name: 'gpio-mvebu', dir: 'drivers/gpio' }, folder: 'drivers/gpio', pathPrefix: 'gpio: mvebu' };
  expect(historyPrefix(['gpio: mvebu: fix irq', 'Revert "x"', 'gpio: mvebu: add pwm', 'gpio: use foo'])).toBe('gpio: mvebu');
  expect(choosePrefix({ ...base, fileSubjects: ['gpio: mvebu: fix irq'], folderLog: [] })).toEqual({ prefix: 'gpio: mvebu', source: 'file history', confirm: false });
  // Siblings' subjects: "gpio: pca953x: ..." on gpio-pca953x.c is the form "gpio: {driver}".
  const log = [
    { subject: 'gpio: pca953x: fix pin count', files: ['drivers/gpio/gpio-pca953x.c'] },
    { subject: 'gpio: aggregator: simplify', files: ['drivers/gpio/gpio-aggregator.c'] },
    { subject: 'gpiolib: make foo', files: ['drivers/gpio/gpiolib.c', 'drivers/gpio/gpio-sim.c'] },
  ];
  expect(folderForm(log, 'drivers/gpio')).toBe('gpio: {driver}');
  expect(choosePrefix({ ...base, fileSubjects: [], folderLog: log })).toEqual({ prefix: 'gpio: mvebu', source: 'folder history', confirm: false });
  // A folder of driver folders (linux-wireless' archive, 2026): rtw89's own parts ("wifi: rtw89: coex") are no form
  // for its siblings; "wifi: rtw89:" and "wifi: rtw88:" are, and a sibling gets its folder's name in it.
  const realtek = [
    { subject: 'wifi: rtw89: coex: update BT firmware report', files: ['drivers/net/wireless/realtek/rtw89/coex.c'] },
    { subject: 'wifi: rtw89: 8852b: fix TX power table', files: ['drivers/net/wireless/realtek/rtw89/rtw8852b.c'] },
    { subject: 'wifi: rtw89: coex: fix a typo', files: ['drivers/net/wireless/realtek/rtw89/coex.c'] },
    { subject: 'wifi: rtw89: fix a leak', files: ['drivers/net/wireless/realtek/rtw89/core.c', 'drivers/net/wireless/realtek/rtw89/pci.c'] },
    { subject: 'wifi: rtw88: fix a leak', files: ['drivers/net/wireless/realtek/rtw88/main.c'] },
  ];
  expect(folderForm(realtek, 'drivers/net/wireless/realtek')).toBe('wifi: {driver}');
  const rtl818x = { file: 'drivers/net/wireless/realtek/rtl818x/rtl8187/rfkill.c', driver: { name: 'rtl818x', dir: 'drivers/net/wireless/realtek/rtl818x' }, folder: 'drivers/net/wireless/realtek', pathPrefix: '' };
  expect(choosePrefix({ ...rtl818x, fileSubjects: [], folderLog: realtek }).prefix).toBe('wifi: rtl818x');
  const iwl = [{ subject: 'wifi: iwlwifi: mvm: fix a race', files: ['drivers/net/wireless/intel/iwlwifi/mvm/ops.c'] }];
  const mvm = { file: 'drivers/net/wireless/intel/iwlwifi/mvm/nvm.c', driver: { name: 'iwlmvm', dir: 'drivers/net/wireless/intel/iwlwifi/mvm' }, folder: 'drivers/net/wireless/intel/iwlwifi', pathPrefix: '' };
  expect(choosePrefix({ ...mvm, fileSubjects: [], folderLog: iwl }).prefix).toBe('wifi: iwlwifi: mvm');
  // A tree without history: the conventions, a guess to confirm.
  expect(choosePrefix({ ...base, fileSubjects: [], folderLog: [] })).toEqual({ prefix: 'gpio: mvebu', source: 'convention', confirm: true });
  const ath = { file: 'drivers/net/wireless/ath/ath11k/mac.c', driver: { name: 'ath11k', dir: 'drivers/net/wireless/ath/ath11k' }, folder: 'drivers/net/wireless/ath', pathPrefix: 'ath11k' };
  expect(choosePrefix({ ...ath, fileSubjects: [], folderLog: [] }).prefix).toBe('wifi: ath11k');
  const mlx5 = { file: 'drivers/net/ethernet/mellanox/mlx5/core/main.c', driver: { name: 'mlx5_core', dir: 'drivers/net/ethernet/mellanox/mlx5/core' }, folder: 'drivers/net/ethernet/mellanox/mlx5', pathPrefix: 'mlx5' };
  expect(choosePrefix({ ...mlx5, fileSubjects: [], folderLog: [] }).prefix).toBe('net/mlx5');
  expect(choosePrefix({ ...mlx5, given: 'net/mlx5e', fileSubjects: ['net/mlx5: x'], folderLog: [] })).toEqual({ prefix: 'net/mlx5e', source: 'given', confirm: false });
  // Outside the table: the MAINTAINERS entry's word, else the path.
  expect(choosePrefix({ file: 'lib/vsprintf.c', driver: { name: 'vsprintf', dir: 'lib' }, folder: 'lib', pathPrefix: 'vsprintf', entryPrefix: 'printk', fileSubjects: [], folderLog: [] })).toEqual({ prefix: 'printk', source: 'MAINTAINERS', confirm: true });
});

test('prefixes: history weighed by how closely each subject names the file, against the guess from the tree', () => {
  const at = (file: string, driver: { name: string; dir: string }, fileSubjects: string[], siblings?: string[]) =>
    choosePrefix({ file, driver, fileSubjects, folderLog: [], folder: driver.dir, pathPrefix: '', ...(siblings ? { siblings } : {}) }).prefix;
  // "KVM: arm64" names the kvm folder of arch/arm64/kvm/sys_regs.c as surely as "arm64: kvm" does; four say it.
  expect(at('arch/arm64/kvm/sys_regs.c', { name: 'kvm', dir: 'arch/arm64/kvm' }, ['arm64: kvm: Save MTE', 'KVM: arm64: Stop a', 'KVM: arm64: Stop b', 'KVM: arm64: Move c'])).toBe('KVM: arm64');
  // A series about a sibling object that also touched the file says nothing of the file's own prefix.
  const paravirt = ['x86/paravirt: Plumb a return code', 'x86/paravirt: Move a stub', 'x86/paravirt: Mark as __init'];
  expect(choosePrefix({ file: 'arch/x86/kernel/tsc.c', driver: { name: 'tsc', dir: 'arch/x86/kernel' }, fileSubjects: paravirt, folderLog: [], folder: 'arch/x86/kernel', pathPrefix: 'x86/tsc', siblings: ['paravirt', 'tsc_sync'] })).toEqual({ prefix: 'x86/tsc', source: 'path', confirm: true });
  // A subsystem's word said by all five subjects beats the convention's guess ("gpio: mvebu", the driver's); said by
  // three, not. A core.c is the subsystem's own: "pwm", not "pwm: core".
  const gpio = ['gpio: Drop a', 'gpio: Remove b', 'gpio: Fix c', 'gpio: Use d', 'gpio: Zero e'];
  expect(at('drivers/gpio/gpio-mvebu.c', { name: 'gpio-mvebu', dir: 'drivers/gpio' }, gpio)).toBe('gpio');
  expect(at('drivers/gpio/gpio-mvebu.c', { name: 'gpio-mvebu', dir: 'drivers/gpio' }, gpio.slice(0, 3))).toBe('gpio: mvebu');
  expect(at('drivers/pwm/core.c', { name: 'core', dir: 'drivers/pwm' }, [])).toBe('pwm');
  // Two subjects naming only the group of drivers ("net: dsa") weigh less than the convention's guess for the driver.
  expect(at('drivers/net/dsa/b53/b53_common.c', { name: 'b53_common', dir: 'drivers/net/dsa/b53' }, ['net: dsa: add a', 'net: dsa: act b'])).toBe('net: dsa: b53');
  // netdev writes "net: <driver>" and "<driver>" about equally: its convention is a weak guess, and the file's own
  // subjects decide (three "net: ftgmac100" against two "ftgmac100").
  const ftgmac = ['ftgmac100: Remove a', 'net: ftgmac100: Disable b', 'ftgmac100: Restart c', 'net: ftgmac100: move d', 'net: ftgmac100: add e'];
  expect(at('drivers/net/ethernet/faraday/ftgmac100.c', { name: 'ftgmac100', dir: 'drivers/net/ethernet/faraday' }, ftgmac)).toBe('net: ftgmac100');
  expect(choosePrefix({ file: 'drivers/net/ethernet/faraday/ftgmac100.c', driver: { name: 'ftgmac100', dir: 'drivers/net/ethernet/faraday' }, fileSubjects: [], folderLog: [], folder: '', pathPrefix: '' })).toEqual({ prefix: 'ftgmac100', also: 'net: ftgmac100', source: 'convention', confirm: true });
  // One subject naming the file does not outweigh the conventions' guess; tree-wide subjects count for little.
  expect(at('drivers/gpu/drm/i915/gt/intel_region_lmem.c', { name: 'i915', dir: 'drivers/gpu/drm/i915' }, ['drm/i915: Remove a'])).toBe('drm/i915/gt');
  expect(at('drivers/net/netkit.c', { name: 'netkit', dir: 'drivers/net' }, ['bpf: Add a', 'rtnetlink: Pack b', 'net: Use c', 'rtnetlink: Decouple d'], ['veth', 'vxlan'])).toBe('netkit');
  // "net" is the top folder's word, a tree-wide subject's; "net: core" is the networking core, not team_core.c's "core".
  expect(at('drivers/net/ethernet/google/gve/gve_main.c', { name: 'gve', dir: 'drivers/net/ethernet/google/gve' }, ['net: add a', 'net: allocate b', 'treewide: c', 'net: drop d'], ['gve_rx'])).toBe('gve');
  expect(at('drivers/net/team/team_core.c', { name: 'team', dir: 'drivers/net/team' }, ['net: core: Convert a', 'rtnetlink: Pack b'], ['team_mode_broadcast'])).toBe('team');
  // Forms the subsystems write for parts of a driver or subsystem.
  expect(at('drivers/net/ethernet/mellanox/mlx5/core/en_main.c', { name: 'mlx5_core', dir: 'drivers/net/ethernet/mellanox/mlx5/core' }, [])).toBe('net/mlx5e');
  expect(at('drivers/net/ethernet/mellanox/mlx5/core/main.c', { name: 'mlx5_core', dir: 'drivers/net/ethernet/mellanox/mlx5/core' }, [])).toBe('net/mlx5');
  expect(at('fs/nfs/nfs4proc.c', { name: 'nfsv4', dir: 'fs/nfs' }, [])).toBe('NFSv4');
  expect(subjectPrefix('drivers/regulator/core.c')).toBe('regulator');
  // A driver whose word is its own prefix ("net/mlx4") has no second form to offer.
  expect(choosePrefix({ file: 'drivers/net/ethernet/mellanox/mlx4/main.c', driver: { name: 'mlx4_core', dir: 'drivers/net/ethernet/mellanox/mlx4' }, fileSubjects: [], folderLog: [], folder: '', pathPrefix: '' })).toEqual({ prefix: 'net/mlx4', source: 'convention', confirm: true });
});

test('conventions fill their forms: a folder, a stem, the driver, parts that repeat or say nothing dropped', () => {
  const none = { fileSubjects: [], folderLog: [], folder: '', pathPrefix: '' };
  const at = (file: string, name: string, dir = file.slice(0, file.lastIndexOf('/'))) => choosePrefix({ ...none, file, driver: { name, dir } });
  expect(at('drivers/iio/adc/ad7124.c', 'ad7124').prefix).toBe('iio: adc: ad7124');
  expect(at('drivers/spi/spi.c', 'spi').prefix).toBe('spi');
  // A Realtek chip's files name the chip; the driver's other files the driver.
  expect(at('drivers/net/wireless/realtek/rtw89/rtw8852c_rfk.c', 'rtw89').prefix).toBe('wifi: rtw89: 8852c');
  expect(at('drivers/net/wireless/realtek/rtw89/fw.c', 'rtw89').prefix).toBe('wifi: rtw89');
  expect(at('net/ipv4/tcp_input.c', 'tcp_input').prefix).toBe('tcp');
  expect(at('block/blk-mq-sched.c', 'blk-mq-sched').prefix).toBe('blk-mq');
  expect(at('net/netfilter/nf_tables_api.c', 'nf_tables').prefix).toBe('netfilter: nf_tables');
  expect(at('drivers/soc/qcom/qcom_aoss.c', 'qcom_aoss').prefix).toBe('soc: qcom: aoss');
  expect(at('drivers/edac/amd64_edac.c', 'amd64_edac').prefix).toBe('EDAC/amd64');
  expect(at('drivers/net/phy/qcom/at803x.c', 'at803x').prefix).toBe('net: phy: qcom: at803x');
  expect(at('drivers/net/phy/marvell.c', 'marvell').prefix).toBe('net: phy: marvell');
  expect(at('drivers/net/wireless/atmel/at76c50x-usb.c', 'at76c50x-usb').prefix).toBe('wifi: at76c50x');
  // Subsystems that name the driver in the summary: "Input: xpad - ...", "hwmon: (k10temp) ...".
  expect(at('drivers/input/joystick/xpad.c', 'xpad')).toMatchObject({ prefix: 'Input', named: 'xpad - ' });
  expect(at('drivers/hwmon/k10temp.c', 'k10temp')).toMatchObject({ prefix: 'hwmon', named: '(k10temp) ' });
});

test("a tree's rules: netdev's limit, tag, column limit and clean-up policy, each citing where it is written", async () => {
  const netdev = rulesOf({ tree: 'netdev/net-next' })!;
  expect(netdev.seriesLimit!.max).toBe(15);
  expect(netdev.tag!.next).toBe('net-next');
  expect(netdev.columns!.max).toBe(80);
  const doc = ['tl;dr', '', 'Avoid sending series longer than 15 patches. Larger series', '', 'Netdev discourages patches which perform simple clean-ups, which are not in'].join('\n');
  const read = tree({ 'Documentation/process/maintainer-netdev.rst': doc });
  expect(await cite(netdev.seriesLimit!.source, read)).toBe('Documentation/process/maintainer-netdev.rst:3');
  expect(await cite(netdev.cleanups!.source, read)).toBe('Documentation/process/maintainer-netdev.rst:5');
  expect(await cite(netdev.columns!.source, read)).toMatch(/^https:\/\//);
  // A profile named by P: finds the rules of a tree the table names otherwise.
  expect(rulesOf({ tree: 'some/tree', profile: 'Documentation/process/maintainer-netdev.rst' })?.slug).toBe('net-next');
  expect(rulesOf({ tree: 'broonie/spi' })).toBeUndefined();
});

test('a series over its limit becomes parts of nearly equal size, in order', () => {
  const n = (k: number) => Array.from({ length: k }, (_, i) => i);
  expect(batches(n(15), 15)).toEqual([n(15)]);
  expect(batches(n(54), 15).map((b) => b.length)).toEqual([14, 14, 14, 12]);
  expect(batches(n(54), 15).flat()).toEqual(n(54));
  expect(batches(n(40), undefined)).toHaveLength(1);
});

test("recipients: the people of an entry that names the file only by an N: keyword are left out (AT91's atmel)", async () => {
  const { parseGetMaintainer } = await import('../../src/tools/kernel-scripts.js');
  const { parseSections } = await import('../../src/subsystems/maintainers.js');
  const { withoutKeywordOnly } = await import('../../src/subsystems/recipients.js');
  // get_maintainer.pl's answer for a patch to drivers/net/wireless/atmel/at76c50x-usb.c (6.12).
  const r = parseGetMaintainer([
    'Kalle Valo <kvalo@kernel.org> (maintainer:NETWORKING DRIVERS (WIRELESS))',
    'Nicolas Ferre <nicolas.ferre@microchip.com> (supporter:ARM/Microchip (AT91) SoC support)',
    'linux-wireless@vger.kernel.org (open list:NETWORKING DRIVERS (WIRELESS))',
    'linux-arm-kernel@lists.infradead.org (moderated list:ARM/Microchip (AT91) SoC support)',
    'linux-kernel@vger.kernel.org (open list)',
  ].join('\n'));
  const all = parseSections('NETWORKING DRIVERS (WIRELESS)\nM:\tKalle Valo <kvalo@kernel.org>\nF:\tdrivers/net/wireless/\n\nARM/Microchip (AT91) SoC support\nM:\tNicolas Ferre <nicolas.ferre@microchip.com>\nF:\tarch/arm/mach-at91/\nN:\tatmel\n');
  const kept = withoutKeywordOnly(r, ['drivers/net/wireless/atmel/at76c50x-usb.c'], all);
  expect(kept.to).toEqual(['Kalle Valo <kvalo@kernel.org>']);
  expect(kept.cc).toEqual(['linux-wireless@vger.kernel.org', 'linux-kernel@vger.kernel.org']);
  // For a file the AT91 entry covers by F:, its people stay (and the wireless entry's go).
  expect(withoutKeywordOnly(r, ['arch/arm/mach-at91/pm.c'], all).to).toEqual(['Nicolas Ferre <nicolas.ferre@microchip.com>']);
});

test('To: those who apply the patch and the driver\'s own maintainers; the broader subsystem and other trees Cc', async () => {
  const { parseGetMaintainer } = await import('../../src/tools/kernel-scripts.js');
  const { parseSections } = await import('../../src/subsystems/maintainers.js');
  const { addressedTo, toEntries } = await import('../../src/subsystems/recipients.js');
  const sections = parseSections([
    'NETWORKING DRIVERS (WIRELESS)\nM:\tKalle Valo <kvalo@kernel.org>\nT:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/wireless/wireless-next.git\nF:\tdrivers/net/wireless/\n',
    'QUALCOMM ATHEROS ATH11K WIRELESS DRIVER\nM:\tJeff Johnson <jjohnson@kernel.org>\nT:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/ath/ath.git\nF:\tdrivers/net/wireless/ath/ath11k/\n',
    'DOCUMENTATION\nM:\tJonathan Corbet <corbet@lwn.net>\nT:\tgit git://git.lwn.net/linux.git docs-next\nF:\tDocumentation/\n',
  ].join('\n'));
  const r = parseGetMaintainer(['Jeff Johnson <jjohnson@kernel.org> (maintainer:QUALCOMM ATHEROS ATH11K WIRELESS DRIVER)', 'Kalle Valo <kvalo@kernel.org> (maintainer:NETWORKING DRIVERS (WIRELESS))', 'ath11k@lists.infradead.org (open list:QUALCOMM ATHEROS ATH11K WIRELESS DRIVER)'].join('\n'));
  const files = ['drivers/net/wireless/ath/ath11k/mac.c'];
  const to = toEntries(files, [sections.slice(0, 2)], sections);
  expect([...to]).toEqual(['QUALCOMM ATHEROS ATH11K WIRELESS DRIVER']);
  expect(addressedTo(r, to)).toMatchObject({ to: ['Jeff Johnson <jjohnson@kernel.org>'], cc: ['Kalle Valo <kvalo@kernel.org>', 'ath11k@lists.infradead.org'] });
  // A patch to Documentation/ in a series sent to everyone (ccAll): its appliers are the docs tree's, the rest Cc.
  const docs = toEntries(['Documentation/trace/kprobes.rst'], [[sections[2]!]], sections, true);
  expect([...docs]).toEqual(['DOCUMENTATION']);
});

test("a driver's patch over files whose own forms differ takes the form of the driver as a whole", async () => {
  const makefile = 'obj-$(CONFIG_RTW89_CORE) += rtw89_core.o\nrtw89_core-y += core.o fw.o\nobj-$(CONFIG_RTW89_8851B) += rtw89_8851b.o\nrtw89_8851b-objs := rtw8851b.o rtw8851b_rfk.o\n';
  const dir = 'drivers/net/wireless/realtek/rtw89';
  const ctx = {
    maintainersOf: async () => ['Ping-Ke Shih <pkshih@realtek.com>'],
    routeOf: async () => ({ tree: 'github.com/pkshih/rtw', slug: 'rtw-next', lists: [] }),
    readFile: tree({ [`${dir}/Makefile`]: makefile }),
  };
  const prefixes = async (...files: string[]) => (await groupFiles(ctx, files.map((file) => ({ file })), { by: 'driver' })).map((g) => g.prefix);
  expect(await prefixes(`${dir}/rtw8851b_rfk.c`)).toEqual(['wifi: rtw89: 8851b']);
  expect(await prefixes(`${dir}/rtw8851b_rfk.c`, `${dir}/rtw8851b.c`)).toEqual(['wifi: rtw89: 8851b']);
  expect(await prefixes(`${dir}/rtw8851b_rfk.c`, `${dir}/core.c`)).toEqual(['wifi: rtw89']);
});

test("a family its subsystem names as one is one patch under the family's name: iwl3945 and iwl4965 are wifi: iwlegacy", async () => {
  const dir = 'drivers/net/wireless/intel/iwlegacy';
  const ctx = {
    maintainersOf: async () => ['Stanislaw Gruszka <stf_xl@wp.pl>'],
    routeOf: async () => ({ tree: 'wireless/wireless-next', slug: 'wireless-next', lists: [] }),
    readFile: tree({ [`${dir}/Makefile`]: 'obj-$(CONFIG_IWLEGACY) += iwlegacy.o\niwlegacy-objs := common.o\nobj-$(CONFIG_IWL4965) += iwl4965.o\niwl4965-objs := 4965.o 4965-debug.o\nobj-$(CONFIG_IWL3945) += iwl3945.o\niwl3945-objs := 3945.o 3945-debug.o\n' }),
  };
  const groups = await groupFiles(ctx, [`${dir}/3945-debug.c`, `${dir}/4965-debug.c`].map((file) => ({ file })), { by: 'driver' });
  expect(groups.map((g) => [g.prefix, g.files.length])).toEqual([['wifi: iwlegacy', 2]]);
  // rtl8187 alone is still "wifi: rtl818x".
  const one = await groupFiles(ctx, [{ file: 'drivers/net/wireless/realtek/rtl818x/rtl8187/dev.c' }], { by: 'driver' });
  expect(one.map((g) => g.prefix)).toEqual(['wifi: rtl818x']);
});
