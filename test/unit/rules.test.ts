// The Documentation/process rules checkpatch does not check: a table of messages and what each must report.
import { describe, expect, test } from 'vitest';
import { checkIdentity, checkMessage, checkRecipients, checkSeries, placeholderAddress, type CommitMessage } from '../../src/check/rules.js';

const author = { name: 'Ada Lovelace', email: 'ada@example.org' };
const SOB = 'Signed-off-by: Ada Lovelace <ada@example.org>';
const msg = (subject: string, body: string): CommitMessage => ({ subject, body, author });
const kinds = (c: CommitMessage) => checkMessage(c).map((p) => p.kind);

describe('commit messages', () => {
  test.each([
    ['a good message', msg('lib/bcd: Spell out unsigned int', `Say why.\n\n${SOB}`), []],
    ['two-level prefix', msg('mm: memcontrol: Convert a flag', `Say why.\n\n${SOB}`), []],
    ['no subsystem', msg('Spell out unsigned int', `Say why.\n\n${SOB}`), ['subject-format']],
    ['a long summary', msg(`lib: ${'x'.repeat(76)}`, `Say why.\n\n${SOB}`), ['subject-length']],
    ['75 characters is fine', msg(`lib: ${'x'.repeat(75)}`, `Say why.\n\n${SOB}`), []],
    ['an empty body', msg('lib: Do it', SOB), ['body-empty']],
    ['no sign-off', msg('lib: Do it', 'Say why.'), ['author-signoff']],
    ['somebody else signs off', msg('lib: Do it', 'Say why.\n\nSigned-off-by: Other <o@example.org>'), ['author-signoff']],
    // Real mail (Armbian's sunxi-6.12 patches): the author's name spelled otherwise at the same address is the author's
    // (checkpatch warns of the mismatch itself); a sign-off with text after it is there, not where trailers go.
    ['the author at the same address, the name spelled otherwise', { subject: 'i2c: mv64xxx: Quiet', body: 'Say why.\n\nSigned-off-by: Ondrej Jirman <megi@xff.cz>', author: { name: 'Ondřej Jirman', email: 'megi@xff.cz' } }, []],
    ['the author by name at another address', msg('lib: Do it', 'Say why.\n\nSigned-off-by: Ada Lovelace <ada@kernel.org>'), []],
    ['a sign-off with text after it', msg('lib: Do it', `Say why.\n\n${SOB}\n\nMore notes after the sign-off.`), ['signoff-misplaced']],
    ['a good Fixes:', msg('lib: Fix it', `Say why.\n\nFixes: 0123456789ab ("lib: Break it")\n${SOB}`), []],
    ['a short Fixes: hash', msg('lib: Fix it', `Say why.\n\nFixes: 0123456 ("lib: Break it")\n${SOB}`), ['fixes-format']],
    ['Fixes: without the subject', msg('lib: Fix it', `Say why.\n\nFixes: 0123456789ab\n${SOB}`), ['fixes-format']],
    ['stable Cc as a trailer', msg('lib: Fix it', `Say why.\n\nCc: stable@vger.kernel.org\n${SOB}`), []],
    ['stable in the prose', msg('lib: Fix it', `Please send to stable@vger.kernel.org too.\n\n${SOB}`), ['stable-cc']],
  ] as const)('%s', (_what, c, expected) => expect(kinds(c)).toEqual(expected));

  test('each problem names its source section', () => {
    for (const p of checkMessage(msg('nothing', ''))) expect(p.message).toMatch(/\((submitting-patches|5\.Posting)\.rst, "[^"]+"\)/);
  });
});

describe('the series', () => {
  test.each([
    ['one patch needs no cover', ['a: b'], undefined, []],
    ['two mailed patches need a cover', ['a: b', 'a: c'], undefined, ['cover-missing']],
    ['placeholder text', ['a: b', 'a: c'], { subject: '*** SUBJECT HERE ***', body: 'x' }, ['cover-placeholder']],
    ['EDITME', ['a: b', 'a: c'], { subject: 'a: s', body: 'EDITME' }, ['cover-placeholder']],
    ['repeated subjects', ['a: b', 'a: b'], { subject: 'a: s', body: 'x' }, ['subject-repeated']],
    // Its length is a rule of the tree it goes to (tree-rules.test.ts).
    ['16 patches', Array.from({ length: 16 }, (_, i) => `a: p${i}`), { subject: 'a: s', body: 'x' }, []],
  ] as const)('%s', (_what, subjects, cover, expected) => {
    expect(checkSeries([...subjects], cover, true).map((p) => p.kind)).toEqual(expected);
  });

  test('a range of commits is not mail: two commits need no cover letter', () => {
    expect(checkSeries(['a: b', 'a: c'], undefined, false)).toEqual([]);
  });
});

test('every maintainer and list of get_maintainer.pl must be a recipient', () => {
  const expected = { to: ['A <a@x.org>'], cc: ['list@vger.kernel.org', 'R <r@x.org>'] };
  expect(checkRecipients(expected, { to: ['a@x.org'], cc: ['List <LIST@vger.kernel.org>', 'R <r@x.org>'] })).toEqual([]);
  const missing = checkRecipients(expected, { to: ['A <a@x.org>'], cc: [] });
  expect(missing.map((p) => p.message.split(' (')[0])).toEqual(['list@vger.kernel.org', 'R <r@x.org>']);
  // The sender's matter on a received series: a warning, not an error.
  expect(missing.map((p) => p.severity)).toEqual(['warning', 'warning']);
});

test("a maintainer Cc'd at another address is there: by name, or by the tree's .mailmap", () => {
  const expected = { to: ['Pavel Machek <pavel@ucw.cz>', 'Lee Jones <lee@kernel.org>'], cc: ['Daniel Thompson <danielt@kernel.org>'] };
  const got = { to: ['"Pavel Machek" <pavel@kernel.org>', 'lee@kernel.org'], cc: ['<daniel@riscstar.com>'] };
  const mailmap = (a: string) => (a === 'daniel@riscstar.com' ? 'danielt@kernel.org' : a);
  expect(checkRecipients(expected, got, mailmap)).toEqual([]);
  expect(checkRecipients(expected, got).map((p) => p.message.split(' (')[0])).toEqual(['Daniel Thompson <danielt@kernel.org>']);
});

describe('addresses that are no person\'s', () => {
  test.each([
    ['a@kernel.org', undefined],
    ['test.author@example.org', undefined],
    ['x@host.example', 'a reserved domain (.example)'],
    ['x@foo.invalid', 'a reserved domain (.invalid)'],
    ['x@box.test', 'a reserved domain (.test)'],
    ['root@localhost', 'a reserved domain (.localhost)'],
    ['noreply@github.com', 'a noreply address'],
    ['123+me@users.noreply.github.com', 'a noreply address'],
    ['no-reply@lists.org', 'a noreply address'],
    ['noreplyfan@x.org', undefined],
  ])('%s', (email, why) => expect(placeholderAddress(email)).toBe(why));

  test('the author and each Signed-off-by are checked, once each', () => {
    const c = { subject: 'lib: x', body: 'Body.\n\nSigned-off-by: A <a@kernel.org>\nSigned-off-by: B <b@b.invalid>\n', author: { name: 'B', email: 'b@b.invalid' } };
    expect(checkIdentity(c).map((w) => w.replace(/ \(.*$/, ''))).toEqual(['the author address b@b.invalid is a reserved domain', 'the Signed-off-by address b@b.invalid is a reserved domain']);
  });
});
