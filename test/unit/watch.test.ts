// The review bot's notion of a series to review: a thread whose newest version has every part (review/watch.ts).
import { expect, test } from 'vitest';
import type { IndexedMail } from '../../src/mail/inbox.js';
import { completeSeries } from '../../src/review/watch.js';

let n = 0;
const mail = (id: string, subject: string, diff: boolean, parent?: string): IndexedMail => ({ epoch: 'l/0', commit: `c${n++}`, messageId: id, ...(parent ? { inReplyTo: parent } : {}), references: parent ? [parent] : [], subject, from: 'A <a@x>', diff });

test('a thread is a series to review once every part of its newest version is there; a v2 in it makes a new key', () => {
  const v1 = [mail('c1', '[PATCH 0/2] foo: Tidy', false), mail('p1', '[PATCH 1/2] foo: One', true, 'c1')];
  expect(completeSeries(v1)).toEqual([]);
  const complete = [...v1, mail('p2', '[PATCH 2/2] foo: Two', true, 'c1'), mail('r1', 'Re: [PATCH 1/2] foo: One', false, 'p1')];
  expect(completeSeries(complete).map((s) => [s.key, s.subject, s.version, s.thread.length])).toEqual([['c1#v1', 'foo: Tidy', 1, 4]]);
  // A v2 sent into the thread: the series is its newest version, all of whose parts are needed.
  const v2 = [...complete, mail('v2c', '[PATCH v2 0/1] foo: Tidy', false, 'c1'), mail('v2p', '[PATCH v2 1/1] foo: One and two', true, 'v2c')];
  expect(completeSeries(v2).map((s) => s.key)).toEqual(['c1#v2']);
  // A single patch, and a thread of talk with no patch.
  expect(completeSeries([mail('s', '[PATCH net] bar: Fix', true), mail('q', 'a question', false)]).map((s) => s.key)).toEqual(['s#v1']);
  // A diff only in a reply is no series.
  expect(completeSeries([mail('t', 'RFC: idea', false), mail('u', 'Re: RFC: idea', true, 't')])).toEqual([]);
});
