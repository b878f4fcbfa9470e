// Identifying a series in a mailbox: subjects, numbering, versions, missing and doubled parts, threading, trailers.
import { describe, expect, test } from 'vitest';
import type { Message } from '../../src/mail/mailbox.js';
import { identifySeries } from '../../src/review/intake.js';
import { parseSubject } from '../../src/review/subject.js';
import { addTrailers, trailersOf } from '../../src/review/trailers.js';

describe('subjects', () => {
  test.each([
    ['[PATCH] mm: Fix it', { summary: 'mm: Fix it', patch: true, version: 1, index: 1, total: 1, rfc: false, resend: false, prefixes: [], reply: false }],
    ['[PATCH v3 2/7] mm: Fix it', { version: 3, index: 2, total: 7 }],
    ['[RFC PATCH net-next v2 0/4] net: A cover', { rfc: true, prefixes: ['net-next'], version: 2, index: 0, total: 4, summary: 'net: A cover' }],
    ['[PATCH RESEND 1/2] x: y', { resend: true, index: 1, total: 2 }],
    ['[net-next][PATCH v2 1/3] net: Foo', { prefixes: ['net-next'], version: 2, index: 1, total: 3, summary: 'net: Foo' }],
    ['Re: [PATCH v2 1/3] net: Foo', { reply: true, index: 1 }],
    ['RE: Re: [PATCH 1/3] net: Foo', { reply: true }],
    ['[PATCH 1/3] Re: net: Foo', { reply: true }],
    ['[PATCH 6.12.y 3/5] mm: Backport', { prefixes: ['6.12.y'], index: 3, total: 5 }],
  ])('%s', (subject, want) => expect(parseSubject(subject)).toMatchObject(want));
});

let n = 0;
function msg(subject: string, opts: { diff?: boolean; parent?: string; refs?: string[]; body?: string; id?: string } = {}): Message {
  const id = opts.id ?? `m${n++}@x`;
  const diff = opts.diff ?? !/\b0\/\d+\]/.test(subject);
  return {
    messageId: id,
    inReplyTo: opts.parent,
    references: opts.refs ?? (opts.parent ? [opts.parent] : []),
    subject,
    from: { name: 'A', address: 'a@x.org' },
    to: [],
    cc: [],
    body: `${opts.body ?? 'text\n\nSigned-off-by: A <a@x.org>'}\n${diff ? '---\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n' : ''}`,
    raw: '',
  };
}

describe('the series in a mailbox', () => {
  test('cover letter, patches in order whatever the mailbox order, base-commit, threading ok', () => {
    const cover = msg('[PATCH v2 0/3] mm: Three', { id: 'c@x', body: 'blurb\n\nbase-commit: 0123456789abcdef0123456789abcdef01234567' });
    const p = [3, 1, 2].map((i) => msg(`[PATCH v2 ${i}/3] mm: Part ${i}`, { parent: 'c@x' }));
    const s = identifySeries([p[0]!, cover, p[1]!, p[2]!]);
    expect(s).toMatchObject({ subject: 'mm: Three', version: 2, total: 3, baseCommit: '0123456789abcdef0123456789abcdef01234567', problems: [] });
    expect(s.patches.map((x) => x.index)).toEqual([1, 2, 3]);
    expect(s.cover?.messageId).toBe('c@x');
  });

  test('a missing part and a doubled part are named', () => {
    const s = identifySeries([msg('[PATCH 0/3] a: b', { id: 'c2@x' }), msg('[PATCH 1/3] a: one', { parent: 'c2@x' }), msg('[PATCH 1/3] a: one again', { parent: 'c2@x' }), msg('[PATCH 3/3] a: three', { parent: 'c2@x' })]);
    expect(s.problems.map((p) => [p.kind, p.message])).toEqual([
      ['part-duplicate', 'patch 1/3 is in the mailbox twice; the last copy is used'],
      ['part-missing', 'patch 2/3 is not in the mailbox'],
    ]);
    expect(s.patches.map((p) => p.message.subject)).toEqual(['[PATCH 1/3] a: one again', '[PATCH 3/3] a: three']);
  });

  test('an older version in the same mailbox is left out, and said', () => {
    const s = identifySeries([msg('[PATCH 1/1] a: old'), msg('[PATCH v2 1/1] a: new')]);
    expect(s.patches.map((p) => p.message.subject)).toEqual(['[PATCH v2 1/1] a: new']);
    expect(s.problems.map((p) => p.kind)).toEqual(['older-version']);
  });

  test('patches that do not answer the cover letter break the thread', () => {
    const s = identifySeries([msg('[PATCH 0/2] a: b', { id: 'c3@x' }), msg('[PATCH 1/2] a: one', { parent: 'c3@x' }), msg('[PATCH 2/2] a: two')]);
    expect(s.problems.map((p) => [p.kind, p.message.split(' does not')[0]])).toEqual([['not-threaded', 'patch 2']]);
  });

  test('deep threading (each patch answers the one before) is a thread too', () => {
    const s = identifySeries([msg('[PATCH 0/2] a: b', { id: 'c4@x' }), msg('[PATCH 1/2] a: one', { id: 'p1@x', parent: 'c4@x' }), msg('[PATCH 2/2] a: two', { parent: 'p1@x', refs: ['c4@x', 'p1@x'] })]);
    expect(s.problems).toEqual([]);
  });

  test('trailers from replies go to their patch; to the cover letter, to every patch (as b4 am does)', () => {
    const s = identifySeries([
      msg('[PATCH 0/2] a: b', { id: 'c5@x' }),
      msg('[PATCH 1/2] a: one', { id: 'q1@x', parent: 'c5@x' }),
      msg('[PATCH 2/2] a: two', { id: 'q2@x', parent: 'c5@x' }),
      msg('Re: [PATCH 1/2] a: one', { diff: false, parent: 'q1@x', refs: ['c5@x', 'q1@x'], body: '> Reviewed-by: Quoted <q@x.org>\nLooks right.\n\nReviewed-by: R <r@x.org>\n' }),
      msg('Re: [PATCH 0/2] a: b', { diff: false, parent: 'c5@x', body: 'For the series:\nAcked-by: M <m@x.org>\n-- \nTested-by: Sig <s@x.org>\n' }),
      msg('Re: Re: [PATCH 1/2] a: one', { diff: false, parent: 'reply-of-reply@x', refs: ['c5@x', 'q1@x', 'reply-of-reply@x'], body: 'Tested-by: T <t@x.org>' }),
    ]);
    expect(s.patches.map((p) => p.trailers)).toEqual([['Reviewed-by: R <r@x.org>', 'Acked-by: M <m@x.org>', 'Tested-by: T <t@x.org>'], ['Acked-by: M <m@x.org>']]);
    expect(s.replies).toBe(3);
  });
});

test('trailers: only a reply\'s own lines, with an address, keys in canonical case', () => {
  expect(trailersOf('> Acked-by: X <x@y.org>\nreviewed-BY: Z <z@y.org>\nReviewed-by: no address\n')).toEqual(['Reviewed-by: Z <z@y.org>']);
});

test('added trailers go at the end of the commit message, before ---, once', () => {
  const body = 'Text.\n\nSigned-off-by: A <a@x.org>\n---\n f | 2 +-\n';
  expect(addTrailers(body, ['Reviewed-by: R <r@x.org>', 'Signed-off-by: A <a@x.org>'])).toBe('Text.\n\nSigned-off-by: A <a@x.org>\nReviewed-by: R <r@x.org>\n---\n f | 2 +-\n');
});
