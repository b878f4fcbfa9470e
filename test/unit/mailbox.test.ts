// Mail as list archives write it: mboxrd From-quoting, folded and encoded headers, QP and base64 bodies, CRLF, Maildir.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { MailboxError } from '../../src/errors.js';
import { readMailbox } from '../../src/mail/mailbox.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-mailbox-'));
const file = (name: string, text: string) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
};

const QP = [
  'From mboxrd@z Thu Jan  1 00:00:00 1970',
  'From: =?UTF-8?Q?J=C3=B6rg_M=C3=BCller?= <joerg@example.org>',
  'Subject: [PATCH 1/2] lib: A subject that is folded',
  ' =?UTF-8?Q?and_encoded_=E2=80=94_long?=',
  'Message-ID: <qp@example.org>',
  'Content-Type: text/plain; charset=UTF-8',
  'Content-Transfer-Encoding: quoted-printable',
  '',
  'A line that is soft-=',
  'broken, and a =3D sign.',
  '>From here on, an mboxrd-quoted line.',
  '',
].join('\n');

const B64 = [
  'From mboxrd@z Thu Jan  1 00:00:00 1970',
  'From: Ada <ada@example.org>',
  'Subject: [PATCH 2/2] lib: Base64',
  'Message-ID: <b64@example.org>',
  'In-Reply-To: <qp@example.org>',
  'References: <cover@example.org>',
  '  <qp@example.org>',
  'Content-Type: text/plain; charset=UTF-8',
  'Content-Transfer-Encoding: base64',
  '',
  Buffer.from('diff --git a/x b/x\n\ttabbed line\n').toString('base64'),
  '',
].join('\n');

test('an mboxrd archive: encoded-word subjects, QP and base64 bodies, folded References, >From unquoted', async () => {
  const [a, b] = await readMailbox(file('archive.mbox', `${QP}\n${B64}`));
  expect(a).toMatchObject({ messageId: 'qp@example.org', subject: '[PATCH 1/2] lib: A subject that is folded and encoded — long', from: { name: 'Jörg Müller', address: 'joerg@example.org' } });
  expect(a!.body.trimEnd()).toBe('A line that is soft-broken, and a = sign.\nFrom here on, an mboxrd-quoted line.');
  expect(b).toMatchObject({ inReplyTo: 'qp@example.org', references: ['cover@example.org', 'qp@example.org'] });
  expect(b!.body).toBe('diff --git a/x b/x\n\ttabbed line\n');
});

test('a patch sent as a text attachment (Thunderbird) is body text, as git mailinfo reads it; other attachments are not', async () => {
  const mail = [
    'From: Ada <ada@example.org>',
    'Subject: [Patch]: lib: Attached',
    'Message-ID: <att@example.org>',
    'Content-Type: multipart/mixed; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain; charset=ISO-8859-1',
    '',
    'Why, in Latin-1 words.',
    '--b',
    'Content-Type: text/plain; charset=ISO-8859-1; name="x.patch"',
    'Content-Disposition: attachment; filename="x.patch"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+\xe9\n', 'latin1').toString('base64'),
    '--b',
    'Content-Type: image/png; name="shot.png"',
    'Content-Disposition: attachment; filename="shot.png"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('PNG').toString('base64'),
    '--b--',
    '',
  ].join('\n');
  const [m] = await readMailbox(file('attached.eml', mail));
  expect(m!.body).toBe('Why, in Latin-1 words.\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+é\n');
});

test('CRLF line ends are read as LF', async () => {
  const [m] = await readMailbox(file('crlf.mbox', B64.replace(/\n/g, '\r\n')));
  expect(m!.body).toBe('diff --git a/x b/x\n\ttabbed line\n');
});

test('one mail without a From line, a Maildir, a folder of .patch files, stdin', async () => {
  expect((await readMailbox(file('one.eml', QP.split('\n').slice(1).join('\n'))))[0]!.messageId).toBe('qp@example.org');
  const md = path.join(dir, 'Maildir');
  for (const sub of ['cur', 'new', 'tmp']) fs.mkdirSync(path.join(md, sub), { recursive: true });
  fs.writeFileSync(path.join(md, 'new', '1.mail'), B64.split('\n').slice(1).join('\n'));
  expect((await readMailbox(md)).map((m) => m.messageId)).toEqual(['b64@example.org']);
  const folder = (name: string, files: Record<string, string>) => {
    const at = path.join(dir, name);
    fs.mkdirSync(at);
    for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(at, f), text);
    return at;
  };
  const patches = folder('patches', { '0002-b.patch': B64, '0001-a.patch': QP, 'report.json': '{}' });
  expect((await readMailbox(patches)).map((m) => m.messageId)).toEqual(['qp@example.org', 'b64@example.org']);
  // A tree's patch folder keeps format-patch's names with an extension of its own (Intel's overlay: .tsn, .5g).
  const named = folder('named', { '0002-b.5g': B64, '0001-a.5g': QP, series: '0001-a.5g\n0002-b.5g\n' });
  expect((await readMailbox(named)).map((m) => m.messageId)).toEqual(['qp@example.org', 'b64@example.org']);
  expect((await readMailbox('-', () => QP))[0]!.messageId).toBe('qp@example.org');
});

test('what is not a mailbox is one clear error', async () => {
  await expect(readMailbox(path.join(dir, 'nosuch'))).rejects.toThrow(MailboxError);
  await expect(readMailbox(file('empty.mbox', ''))).rejects.toThrow(MailboxError);
  fs.mkdirSync(path.join(dir, 'nothing'));
  await expect(readMailbox(path.join(dir, 'nothing'))).rejects.toThrow(MailboxError);
});
