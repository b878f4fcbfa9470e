// "Posted already": our patch against a tiny archive made here with git — found by patch-id, by its lines, by
// subject for the same files, and said applied only when a reply applies that patch; a change wrapped otherwise,
// and a patch of which one file's change was posted.
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
/** A conversion of a call over two lines, the new call wrapped as `to` says. */
const wrapped = (file: string, to: [string, string], at: number) =>
  `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -${at},4 +${at},4 @@ void g(void)\n ctx\n-\tpr_info("%s: mode %s\\n", __func__, on ?\n-\t\t"on" : "off");\n+${to[0]}\n+${to[1]}\n ctx\n`;
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
  add(mail('c@x', '[PATCH] qux: Use str_on_off() helper', `Why.\n---\n${wrapped('drivers/qux.c', ['\tpr_info("%s: mode %s\\n", __func__,', '\t\tstr_on_off(on));'], 10)}`));
  add(mail('d@x', '[PATCH] p1: Tidy', `Why.\n---\n${diff('drivers/p1.c', '\tx = 1;', '\tx = 2;')}`));
  // A v1, its v2 in a thread of its own, applied there in rtw.git's words.
  add(mail('e@x', '[PATCH] rx: Use baz()', `Why.\n---\n${diff('drivers/rx.c', '\tr = 0;', '\tr = baz();')}`));
  add(mail('f@x', '[PATCH v2] rx: Use baz()', `Why, better said.\n---\n${diff('drivers/rx.c', '\tr = 0;', '\tr = baz();')}`));
  add(mail('rf@x', 'RE: [PATCH v2] rx: Use baz()', 'A Poster wrote:\n\n1 patch(es) applied to rx-next branch of rx.git, thanks.\n\n0123456789ab rx: Use baz()\n', 'f@x'));
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
  const more = await alreadyPosted(dir, epochs, mails, [
    // The same conversion with its lines broken elsewhere (linux-wireless, 2025: brcmsmac's, posted as a spatch run
    // would make it, with the call's first line kept).
    { summary: 'use str_on_off()', files: ['drivers/qux.c'], diff: wrapped('drivers/qux.c', ['\tpr_info("%s: mode %s\\n",', '\t\t__func__, str_on_off(on));'], 20) },
    // Two files, one of them posted: that file named alone.
    { summary: 'tidy up', files: ['drivers/p1.c', 'drivers/p2.c'], diff: diff('drivers/p1.c', '\tx = 1;', '\tx = 2;', 7) + diff('drivers/p2.c', '\ty = 1;', '\ty = 2;') },
  ]);
  expect(more.map((f) => [f.patch, f.by, f.messageId, f.files])).toEqual([
    [1, 'lines', 'c@x', undefined],
    [2, 'lines', 'd@x', ['drivers/p1.c']],
  ]);
  // The first posting named; applied as its v2.
  const rx = await alreadyPosted(dir, epochs, mails, [{ summary: 'use baz()', files: ['drivers/rx.c'], diff: diff('drivers/rx.c', '\tr = 0;', '\tr = baz();', 5) }]);
  expect(rx.map((f) => [f.messageId, f.applied?.messageId])).toEqual([['e@x', 'rf@x']]);
  expect(mails.find((m) => m.messageId === 'rf@x')?.applied).toBe(true);
});
