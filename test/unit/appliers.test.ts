// Who applies an entry's patches today, by a list archive's index: the "applied" replies to patches of its files,
// and its listed maintainers silent for more than a year (mail/appliers.ts).
import { expect, test } from 'vitest';
import { whoApplies } from '../../src/mail/appliers.js';
import type { IndexedMail } from '../../src/mail/inbox.js';
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
