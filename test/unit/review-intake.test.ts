// Identifying a series in a mailbox: subjects, numbering, versions, missing and doubled parts, threading, trailers.
import { describe, expect, test } from 'vitest';
import type { Message } from '../../src/mail/mailbox.js';
import { identifySeries } from '../../src/review/intake.js';
import { parseSubject } from '../../src/review/subject.js';
import { addTrailers, trailersOf } from '../../src/review/trailers.js';

describe('subjects', () => {
  test.each([
    ['[PATCH] mm: Fix it', { summary: 'mm: Fix it', patch: true, version: 1, versioned: false, index: 1, total: 1, numbered: false, rfc: false, resend: false, prefixes: [], reply: false }],
    ['[PATCH v3 2/7] mm: Fix it', { version: 3, index: 2, total: 7 }],
    ['[RFC PATCH net-next v2 0/4] net: A cover', { rfc: true, prefixes: ['net-next'], version: 2, index: 0, total: 4, summary: 'net: A cover' }],
    ['[PATCH RESEND 1/2] x: y', { resend: true, index: 1, total: 2 }],
    ['[net-next][PATCH v2 1/3] net: Foo', { prefixes: ['net-next'], version: 2, index: 1, total: 3, summary: 'net: Foo' }],
    ['Re: [PATCH v2 1/3] net: Foo', { reply: true, index: 1 }],
    ['RE: Re: [PATCH 1/3] net: Foo', { reply: true }],
    ['[PATCH 1/3] Re: net: Foo', { reply: true }],
    ['[PATCH 6.12.y 3/5] mm: Backport', { prefixes: ['6.12.y'], index: 3, total: 5 }],
    ['[PATCH 2 of 5] x: hg', { index: 2, total: 5, numbered: true, summary: 'x: hg' }],
    ['[Patch 2/2]: x: colon', { index: 2, summary: 'x: colon' }],
    ['[net,v2,1/2] net: commas', { version: 2, index: 1, total: 2, prefixes: ['net'] }],
    ['[PATCH] x: y', { numbered: false, versioned: false }],
  ])('%s', (subject, want) => expect(parseSubject(subject)).toMatchObject(want));
});

let n = 0;
interface Opts { diff?: boolean; parent?: string; refs?: string[]; body?: string; id?: string | null; from?: [string, string]; sent?: boolean; date?: string }
function msg(subject: string, opts: Opts = {}): Message {
  const id = opts.id === null ? undefined : opts.id ?? `m${n++}@x`;
  const diff = opts.diff ?? !/\b0\/\d+\]/.test(subject);
  const [name, address] = opts.from ?? ['A', 'a@x.org'];
  return {
    messageId: id,
    inReplyTo: opts.parent,
    references: opts.refs ?? (opts.parent ? [opts.parent] : []),
    subject,
    from: { name, address },
    to: opts.sent === false ? [] : [{ name: 'L', address: 'list@vger.kernel.org' }],
    cc: [],
    date: opts.date ? new Date(opts.date) : undefined,
    body: `${opts.body ?? `text\n\nSigned-off-by: ${name} <${address}>`}\n${diff ? '---\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n' : ''}`,
    raw: '',
  };
}
const R: [string, string] = ['R', 'r@x.org'];
const kinds = (s: { problems: { kind: string }[] }) => s.problems.map((p) => p.kind);
const subjects = (s: { patches: { message: Message }[] }) => s.patches.map((p) => p.message.subject);

describe('the series in a mailbox', () => {
  test('cover letter, patches in order whatever the mailbox order, base-commit, threading ok', () => {
    const cover = msg('[PATCH v2 0/3] mm: Three', { id: 'c@x', body: 'blurb\n\nbase-commit: 0123456789abcdef0123456789abcdef01234567' });
    const p = [3, 1, 2].map((i) => msg(`[PATCH v2 ${i}/3] mm: Part ${i}`, { parent: 'c@x' }));
    const s = identifySeries([p[0]!, cover, p[1]!, p[2]!]);
    expect(s).toMatchObject({ subject: 'mm: Three', version: 2, total: 3, baseCommit: '0123456789abcdef0123456789abcdef01234567', problems: [] });
    expect(s.patches.map((x) => x.index)).toEqual([1, 2, 3]);
    expect(s.cover?.messageId).toBe('c@x');
  });

  test('a series on top of another: the prerequisite patches (git format-patch --base) and where they were sent (b4)', () => {
    const ids = ['1111111111111111111111111111111111111111', '2222222222222222222222222222222222222222'];
    const body = `blurb\n\nbase-commit: 0123456789abcdef0123456789abcdef01234567\n${ids.map((i) => `prerequisite-patch-id: ${i}`).join('\n')}\nprerequisite-message-id: <fix-0@x>`;
    const s = identifySeries([msg('[PATCH 0/1] a: on top', { id: 'c3@x', body }), msg('[PATCH 1/1] a: one', { parent: 'c3@x' })]);
    expect(s.prerequisites).toEqual({ patchIds: ids, messageIds: ['<fix-0@x>'] });
    expect(identifySeries([msg('[PATCH] a: alone')]).prerequisites).toBeUndefined();
  });

  test('a part sent twice in the thread: the later copy, said once', () => {
    const s = identifySeries([msg('[PATCH 0/3] a: b', { id: 'c2@x' }), msg('[PATCH 1/3] a: one', { parent: 'c2@x' }), msg('[PATCH 1/3] a: one again', { parent: 'c2@x' }), msg('[PATCH 2/3] a: two', { parent: 'c2@x' }), msg('[PATCH 3/3] a: three', { parent: 'c2@x' })]);
    expect(s.problems.map((p) => [p.kind, p.message])).toEqual([['part-duplicate', 'patch 1/3 is in the mailbox twice; the later copy is used']]);
    expect(subjects(s)).toEqual(['[PATCH 1/3] a: one again', '[PATCH 2/3] a: two', '[PATCH 3/3] a: three']);
  });

  test('a lone [PATCH 1/5]: one patch reviewed, one note for the four absent', () => {
    const s = identifySeries([msg('[PATCH 1/5] a: one')]);
    expect(s.patches.map((p) => p.index)).toEqual([1]);
    expect(s.problems).toEqual([{ kind: 'part-missing', severity: 'warning', message: '4 of 5 parts are not in the mailbox (2/5, 3/5, 4/5, 5/5); the others are reviewed' }]);
  });

  test('an extra part [PATCH 3/2] belongs to the series, and is said', () => {
    const s = identifySeries([msg('[PATCH 0/2] a: b', { id: 'c6@x' }), msg('[PATCH 1/2] a: one', { parent: 'c6@x' }), msg('[PATCH 2/2] a: two', { parent: 'c6@x' }), msg('[PATCH 3/2] a: three', { parent: 'c6@x' })]);
    expect(s.patches.map((p) => p.index)).toEqual([1, 2, 3]);
    expect(s.total).toBe(3);
    expect(kinds(s)).toEqual(['part-extra']);
  });

  test('unnumbered [PATCH] mails in one mailbox are one series in mailbox order (format-patch one commit at a time)', () => {
    const s = identifySeries([msg('[PATCH] a: first', { sent: false }), msg('[PATCH] b: second', { sent: false }), msg('[PATCH] c: third', { sent: false })]);
    expect(subjects(s)).toEqual(['[PATCH] a: first', '[PATCH] b: second', '[PATCH] c: third']);
    expect(s.patches.map((p) => p.index)).toEqual([1, 2, 3]);
    expect(s.problems).toEqual([]);
  });

  test('an unnumbered patch sent again with the same subject is a resend: the newer is reviewed', () => {
    const s = identifySeries([msg('[PATCH] a: fix', { date: '2026-01-01' }), msg('[PATCH] a: fix', { date: '2026-01-02', body: 'newer\n\nSigned-off-by: A <a@x.org>' })]);
    expect(s.patches).toHaveLength(1);
    expect(s.patches[0]!.message.body).toMatch(/^newer/);
    expect(kinds(s)).toEqual(['resent']);
  });

  test('hg email numbering, [Patch 2/2]:, PATCHv3', () => {
    const s = identifySeries([msg('[PATCH 0 of 2] a: b', { id: 'h@x', diff: false }), msg('[PATCH 1 of 2] a: one', { parent: 'h@x' }), msg('[Patch 2/2]: a: two', { parent: 'h@x' })]);
    expect(s.patches.map((p) => [p.index, p.subject.summary])).toEqual([[1, 'a: one'], [2, 'a: two']]);
    expect(s.cover?.messageId).toBe('h@x');
    expect(parseSubject('[PATCHv3 2/5] x: y')).toMatchObject({ version: 3, versioned: true, index: 2, total: 5, patch: true });
  });

  test('a cover letter naming a version its patches lack is one series of that version', () => {
    const s = identifySeries([msg('[PATCH net-next v3 0/4] net: Four', { id: 'nv@x' }), ...[1, 2, 3, 4].map((i) => msg(`[PATCH ${i}/4] net: part ${i}`, { parent: 'nv@x' }))]);
    expect(s).toMatchObject({ version: 3, total: 4, prefixes: ['net-next'] });
    expect(s.patches).toHaveLength(4);
    expect(s.problems).toEqual([]);
  });

  test('a naked cover letter (no 0/n) that the patches answer is the cover letter', () => {
    const s = identifySeries([msg('mm: A series without numbers in its cover', { id: 'nk@x', diff: false, body: 'Why.\n\n a/f | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)' }), msg('[PATCH 1/2] mm: one', { parent: 'nk@x' }), msg('[PATCH 2/2] mm: two', { parent: 'nk@x' })]);
    expect(s.cover?.messageId).toBe('nk@x');
    expect(s.problems).toEqual([]);
  });

  test('someone else\'s bug report the patch answers is no cover letter', () => {
    const s = identifySeries([msg('mm: it crashes', { id: 'bug@x', diff: false, from: ['Reporter', 'rep@x.org'], body: 'Oops at boot.' }), msg('[PATCH] mm: fix the crash', { parent: 'bug@x' })]);
    expect(s.cover).toBeUndefined();
    expect(s.patches).toHaveLength(1);
  });

  test('labelled versions: the newest by default, -v picks another, the others are named', () => {
    const mbox = [msg('[PATCH 1/1] a: old'), msg('[PATCH v2 1/1] a: new')];
    const s = identifySeries(mbox);
    expect(subjects(s)).toEqual(['[PATCH v2 1/1] a: new']);
    expect(s.problems.map((p) => [p.kind, p.severity, p.message])).toEqual([['other-versions', 'note', 'the mailbox also holds v1 (1 patch); reviewing v2 (1 patch) (-v N picks another)']]);
    expect(subjects(identifySeries(mbox, { version: 1 }))).toEqual(['[PATCH 1/1] a: old']);
    expect(() => identifySeries(mbox, { version: 3 })).toThrow(/^-v 3: the mailbox holds v2 \(1 patch\), v1 \(1 patch\)$/);
  });

  test('unlabelled revisions (a resend threaded under the first) are two series, not duplicate parts', () => {
    const v1 = [msg('[PATCH 1/2] a: one', { id: 'u1@x', date: '2026-01-01' }), msg('[PATCH 2/2] a: two', { parent: 'u1@x', date: '2026-01-01' })];
    const v1b = [msg('[PATCH 1/2] a: one', { id: 'u2@x', parent: 'u1@x', date: '2026-01-05', body: 'again\n\nSigned-off-by: A <a@x.org>' }), msg('[PATCH 2/2] a: two', { parent: 'u2@x', refs: ['u1@x', 'u2@x'], date: '2026-01-05', body: 'again\n\nSigned-off-by: A <a@x.org>' })];
    const s = identifySeries([...v1, ...v1b]);
    expect(s.patches.map((p) => p.message.body.slice(0, 5))).toEqual(['again', 'again']);
    expect(s.problems.map((p) => [p.kind, p.message])).toEqual([['resent', 'v1 was sent 2 times (2026-01-01 00:00: 2 patches; 2026-01-05 00:00: 2 patches); reviewing the newest, copy 2 of 2 (--copy N picks another, 1 the oldest)']]);
  });

  test('a resend of the same version that lacks a part: the part is taken from the earlier copy, said with its date', () => {
    const first = [msg('[PATCH 1/2] a: one', { id: 'q1@x', date: '2026-03-01T08:00:00Z' }), msg('[PATCH 2/2] a: two', { parent: 'q1@x', date: '2026-03-01T08:00:00Z' })];
    const again = msg('[PATCH 2/2] a: two', { date: '2026-03-04T08:00:00Z', body: 'again\n\nSigned-off-by: A <a@x.org>' });
    const s = identifySeries([...first, again]);
    expect(s.patches.map((p) => p.message.body.slice(0, 5))).toEqual(['text\n', 'again']);
    expect(s.problems.find((p) => p.kind === 'partial-reroll')?.message).toBe('v1 as sent 2026-03-04 08:00 resends only 2/2: 1/2 taken from the copy of v1 sent 2026-03-01 08:00, as b4 does');
  });

  test("an unnumbered patch sent into a series' thread (patchwork's orphan) is named, and the series reviewed", () => {
    const series = [msg('[PATCH 0/2] a: two', { id: 'o0@x', date: '2026-04-01' }), msg('[PATCH 1/2] a: one', { id: 'o1@x', parent: 'o0@x', date: '2026-04-01' }), msg('[PATCH 2/2] a: two', { parent: 'o0@x', date: '2026-04-01' })];
    const orphan = msg('[PATCH] a: fix up one', { parent: 'o1@x', date: '2026-04-02' });
    const s = identifySeries([...series, orphan]);
    expect(s.cover?.messageId).toBe('o0@x');
    expect(subjects(s)).toEqual(['[PATCH 1/2] a: one', '[PATCH 2/2] a: two']);
    expect(s.problems.map((p) => [p.kind, p.message])).toEqual([['orphan-patch', '"[PATCH] a: fix up one" answers the series\' thread but is no numbered part of it (patchwork keeps it apart too); not reviewed with the series: save it on its own to review it']]);
    // A new version answering the old thread is no orphan: it is reviewed.
    const v2 = msg('[PATCH v2] a: all in one', { parent: 'o0@x', date: '2026-04-03' });
    expect(subjects(identifySeries([...series, v2]))).toEqual(['[PATCH v2] a: all in one']);
  });

  test('the same version sent three times: the newest by date, whatever the mailbox order; --copy picks another', () => {
    const sent = (day: string, word: string) => msg('[PATCH] a: fix', { date: `2026-02-${day}T09:30:00Z`, body: `${word}\n\nSigned-off-by: A <a@x.org>` });
    const mbox = [sent('03', 'third'), sent('01', 'first'), sent('02', 'second')];
    const s = identifySeries(mbox);
    expect(s.patches[0]!.message.body).toMatch(/^third/);
    expect(s.problems.map((p) => [p.kind, p.message])).toEqual([['resent', 'v1 was sent 3 times (2026-02-01 09:30: 1 patch; 2026-02-02 09:30: 1 patch; 2026-02-03 09:30: 1 patch); reviewing the newest, copy 3 of 3 (--copy N picks another, 1 the oldest)']]);
    const oldest = identifySeries(mbox, { copy: 1 });
    expect(oldest.patches[0]!.message.body).toMatch(/^first/);
    expect(oldest.problems[0]!.message).toContain('reviewing the oldest, copy 1 of 3');
    expect(() => identifySeries(mbox, { copy: 4 })).toThrow(/^--copy 4: v1 was sent 3 times$/);
  });

  test('a partial reroll (v3 resends only 2/2) is completed from v2, as b4 does', () => {
    const v2 = [msg('[PATCH v2 0/2] a: b', { id: 'r0@x' }), msg('[PATCH v2 1/2] a: one', { parent: 'r0@x' }), msg('[PATCH v2 2/2] a: two', { id: 'r2@x', parent: 'r0@x' })];
    const s = identifySeries([...v2, msg('[PATCH v3 2/2] a: two, fixed', { parent: 'r2@x', refs: ['r0@x', 'r2@x'] })]);
    expect(s.version).toBe(3);
    expect(subjects(s)).toEqual(['[PATCH v2 1/2] a: one', '[PATCH v3 2/2] a: two, fixed']);
    expect(s.patches.map((p) => p.from)).toEqual([2, undefined]);
    expect(s.cover?.messageId).toBe('r0@x');
    expect(s.problems.find((p) => p.kind === 'partial-reroll')?.message).toBe('v3 resends only 2/2: the cover letter, 1/2 taken from v2, as b4 does');
  });

  test('patches that do not answer the cover letter break the thread; a format-patch folder (never sent) has none', () => {
    const s = identifySeries([msg('[PATCH 0/2] a: b', { id: 'c3@x' }), msg('[PATCH 1/2] a: one', { parent: 'c3@x' }), msg('[PATCH 2/2] a: two')]);
    expect(s.problems.map((p) => [p.kind, p.message.split(' does not')[0]])).toEqual([['not-threaded', 'patch 2']]);
    const folder = identifySeries([msg('[PATCH 0/2] a: b', { sent: false }), msg('[PATCH 1/2] a: one', { sent: false }), msg('[PATCH 2/2] a: two', { sent: false })]);
    expect(folder.problems).toEqual([]);
    expect(folder.cover).toBeDefined();
  });

  test('deep threading (each patch answers the one before) is a thread too', () => {
    const s = identifySeries([msg('[PATCH 0/2] a: b', { id: 'c4@x' }), msg('[PATCH 1/2] a: one', { id: 'p1@x', parent: 'c4@x' }), msg('[PATCH 2/2] a: two', { parent: 'p1@x', refs: ['c4@x', 'p1@x'] })]);
    expect(s.problems).toEqual([]);
  });

  test('a reply carrying a diff is a reply, not a replacement for the patch', () => {
    const s = identifySeries([msg('[PATCH 1/1] a: one', { id: 'o1@x' }), msg('Re: [PATCH 1/1] a: one', { parent: 'o1@x', from: R, body: 'Try this instead:' })]);
    expect(subjects(s)).toEqual(['[PATCH 1/1] a: one']);
    expect(s.replies).toBe(1);
    expect(s.problems).toEqual([]);
  });

  test('the parent of a reply is its In-Reply-To, whatever order References lists', () => {
    const s = identifySeries([
      msg('[PATCH 0/2] a: b', { id: 'c7@x' }),
      msg('[PATCH 1/2] a: one', { id: 'x1@x', parent: 'c7@x' }),
      msg('[PATCH 2/2] a: two', { id: 'x2@x', parent: 'c7@x' }),
      msg('Re: [PATCH 2/2] a: two', { diff: false, from: R, parent: 'x2@x', refs: ['x2@x', 'x1@x', 'c7@x'], body: 'Reviewed-by: R <r@x.org>' }),
    ]);
    expect(s.patches.map((p) => p.trailers)).toEqual([[], ['Reviewed-by: R <r@x.org>']]);
  });

  test('trailers from replies go to their patch; to the cover letter, to every patch (as b4 am does)', () => {
    const s = identifySeries([
      msg('[PATCH 0/2] a: b', { id: 'c5@x' }),
      msg('[PATCH 1/2] a: one', { id: 'q1@x', parent: 'c5@x' }),
      msg('[PATCH 2/2] a: two', { id: 'q2@x', parent: 'c5@x' }),
      msg('Re: [PATCH 1/2] a: one', { diff: false, from: R, parent: 'q1@x', refs: ['c5@x', 'q1@x'], body: '> Reviewed-by: Quoted <q@x.org>\nLooks right.\n\nReviewed-by: R <r@x.org>\n' }),
      msg('Re: [PATCH 0/2] a: b', { diff: false, from: ['M', 'm+lkml@x.org'], parent: 'c5@x', body: 'For the series:\nAcked-by: M <m@x.org>\n-- \nTested-by: Sig <s@x.org>\n' }),
      msg('Re: Re: [PATCH 1/2] a: one', { diff: false, from: ['T', 't@lab.x.org'], parent: 'reply-of-reply@x', refs: ['c5@x', 'q1@x', 'reply-of-reply@x'], body: 'Tested-by: T <t@x.org>' }),
    ]);
    expect(s.patches.map((p) => p.trailers)).toEqual([['Reviewed-by: R <r@x.org>', 'Acked-by: M <m@x.org>', 'Tested-by: T <t@x.org>'], ['Acked-by: M <m@x.org>']]);
    expect(s.replies).toBe(3);
  });

  test('a trailer naming someone other than its sender is named, not added; HTML mailers\' links are cleaned', () => {
    const s = identifySeries([
      msg('[PATCH] a: one', { id: 's1@x' }),
      msg('Re: [PATCH] a: one', { diff: false, from: R, parent: 's1@x', body: 'Acked-by: Boss <boss@x.org>\nReviewed-by: R <r@x.org<mailto:r@x.org>>' }),
    ]);
    expect(s.patches[0]!.trailers).toEqual(['Reviewed-by: R <r@x.org>']);
    expect(s.problems.map((p) => [p.kind, p.severity, p.message])).toEqual([['trailer-not-sender', 'note', '"Acked-by: Boss <boss@x.org>" in a reply from R <r@x.org> names someone else; not added (b4 am does the same)']]);
  });

  test('a reply restating trailers the patch already carries is neither a mismatch nor an addition (b4)', () => {
    const s = identifySeries([
      msg('[PATCH] a: one', { id: 'k1@x', body: 'text\n\nSuggested-by: Idea <idea@x.org>\nSigned-off-by: A <a@x.org>' }),
      msg('Re: [PATCH] a: one', { diff: false, from: R, parent: 'k1@x', body: 'Applied, thanks:\n\n    Suggested-by: Idea <idea@x.org>\n    Signed-off-by: A <a@x.org>\n\nTested-by: Other <o@x.org>\n' }),
    ]);
    expect(s.patches[0]!.trailers).toEqual([]);
    expect(s.problems.map((p) => p.message)).toEqual(['"Tested-by: Other <o@x.org>" in a reply from R <r@x.org> names someone else; not added (b4 am does the same)']);
  });

  test('a review of v1 counts for the v2 patch with the same diff, not for one whose diff changed (b4, by patch-id)', () => {
    const to = (line: string) => (m: Message) => ({ ...m, body: m.body.replace('+b', line) });
    const mbox = [
      msg('[PATCH 0/2] a: b', { id: 'w0@x' }),
      msg('[PATCH 1/2] a: one', { id: 'w1@x', parent: 'w0@x' }),
      to('+d')(msg('[PATCH 2/2] a: two', { id: 'w2@x', parent: 'w0@x' })),
      msg('Re: [PATCH 1/2] a: one', { diff: false, from: R, parent: 'w1@x', body: 'Reviewed-by: R <r@x.org>' }),
      msg('Re: [PATCH 2/2] a: two', { diff: false, from: R, parent: 'w2@x', body: 'Acked-by: R <r@x.org>' }),
      msg('[PATCH v2 0/2] a: b', { id: 'y0@x', body: 'v2: reworded 1/2, fixed 2/2' }),
      msg('[PATCH v2 1/2] a: one, reworded', { parent: 'y0@x', body: 'Better words.\n\nSigned-off-by: A <a@x.org>' }),
      to('+c')(msg('[PATCH v2 2/2] a: two', { parent: 'y0@x' })),
    ];
    const s = identifySeries(mbox);
    expect(s.version).toBe(2);
    expect(s.patches.map((p) => p.trailers)).toEqual([['Reviewed-by: R <r@x.org>'], []]);
  });

  test('a reply that kept the patch\'s subject (no Re:) is a reply when it gives trailers', () => {
    const s = identifySeries([msg('[PATCH] a: one', { id: 'k1@x' }), msg('[PATCH] a: one', { diff: false, from: R, parent: 'k1@x', body: 'Reviewed-by: R <r@x.org>' })]);
    expect(s.patches[0]!.trailers).toEqual(['Reviewed-by: R <r@x.org>']);
    expect(s.problems).toEqual([]);
  });

  test('a message without a Message-ID is read; nothing is made up for it', () => {
    const s = identifySeries([msg('[PATCH] a: one', { id: null })]);
    expect(s.patches[0]!.message.messageId).toBeUndefined();
  });
});

test('trailers: only a reply\'s own lines, with an address, keys in canonical case', () => {
  expect(trailersOf('> Acked-by: X <x@y.org>\nreviewed-BY: Z <z@y.org>\nReviewed-by: no address\n')).toEqual(['Reviewed-by: Z <z@y.org>']);
});

test('added trailers go at the end of the commit message, before ---, once', () => {
  const body = 'Text.\n\nSigned-off-by: A <a@x.org>\n---\n f | 2 +-\n';
  expect(addTrailers(body, ['Reviewed-by: R <r@x.org>', 'Signed-off-by: A <a@x.org>'])).toBe('Text.\n\nSigned-off-by: A <a@x.org>\nReviewed-by: R <r@x.org>\n---\n f | 2 +-\n');
});
