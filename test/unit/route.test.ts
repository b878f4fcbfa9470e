// Routing a patch by MAINTAINERS: the tree, the subject tag, the entry's prefix (get_maintainer.pl --sections output
// as 6.12 prints it, cut down).
import { expect, test } from 'vitest';
import { rulesOf, ruleSaying } from '../../src/subsystems/profile.js';
import { entriesPerFile, entryPrefix, parseSections, routeOf } from '../../src/subsystems/route.js';

const REST = `THE REST
M:\tLinus Torvalds <torvalds@linux-foundation.org>
L:\tlinux-kernel@vger.kernel.org
S:\tBuried alive in reporters
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git
F:\t*
F:\t*/
`;

test('a file covered by an entry with a git tree goes to that tree; its prefix comes from the entry name', () => {
  const out = `TIMEKEEPING, CLOCKSOURCE CORE, NTP, ALARMTIMER
M:\tJohn Stultz <jstultz@google.com>
M:\tThomas Gleixner <tglx@linutronix.de>
L:\tlinux-kernel@vger.kernel.org
S:\tSupported
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/tip/tip.git timers/core
F:\tkernel/time/clocksource*

${REST}`;
  const entries = parseSections(out);
  expect(entries.map((e) => e.name)).toEqual(['TIMEKEEPING, CLOCKSOURCE CORE, NTP, ALARMTIMER', 'THE REST']);
  expect(entries[0]!.maintainers).toHaveLength(2);
  expect(routeOf('kernel/time/clocksource.c', entries)).toEqual({
    tree: 'tip/tip timers/core',
    slug: 'tip-timers-core',
    entry: 'TIMEKEEPING, CLOCKSOURCE CORE, NTP, ALARMTIMER',
    applyingEntry: 'TIMEKEEPING, CLOCKSOURCE CORE, NTP, ALARMTIMER',
    prefix: 'clocksource',
    lists: ['linux-kernel@vger.kernel.org'],
    // As get_maintainer.pl names them; a file only THE REST covers has none.
    maintainers: ['John Stultz <jstultz@google.com>', 'Thomas Gleixner <tglx@linutronix.de>'],
    // Its S: line (an orphaned driver's clean-up is named, not sent).
    status: 'Supported',
  });
});

test('the first entry naming a tree decides; an entry without one still names the prefix', () => {
  const out = `CONTROL GROUP - MEMORY RESOURCE CONTROLLER (MEMCG)
M:\tJohannes Weiner <hannes@cmpxchg.org>
L:\tcgroups@vger.kernel.org
L:\tlinux-mm@kvack.org
S:\tMaintained

MEMORY MANAGEMENT
M:\tAndrew Morton <akpm@linux-foundation.org>
L:\tlinux-mm@kvack.org
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm
T:\tquilt git://git.kernel.org/pub/scm/linux/kernel/git/akpm/25-new

${REST}`;
  expect(routeOf('mm/memcontrol.c', parseSections(out))).toMatchObject({ tree: 'akpm/mm', slug: 'mm', prefix: 'memcg', entry: 'CONTROL GROUP - MEMORY RESOURCE CONTROLLER (MEMCG)' });
});

test('netdev trees are net-next, tagged in the subject; net.git is for fixes', () => {
  const out = `NETWORKING [TCP]
M:\tEric Dumazet <edumazet@google.com>
L:\tnetdev@vger.kernel.org

NETWORKING [IPv4/IPv6]
M:\t"David S. Miller" <davem@davemloft.net>
L:\tnetdev@vger.kernel.org
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/netdev/net.git

${REST}`;
  expect(routeOf('net/ipv4/tcp.c', parseSections(out))).toMatchObject({ tree: 'netdev/net-next', slug: 'net-next', tag: 'net-next', prefix: 'tcp' });
  const general = out.replace('NETWORKING [TCP]', 'NETWORKING [GENERAL]');
  expect(routeOf('net/core/dev.c', parseSections(general))).toMatchObject({ tag: 'net-next', prefix: undefined });
});

test('an entry without a tree is the tree; only THE REST means no maintainer', () => {
  const taskstats = `TASKSTATS STATISTICS INTERFACE
M:\tBalbir Singh <bsingharora@gmail.com>
S:\tMaintained

${REST}`;
  expect(routeOf('kernel/taskstats.c', parseSections(taskstats))).toMatchObject({ tree: 'TASKSTATS STATISTICS INTERFACE', slug: 'taskstats', prefix: 'taskstats', entry: 'TASKSTATS STATISTICS INTERFACE' });
  const rest = routeOf('kernel/tracepoint.c', parseSections(REST));
  expect(rest).toEqual({ tree: 'torvalds/linux', slug: 'linux', lists: ['linux-kernel@vger.kernel.org'], maintainers: [] });
  expect(rest.entry).toBeUndefined();
});

test('entry prefixes: a word naming the file or a folder below the top, else the short name in brackets, else none', () => {
  expect(entryPrefix('kernel/time/clocksource.c', 'TIMEKEEPING, CLOCKSOURCE CORE, NTP, ALARMTIMER')).toBe('clocksource');
  expect(entryPrefix('mm/memcontrol.c', 'CONTROL GROUP - MEMORY RESOURCE CONTROLLER (MEMCG)')).toBe('memcg');
  expect(entryPrefix('kernel/sched/fair.c', 'SCHEDULER')).toBeUndefined();
  expect(entryPrefix('mm/percpu.c', 'PER-CPU MEMORY ALLOCATOR')).toBe('percpu');
  expect(entryPrefix('net/core/dev.c', 'NETWORKING [GENERAL]')).toBeUndefined();
  // The top folder names no subsystem.
  expect(entryPrefix('kernel/foo.c', 'KERNEL FOO THINGS')).toBe('foo');
  expect(entryPrefix('kernel/bar.c', 'KERNEL THINGS')).toBeUndefined();
});

test('an entry with a tree for fixes and one for new work routes new work to the second', () => {
  const intel = 'INTEL ETHERNET DRIVERS\nM:\tTony Nguyen <anthony.l.nguyen@intel.com>\nL:\tintel-wired-lan@lists.osuosl.org (moderated for non-subscribers)\nS:\tSupported\nT:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/tnguy/net-queue.git\nT:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/tnguy/next-queue.git\nF:\tdrivers/net/ethernet/intel/\n';
  expect(routeOf('drivers/net/ethernet/intel/ice/ice_main.c', parseSections(intel))).toMatchObject({ tree: 'tnguy/next-queue', slug: 'iwl-next', tag: 'iwl-next' });
});

test('one run for several files: each file ends at THE REST; an output that does not split so is no answer', () => {
  const spi = `SPI SUBSYSTEM
M:\tMark Brown <broonie@kernel.org>
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/broonie/spi.git
F:\tdrivers/spi/
`;
  const out = `${spi}\n${REST}\n${REST}\n${spi}\n${REST}\n`;
  const parts = entriesPerFile(out, 3)!;
  expect(parts.map((p) => p.map((e) => e.name))).toEqual([['SPI SUBSYSTEM', 'THE REST'], ['THE REST'], ['SPI SUBSYSTEM', 'THE REST']]);
  expect(routeOf('drivers/spi/spi-dw-core.c', parts[2]!)).toMatchObject({ tree: 'broonie/spi', slug: 'spi' });
  expect(entriesPerFile(out, 2)).toBeUndefined();
  expect(entriesPerFile(`${spi}\n${REST}\n${spi}\n`, 2)).toBeUndefined();
});

// The decision order of subsystems/applying-tree.ts, on the entries 6.12's MAINTAINERS gives these files (cut down to
// the fields that decide).
const NETDEV = `NETWORKING DRIVERS
M:\tJakub Kicinski <kuba@kernel.org>
L:\tnetdev@vger.kernel.org
P:\tDocumentation/process/maintainer-netdev.rst
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/netdev/net.git
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/netdev/net-next.git
F:\tDocumentation/devicetree/bindings/net/
F:\tdrivers/net/
F:\tinclude/linux/netdev*
X:\tdrivers/net/wireless/
`;
const NET_GENERAL = NETDEV.replace('NETWORKING DRIVERS', 'NETWORKING [GENERAL]').replace('F:\tdrivers/net/\n', 'F:\tnet/\n');
const WIRELESS = `NETWORKING DRIVERS (WIRELESS)
M:\tKalle Valo <kvalo@kernel.org>
L:\tlinux-wireless@vger.kernel.org
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/wireless/wireless.git
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/wireless/wireless-next.git
F:\tdrivers/net/wireless/
`;
const route = (file: string, ...entries: string[]) => routeOf(file, parseSections([...entries, REST].join('\n')), parseSections([NETDEV, NET_GENERAL, WIRELESS, ...entries].join('\n')));

test('a platform entry that lists a driver folder does not take the driver: netdev does (gemini)', () => {
  const gemini = `ARM/CORTINA SYSTEMS GEMINI ARM ARCHITECTURE
M:\tLinus Walleij <linus.walleij@linaro.org>
L:\tlinux-arm-kernel@lists.infradead.org (moderated for non-subscribers)
T:\tgit git://github.com/ulli-kroll/linux.git
F:\tarch/arm/mach-gemini/
F:\tdrivers/crypto/gemini/
F:\tdrivers/net/ethernet/cortina/
F:\tdrivers/pinctrl/pinctrl-gemini.c
`;
  const r = route('drivers/net/ethernet/cortina/gemini.c', gemini, NETDEV);
  expect(r).toMatchObject({ tree: 'netdev/net-next', slug: 'net-next', tag: 'net-next', applyingEntry: 'NETWORKING DRIVERS', entry: 'ARM/CORTINA SYSTEMS GEMINI ARM ARCHITECTURE', profile: 'Documentation/process/maintainer-netdev.rst' });
  // The platform's own files are its own.
  expect(route('arch/arm/mach-gemini/board.c', gemini)).toMatchObject({ tree: 'github.com/ulli-kroll/linux', slug: 'ulli-kroll-linux' });
});

test('a core entry that lists a driver folder does not take it either (Hyper-V netvsc goes through net-next)', () => {
  const hyperv = `Hyper-V/Azure CORE AND DRIVERS
M:\tWei Liu <wei.liu@kernel.org>
L:\tlinux-hyperv@vger.kernel.org
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/hyperv/linux.git
F:\tarch/x86/hyperv/
F:\tdrivers/hv/
F:\tdrivers/net/hyperv/
F:\tinclude/linux/hyperv.h
`;
  expect(route('drivers/net/hyperv/rndis_filter.c', hyperv, NETDEV)).toMatchObject({ tree: 'netdev/net-next', tag: 'net-next' });
  expect(route('drivers/hv/vmbus_drv.c', hyperv)).toMatchObject({ tree: 'hyperv/linux', slug: 'hyperv-linux' });
});

test("a driver's own tree within the subsystem takes it: ath, rtw, can-next, wpan-next, each with its tag", () => {
  const ath11k = `QUALCOMM ATHEROS ATH11K WIRELESS DRIVER
M:\tJeff Johnson <jjohnson@kernel.org>
L:\tath11k@lists.infradead.org
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/ath/ath.git
F:\tDocumentation/devicetree/bindings/net/wireless/qcom,ath11k.yaml
F:\tdrivers/net/wireless/ath/ath11k/
N:\tath11k
`;
  // get_maintainer.pl prints the wireless entry first; the deeper F: pattern is the more specific.
  expect(route('drivers/net/wireless/ath/ath11k/mac.c', WIRELESS, ath11k)).toMatchObject({ tree: 'ath/ath', slug: 'ath-next', tag: 'ath-next', entry: 'QUALCOMM ATHEROS ATH11K WIRELESS DRIVER' });
  const rtw = `REALTEK WIRELESS DRIVER (rtw88)
M:\tPing-Ke Shih <pkshih@realtek.com>
T:\tgit https://github.com/pkshih/rtw.git
F:\tdrivers/net/wireless/realtek/rtw88/
`;
  expect(route('drivers/net/wireless/realtek/rtw88/main.c', rtw, WIRELESS)).toMatchObject({ tree: 'github.com/pkshih/rtw', slug: 'rtw-next', tag: 'rtw-next' });
  const can = `CAN NETWORK DRIVERS
M:\tMarc Kleine-Budde <mkl@pengutronix.de>
L:\tlinux-can@vger.kernel.org
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/mkl/linux-can.git
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/mkl/linux-can-next.git
F:\tdrivers/net/can/
F:\tdrivers/phy/phy-can-transceiver.c
F:\tinclude/linux/can/bittiming.h
`;
  const mcp = `MCP251XFD SPI-CAN NETWORK DRIVER
M:\tMarc Kleine-Budde <mkl@pengutronix.de>
L:\tlinux-can@vger.kernel.org
F:\tdrivers/net/can/spi/mcp251xfd/
`;
  expect(route('drivers/net/can/spi/mcp251xfd/mcp251xfd-core.c', mcp, can, NETDEV)).toMatchObject({ tree: 'mkl/linux-can-next', slug: 'can-next', tag: 'can-next', entry: 'MCP251XFD SPI-CAN NETWORK DRIVER', applyingEntry: 'CAN NETWORK DRIVERS' });
  // WPAN's entry lists net/ieee802154/ too: within netdev's scope (NETWORKING [GENERAL] takes net/).
  const wpan = `IEEE 802.15.4 SUBSYSTEM
M:\tStefan Schmidt <stefan@datenfreihafen.org>
L:\tlinux-wpan@vger.kernel.org
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/wpan/wpan.git
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/wpan/wpan-next.git
F:\tdrivers/net/ieee802154/
F:\tnet/ieee802154/
F:\tnet/mac802154/
`;
  expect(route('drivers/net/ieee802154/mrf24j40.c', wpan, NETDEV)).toMatchObject({ tree: 'wpan/wpan-next', tag: 'wpan-next' });
});

test('an entry that names a file only by an N: keyword neither routes it nor is among its maintainers (AT91 and at76c50x-usb)', () => {
  const at91 = `ARM/Microchip (AT91) SoC support
M:\tNicolas Ferre <nicolas.ferre@microchip.com>
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/at91/linux.git
F:\tarch/arm/mach-at91/
N:\tat91
N:\tatmel
`;
  const r = route('drivers/net/wireless/atmel/at76c50x-usb.c', WIRELESS, at91);
  expect(r).toMatchObject({ tree: 'wireless/wireless-next', tag: 'wireless-next', entry: 'NETWORKING DRIVERS (WIRELESS)' });
  expect(r.maintainers).toEqual(['Kalle Valo <kvalo@kernel.org>']);
});

test('a subsystem that covers the file only as a whole top folder is a catch-all: the most specific tree takes it (KPROBES)', () => {
  const lib = `LIBRARY CODE
M:\tAndrew Morton <akpm@linux-foundation.org>
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm.git mm-nonmm-unstable
F:\tlib/*
`;
  const docs = `DOCUMENTATION
M:\tJonathan Corbet <corbet@lwn.net>
T:\tgit git://git.lwn.net/linux.git docs-next
F:\tDocumentation/
`;
  const kprobes = `KPROBES
M:\tMasami Hiramatsu <mhiramat@kernel.org>
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/trace/linux-trace.git
F:\tDocumentation/trace/kprobes.rst
F:\tkernel/kprobes.c
F:\tlib/test_kprobes.c
F:\tsamples/kprobes
`;
  const all = parseSections([lib, docs, kprobes].join('\n'));
  expect(routeOf('lib/test_kprobes.c', parseSections([lib, kprobes, REST].join('\n')), all)).toMatchObject({ tree: 'trace/linux-trace', applyingEntry: 'KPROBES' });
  expect(routeOf('Documentation/trace/kprobes.rst', parseSections([docs, kprobes, REST].join('\n')), all)).toMatchObject({ applyingEntry: 'KPROBES' });
  expect(routeOf('lib/bcd.c', parseSections([lib, REST].join('\n')), all)).toMatchObject({ applyingEntry: 'LIBRARY CODE' });
});

test("a folder whose own entry's drivers' trees are one goes through that tree as a whole: ath5k and wcn36xx through ath.git", () => {
  const athTree = (name: string, dir: string) => `${name}
M:\tJeff Johnson <jjohnson@kernel.org>
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/ath/ath.git
F:\tdrivers/net/wireless/ath/${dir}/
`;
  const generic = `ATHEROS ATH GENERIC UTILITIES
M:\tKalle Valo <kvalo@kernel.org>
F:\tdrivers/net/wireless/ath/*
`;
  const ath5k = `ATHEROS ATH5K WIRELESS DRIVER
M:\tJiri Slaby <jirislaby@kernel.org>
F:\tdrivers/net/wireless/ath/ath5k/
`;
  const ath10k = athTree('QUALCOMM ATHEROS ATH10K WIRELESS DRIVER', 'ath10k');
  const ath11k = athTree('QUALCOMM ATHEROS ATH11K WIRELESS DRIVER', 'ath11k');
  const all = (...more: string[]) => parseSections([NETDEV, WIRELESS, generic, ath5k, ...more].join('\n'));
  const ath5kRoute = (...more: string[]) => routeOf('drivers/net/wireless/ath/ath5k/base.c', parseSections([ath5k, WIRELESS, REST].join('\n')), all(...more));
  expect(ath5kRoute(ath10k, ath11k)).toMatchObject({ tree: 'ath/ath', tag: 'ath-next', entry: 'ATHEROS ATH5K WIRELESS DRIVER' });
  // One driver's tree is no folder's: wireless-next keeps the rest (Intel's folder: iwlwifi's tree, ipw2x00 none).
  expect(ath5kRoute(ath10k)).toMatchObject({ tree: 'wireless/wireless-next' });
  // Nor are trees that differ, or a folder without an entry of its own (TI's media drivers).
  expect(ath5kRoute(ath10k, ath11k.replace('ath/ath.git', 'someone/ath11k.git'))).toMatchObject({ tree: 'wireless/wireless-next' });
  const noUnit = parseSections([NETDEV, WIRELESS, ath5k, ath10k, ath11k].join('\n'));
  expect(routeOf('drivers/net/wireless/ath/ath5k/base.c', parseSections([ath5k, WIRELESS, REST].join('\n')), noUnit)).toMatchObject({ tree: 'wireless/wireless-next' });
});

test("a tree whose patches land through netdev's has netdev's rules where it has none of its own; wireless keeps its own", async () => {
  const iwl = rulesOf({ tree: 'tnguy/next-queue' })!;
  expect(iwl.slug).toBe('iwl-next');
  expect(iwl.cleanups?.discouraged).toBe(true);
  expect(iwl.columns?.max).toBe(80);
  expect(iwl.seriesLimit?.max).toBe(15);
  const said = await ruleSaying(iwl, iwl.cleanups!.source, async () => 'x\nNetdev discourages patches which perform simple clean-ups, which\n');
  expect(said).toMatch(/^"Netdev discourages patches which perform simple clean-ups" \(Documentation\/process\/maintainer-netdev\.rst:2\), the rule of netdev\/net-next, which applies its patches \(.*https:\/\/lore\.kernel\.org\/netdev\//);
  expect(rulesOf({ tree: 'wireless/wireless-next' })?.cleanups).toBeUndefined();
  expect(rulesOf({ tree: 'mkl/linux-can-next' })?.cleanups).toBeUndefined();
});
