// List archives in public-inbox v2 form read from git: a tiny inbox made here with git (one message per commit as
// the blob m, a deletion commit without one, a commit whose m is no mail), indexed from headers, threaded.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { indexEpoch, indexMessage, inboxEpochs, readIndexed, repoKey, threadOf, type InboxEpoch } from '../../src/mail/inbox.js';

let dir: string;
let epoch: InboxEpoch;
const git = (...args: string[]) => execFileSync('git', args, { cwd: path.join(dir, 'work'), encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.org', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.org' } });

const mail = (id: string, subject: string, body: string, more = '') => `From: A U Thor <author@example.org>\nSubject: ${subject}\nDate: Mon, 1 Jul 2024 10:00:00 +0000\nMessage-Id: <${id}>\n${more}\n${body}`;
const PATCH = 'Why.\n\nSigned-off-by: A U Thor <author@example.org>\n---\ndiff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n';

/** Commit `text` as the blob m (or remove m: public-inbox's deletion), as public-inbox v2 writes each message. */
function add(text: string | undefined): void {
  if (text === undefined) git('rm', '-q', 'm');
  else fs.writeFileSync(path.join(dir, 'work', 'm'), text);
  if (text !== undefined) git('add', 'm');
  git('commit', '-q', '--allow-empty', '-m', 'm');
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-inbox-'));
  fs.mkdirSync(path.join(dir, 'work'));
  git('init', '-q');
  add(mail('cover@x', '[PATCH 0/2] foo: Tidy', 'Two patches.\n'));
  add(mail('p1@x', '[PATCH 1/2] foo: One', PATCH, 'In-Reply-To: <cover@x>\nReferences: <cover@x>\n'));
  add(mail('p2@x', '[PATCH 2/2] foo: =?UTF-8?q?Tw=C3=B6?=', PATCH, 'In-Reply-To: <cover@x>\nReferences: <cover@x>\n'));
  add(undefined);
  add('not a mail at all, no headers\n');
  add(mail('r1@x', 'Re: [PATCH 1/2] foo: One', 'Reviewed-by: R <r@example.org>\n', 'In-Reply-To: <p1@x>\nReferences:\n <cover@x>\n <p1@x>\n'));
  add(mail('other@x', '[PATCH] bar: Else', PATCH));
  // Larger than a pipe's chunk: read across chunks.
  add(mail('big@x', '[PATCH] big: Large', `${PATCH}${'+x\n'.repeat(100000)}`));
  // A clone --mirror of one epoch is a bare git directory: what inboxEpochs takes.
  execFileSync('git', ['clone', '-q', '--mirror', path.join(dir, 'work'), path.join(dir, 'list.git')]);
  epoch = inboxEpochs(path.join(dir, 'list.git'))[0]!;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test("an archive's epochs: the folder itself, or its N.git epochs in order", () => {
  expect(epoch.name).toBe('list/0');
  const v2 = path.join(dir, 'v2');
  fs.mkdirSync(path.join(v2, 'git'), { recursive: true });
  for (const n of ['1', '0', '10']) fs.symlinkSync(path.join(dir, 'list.git'), path.join(v2, 'git', `${n}.git`));
  expect(inboxEpochs(v2).map((e) => e.name)).toEqual(['v2/0', 'v2/1', 'v2/10']);
  expect(() => inboxEpochs(path.join(dir, 'work', 'm'))).toThrow(/not a public-inbox archive/);
});

test('the index reads headers only: ids, folded References, RFC 2047 subjects, diffs; a deletion and a non-mail are named', async () => {
  const r = await indexEpoch(epoch);
  expect(r.mails.map((m) => [m.messageId, m.subject, m.diff])).toEqual([
    ['cover@x', '[PATCH 0/2] foo: Tidy', false],
    ['p1@x', '[PATCH 1/2] foo: One', true],
    ['p2@x', '[PATCH 2/2] foo: Twö', true],
    ['r1@x', 'Re: [PATCH 1/2] foo: One', false],
    ['other@x', '[PATCH] bar: Else', true],
    ['big@x', '[PATCH] big: Large', true],
  ]);
  expect(r.mails[3]!.references).toEqual(['cover@x', 'p1@x']);
  expect(r.skipped.map((s) => s.why)).toEqual(['no message in its tree (a deletion)', 'no mail headers (no Message-Id, From or Subject)']);
  // From a commit on, only what came after it: how a bot reads new mail.
  const commits = execFileSync('git', ['--git-dir', epoch.gitDir, 'rev-list', '--reverse', 'HEAD'], { encoding: 'utf8' }).trim().split('\n');
  expect((await indexEpoch(epoch, commits[4])).mails.map((m) => m.messageId)).toEqual(['r1@x', 'other@x', 'big@x']);
  const [big] = await readIndexed([epoch], r.mails.filter((m) => m.messageId === 'big@x'));
  expect(big!.body.length).toBeGreaterThan(300000);
  expect(indexMessage(Buffer.from('Subject: x\r\nMessage-Id: <c@x>\r\n\r\ndiff --git a/x b/x\r\n'))).toMatchObject({ messageId: 'c@x', subject: 'x', diff: true });
  // A pull request names its repository (git request-pull's words); a reply quoting one does not.
  const pull = (body: string) => indexMessage(Buffer.from(`Subject: [GIT PULL] foo-next-2026-07-09\nMessage-Id: <g@x>\n\nHi,\n\n${body}`))?.pulls;
  expect(pull('The following changes since commit 1234:\n\nare available in the Git repository at:\n\n  https://git.kernel.org/pub/scm/linux/kernel/git/foo/foo-next.git tags/foo-next-2026-07-09\n')).toBe('git.kernel.org/pub/scm/linux/kernel/git/foo/foo-next');
  expect(pull('> are available in the Git repository at:\n>\n>   git://example.org/x.git tags/t\n\nPulled, thanks.\n')).toBeUndefined();
  expect(repoKey('git@github.com:foo/bar.git')).toBe('github.com/foo/bar');
  // The counted forms of the wireless trees say "applied" too.
  expect(indexMessage(Buffer.from('Subject: RE: [PATCH] x\nMessage-Id: <a@x>\n\nA wrote:\n\n1 patch(es) applied to rtw-next branch of rtw.git, thanks.\n'))?.applied).toBe(true);
});

test("a message's thread from its root, whichever message is named; its messages parsed in full", async () => {
  const { mails } = await indexEpoch(epoch);
  const ids = (id: string) => threadOf(mails, id).map((m) => m.messageId);
  expect(ids('p2@x')).toEqual(['cover@x', 'p1@x', 'p2@x', 'r1@x']);
  expect(ids('<r1@x>')).toEqual(['cover@x', 'p1@x', 'p2@x', 'r1@x']);
  expect(ids('other@x')).toEqual(['other@x']);
  expect(ids('none@x')).toEqual([]);
  const full = await readIndexed([epoch], threadOf(mails, 'p1@x'));
  expect(full.map((m) => m.subject)).toEqual(['[PATCH 0/2] foo: Tidy', '[PATCH 1/2] foo: One', '[PATCH 2/2] foo: Twö', 'Re: [PATCH 1/2] foo: One']);
  expect(full[1]!.body).toContain('diff --git a/x.c b/x.c');
});
