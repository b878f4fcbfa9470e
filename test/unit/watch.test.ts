// The review bot's notion of a series to review: a thread whose newest version has every part (review/watch.ts);
// and a bot that meets another kseries run holding the tree waits for it, the series reviewed once.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { LockedError } from '../../src/errors.js';
import type { IndexedMail } from '../../src/mail/inbox.js';
import { completeSeries, watchCycle } from '../../src/review/watch.js';

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

test('another kseries run holding the tree: the bot waits for it, says so once, and reviews the series once', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-watch-'));
  try {
    const work = path.join(dir, 'work');
    fs.mkdirSync(work);
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.org', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.org' };
    execFileSync('git', ['init', '-q'], { cwd: work, env });
    fs.writeFileSync(path.join(work, 'm'), 'From: A <a@example.org>\nSubject: [PATCH] foo: Fix\nMessage-Id: <p@x>\nDate: Tue, 2 Jul 2024 10:00:00 +0000\n\nWhy.\n---\ndiff --git a/foo.c b/foo.c\n--- a/foo.c\n+++ b/foo.c\n@@ -1 +1 @@\n-a\n+b\n');
    execFileSync('git', ['add', 'm'], { cwd: work, env });
    execFileSync('git', ['commit', '-q', '-m', 'm'], { cwd: work, env });
    let calls = 0;
    const said: string[] = [];
    const r = await watchCycle({
      inboxes: [path.join(work, '.git')],
      stateDir: path.join(dir, 'state'),
      lockPoll: 10,
      log: (l) => said.push(l),
      review: async () => {
        if (++calls < 3) throw new LockedError('another kseries run (pid 1) holds the lock', 'wait');
        return { subject: 'foo: Fix', version: 1, verdict: 'clean', detail: 'out' };
      },
    });
    expect([calls, r.series.map((s) => s.key)]).toEqual([3, ['p@x#v1']]);
    expect(said.filter((l) => /waiting for it/.test(l))).toHaveLength(1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
