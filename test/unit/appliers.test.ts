// Who applies an entry's patches today, by a list archive's index: the "applied" replies to patches of its files,
// and its listed maintainers silent for more than a year (mail/appliers.ts).
import { expect, test } from 'vitest';
import { applierLine, whoApplies } from '../../src/mail/appliers.js';
import { repoKey, type IndexedMail } from '../../src/mail/inbox.js';
import { parseSections } from '../../src/subsystems/maintainers.js';

let n = 0;
const m = (id: string, from: string, date: string, more: Partial<IndexedMail> = {}): IndexedMail => ({ epoch: 'l/0', commit: `c${n++}`, messageId: id, references: [], subject: 's', from, date: new Date(date), diff: false, ...more });

test("an entry's appliers from the replies that apply its files' patches; a maintainer silent for a year is named", () => {
  const entries = parseSections(`FOO DRIVER
M:\tOld Maintainer <old@example.org>
M:\tActive One <active@example.org>
L:\tlinux-foo@vger.kernel.org
F:\tdrivers/foo/

NETWORKING DRIVERS
M:\tNet Person <net@example.org>
L:\tnetdev@vger.kernel.org
F:\tdrivers/
`);
  const mails = [
    m('old1', 'Old Maintainer <old@example.org>', '2023-01-10'),
    m('p1', 'A <a@x>', '2026-03-01', { diff: true, files: ['drivers/foo/foo.c'] }),
    m('r1', 'Active One <active@example.org>', '2026-03-02', { inReplyTo: 'p1', applied: true }),
    // A cover letter's reply applies the patches under it.
    m('c2', 'B <b@x>', '2026-05-01'),
    m('p2', 'B <b@x>', '2026-05-01', { diff: true, files: ['drivers/foo/bar.c'], inReplyTo: 'c2' }),
    m('r2', '"Active One" <Active@Example.org>', '2026-05-03', { inReplyTo: 'c2', applied: true }),
    // Another folder's patch applied: not this entry's.
    m('p3', 'C <c@x>', '2026-06-01', { diff: true, files: ['drivers/baz/baz.c'] }),
    m('r3', 'Someone Else <else@example.org>', '2026-06-02', { inReplyTo: 'p3', applied: true }),
  ];
  // Only the entries of the lists archived are judged: netdev's people write on netdev.
  const judged = whoApplies(mails, entries, new Date('2026-12-06'), ['linux-foo']);
  expect(judged.map((e) => e.entry)).toEqual(['FOO DRIVER']);
  const [foo] = judged;
  expect(foo!.silent).toEqual([{ who: 'Old Maintainer <old@example.org>', last: { date: '2023-01-10', messageId: 'old1' } }]);
  expect(foo!.appliers.map((a) => [a.address, a.count, a.last.date, a.last.messageId])).toEqual([['active@example.org', 2, '2026-05-03', 'r2']]);
});

test("who applies today: the people who send the entry's trees' pull requests, the active first; one person under two addresses", () => {
  const entries = parseSections(`WIRELESS DRIVERS
M:\tStepped Down <sd@kernel.org>
L:\tlinux-wireless@vger.kernel.org
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/wireless/wireless-next.git
F:\tdrivers/net/wireless/

ATH DRIVER
M:\tAth Maintainer <ath@example.org>
L:\tlinux-wireless@vger.kernel.org
T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/ath/ath.git
F:\tdrivers/net/wireless/ath/
`);
  const mails = [
    m('p1', 'A <a@x>', '2021-03-01', { diff: true, files: ['drivers/net/wireless/x.c'] }),
    m('r1', 'Stepped Down <sd@old.example.org>', '2021-03-02', { inReplyTo: 'p1', applied: true }),
    m('p2', 'A <a@x>', '2025-01-01', { diff: true, files: ['drivers/net/wireless/y.c'] }),
    m('r2', 'Stepped Down <sd@kernel.org>', '2025-01-02', { inReplyTo: 'p2', applied: true }),
    // The pull requests of the entry's tree (https here, git:// in MAINTAINERS), and of another tree.
    m('pr1', 'New Maintainer <nm@example.org>', '2026-05-01', { pulls: repoKey('https://git.kernel.org/pub/scm/linux/kernel/git/wireless/wireless-next.git') }),
    m('pr2', 'New Maintainer <nm@example.org>', '2026-06-01', { pulls: repoKey('https://git.kernel.org/pub/scm/linux/kernel/git/wireless/wireless-next.git/') }),
    m('pr3', 'Other <o@example.org>', '2026-06-02', { pulls: repoKey('git://git.kernel.org/pub/scm/linux/kernel/git/other/other.git') }),
    // A patch of a driver with a tree of its own below the entry.
    m('p4', 'A <a@x>', '2026-06-03', { diff: true, files: ['drivers/net/wireless/ath/ath10k/mac.c'] }),
    m('r4', 'Ath Maintainer <ath@example.org>', '2026-06-04', { inReplyTo: 'p4', applied: true }),
  ];
  const [w, ath] = whoApplies(mails, entries, new Date('2026-07-15'), ['linux-wireless']);
  expect(ath!.appliers.map((a) => a.address)).toEqual(['ath@example.org']);
  expect(w!.silent).toEqual([{ who: 'Stepped Down <sd@kernel.org>', last: { date: '2025-01-02', messageId: 'r2' } }]);
  // Those active in the last year first, who sends the tree's pull requests before who applied a driver's patch
  // under it; the old maintainer's two addresses counted as one.
  expect(w!.appliers.map((a) => [a.address, a.count, a.pulls, a.last.messageId, a.active])).toEqual([
    ['nm@example.org', 0, 2, 'pr2', true],
    ['ath@example.org', 1, 0, 'r4', true],
    ['sd@kernel.org', 2, 0, 'r2', false],
  ]);
  expect(applierLine(w!.appliers[0]!)).toBe('New Maintainer <nm@example.org> (2 pull requests, last 2026-06-01 <pr2>)');
});
