// "Posted already": our patch against a tiny archive made here with git — found by patch-id, by its lines, by
// subject for the same files, and said applied only when a reply applies that patch.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { indexEpoch, inboxEpochs } from '../../src/mail/inbox.js';
import { alreadyPosted, summaryOf } from '../../src/mail/posted.js';

let dir: string;
const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.org', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.org' };
const diff = (file: string, from: string, to: string, at = 1) => `diff --git a/${file} b/${file}\nindex 1111111..2222222 100644\n--- a/${file}\n+++ b/${file}\n@@ -${at},3 +${at},3 @@ int f(void)\n ctx\n-${from}\n+${to}\n ctx\n`;
const mail = (id: string, subject: string, body: string, parent?: string) => `From: Poster <poster@example.org>\nSubject: ${subject}\nDate: Tue, 2 Jul 2024 10:00:00 +0000\nMessage-Id: <${id}>\n${parent ? `In-Reply-To: <${parent}>\nReferences: <${parent}>\n` : ''}\n${body}`;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-posted-'));
  const work = path.join(dir, 'work');
  fs.mkdirSync(work);
  const git = (...a: string[]) => execFileSync('git', a, { cwd: work, env });
  git('init', '-q');
  const add = (text: string) => {
    fs.writeFileSync(path.join(work, 'm'), text);
    git('add', 'm');
    git('commit', '-q', '-m', 'm');
  };
  add(mail('a@x', '[PATCH] foo: Use bar()', `Why.\n---\n${diff('drivers/foo.c', '\ta = b ? 1 : 0;', '\ta = bar(b);', 40)}-- \n2.39.5\n`));
  add(mail('ra@x', 'Re: [PATCH] foo: Use bar()', '> quoted\n\nApplied to foo-next, thanks!\n', 'a@x'));
  add(mail('b@x', '[PATCH] baz: Tidy', `Why.\n---\n${diff('drivers/baz.c', 'x', 'y')}`));
  add(mail('rb@x', 'Re: [PATCH] baz: Tidy', '> Applied, thanks\nNot yet: what about qux?\n', 'b@x'));
  execFileSync('git', ['clone', '-q', '--mirror', work, path.join(dir, 'list.git')]);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('found by the same change wherever it sits, by the same lines, or by subject for the same files; applied only when said', async () => {
  const epochs = inboxEpochs(path.join(dir, 'list.git'));
  const { mails } = await indexEpoch(epochs[0]!);
  const found = await alreadyPosted(dir, epochs, mails, [
    // The same change at another line, under another prefix.
    { summary: summaryOf('[PATCH v2 3/5] drivers: foo: Use bar()'), files: ['drivers/foo.c'], diff: diff('drivers/foo.c', '\ta = b ? 1 : 0;', '\ta = bar(b);', 90) },
    // Another change to baz.c under the same summary.
    { summary: summaryOf('[PATCH] baz: Tidy'), files: ['drivers/baz.c'], diff: diff('drivers/baz.c', 'x', 'z') },
    // A file nobody posted.
    { summary: 'tidy', files: ['drivers/other.c'], diff: diff('drivers/other.c', 'x', 'y') },
  ]);
  expect(found.map((f) => [f.patch, f.by, f.messageId, f.applied?.messageId])).toEqual([
    [1, 'patch-id', 'a@x', 'ra@x'],
    // A quoted "Applied" is the author's own words quoted back, not the maintainer's.
    [2, 'subject', 'b@x', undefined],
  ]);
  expect(summaryOf('[PATCH net-next v3 2/7] wifi: rtw89: Use str_on_off()')).toBe('use str_on_off()');
});
