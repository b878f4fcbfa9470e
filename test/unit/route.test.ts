// Routing a patch by MAINTAINERS: the tree, the subject tag, the entry's prefix (get_maintainer.pl --sections output
// as 6.12 prints it, cut down).
import { expect, test } from 'vitest';
import { entriesPerFile, entryPrefix, parseSections, routeOf } from '../../src/mail/route.js';

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
    prefix: 'clocksource',
    lists: ['linux-kernel@vger.kernel.org'],
    // As get_maintainer.pl names them; a file only THE REST covers has none.
    maintainers: ['John Stultz <jstultz@google.com>', 'Thomas Gleixner <tglx@linutronix.de>'],
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
  expect(routeOf('net/core/dev.c', parseSections(general))).toMatchObject({ tag: 'net-next', prefix: 'net' });
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
  expect(routeOf('drivers/net/ethernet/intel/ice/ice_main.c', parseSections(intel))).toMatchObject({ tree: 'tnguy/next-queue', slug: 'next-queue' });
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
