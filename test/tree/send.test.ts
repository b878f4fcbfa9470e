// kseries send → git send-email → an SMTP server on 127.0.0.1 that this test starts: what arrives is what was emitted.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { getHeader, splitMail } from '../../src/mail/headers.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { cli, expectOneLineError, FIXTURE_RECIPES, userTree } from '../helpers/tree.js';

interface Received {
  from: string;
  rcpt: string[];
  raw: string;
  parsed: ParsedMail;
}

const SUFFIX = '-send';
const SERIES = `bcd-cleanup${SUFFIX}`;
let tree: KernelTree;
let out: string;
let server: SMTPServer;
let port: number;
const received: Received[] = [];

/** A clone of a public tree has its base in a remote-tracking branch; the provisioned test tree, an import, has none. */
const REMOTE = 'kseries-test';
const REMOTE_REF = `refs/remotes/${REMOTE}/master`;
const git = (...a: string[]) => execFileSync('git', a, { cwd: tree.root, encoding: 'utf8' }).trim();

beforeAll(async () => {
  tree = await userTree();
  git('remote', 'add', REMOTE, 'https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git');
  git('update-ref', REMOTE_REF, 'HEAD');
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-send-'));
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcpt: session.envelope.rcptTo.map((r) => r.address),
          raw,
          parsed: await simpleParser(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.server.address() as { port: number }).port;
});

afterAll(async () => {
  git('remote', 'remove', REMOTE);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fs.rmSync(out, { recursive: true, force: true });
});

test('a dry run sends nothing', async () => {
  const run = (...a: string[]) => cli(['--tree', tree.root, '--recipes', FIXTURE_RECIPES, ...a]);
  expect((await run('generate', 'bcd-cleanup', '--set', `suffix=${SUFFIX}`)).code).toBe(0);
  expect((await run('emit', SERIES, '--out', out)).code).toBe(0);
  const r = await run('send', SERIES, '--out', out, '--smtp-server', '127.0.0.1', '--smtp-port', String(port), '--smtp-encryption', 'none');
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  expect(r.out).toContain('dry run: 4 messages');
  expect(received).toHaveLength(0);
});

test('--send delivers every message with its headers, threading and an unchanged body', async () => {
  const r = await cli(['--tree', tree.root, 'send', SERIES, '--out', out, '--send',
    '--smtp-server', '127.0.0.1', '--smtp-port', String(port), '--smtp-encryption', 'none']);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  const dir = path.join(out, SERIES, 'v1');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.patch')).sort();
  expect(received).toHaveLength(files.length);
  for (const [i, f] of files.entries()) {
    const emitted = splitMail(fs.readFileSync(path.join(dir, f), 'utf8'));
    const got = received[i]!;
    const id = getHeader(emitted.headers, 'Message-Id')!;
    expect(got.parsed.messageId).toBe(id);
    expect(got.parsed.subject).toBe(getHeader(emitted.headers, 'Subject'));
    const inReplyTo = getHeader(emitted.headers, 'In-Reply-To');
    expect(got.parsed.inReplyTo).toBe(inReplyTo);
    if (inReplyTo) expect(got.parsed.references).toBe(inReplyTo);
    const addresses = (h: string | undefined) => (h ?? '').split(',').map((a) => /<([^>]+)>/.exec(a)?.[1] ?? a.trim()).filter(Boolean);
    const to = addresses(getHeader(emitted.headers, 'To'));
    const cc = addresses(getHeader(emitted.headers, 'Cc'));
    expect(to.length).toBeGreaterThan(0);
    for (const a of [...to, ...cc]) expect(got.rcpt).toContain(a);
    const gotBody = splitMail(got.raw.replace(/\r\n/g, '\n')).body;
    expect(gotBody.trimEnd()).toBe(emitted.body.trimEnd());
  }
});

test('a series signed with a placeholder address: check warns, send --send refuses it, --force sends it', async () => {
  const run = (...a: string[]) => cli(['--tree', tree.root, '--recipes', FIXTURE_RECIPES, ...a]);
  const series = 'bcd-cleanup-noreply';
  expect((await run('generate', 'bcd-cleanup', '--set', 'suffix=-noreply', '--from', 'Build Bot <bot@users.noreply.host.example>')).code).toBe(0);
  const check = await run('check', series, '--out', out, '--no-build', '--json');
  expect(JSON.parse(check.out).identity).toEqual([
    expect.stringMatching(/^the author address bot@users\.noreply\.host\.example is a reserved domain \(\.example\), not a person's/),
    expect.stringMatching(/^the Signed-off-by address bot@users\.noreply\.host\.example is a reserved domain \(\.example\)/),
  ]);
  expect((await run('emit', series, '--out', out, '--force')).code).toBe(0);
  const smtp = ['--smtp-server', '127.0.0.1', '--smtp-port', String(port), '--smtp-encryption', 'none'];
  const before = received.length;
  expectOneLineError(await run('send', series, '--out', out, '--send', ...smtp), /bot@users\.noreply\.host\.example is a reserved domain \(\.example\), not a person's/);
  expect(received.length).toBe(before);
  const forced = await run('send', series, '--out', out, '--send', '--force', ...smtp);
  expect(forced.code, forced.err).toBe(0);
  expect(received.length).toBeGreaterThan(before);
});

test('a series on a base no remote has (a tarball import): emit warns, send --send refuses it, --force sends it', async () => {
  const run = (...a: string[]) => cli(['--tree', tree.root, ...a]);
  const smtp = ['--smtp-server', '127.0.0.1', '--smtp-port', String(port), '--smtp-encryption', 'none'];
  git('update-ref', '-d', REMOTE_REF);
  try {
    const emitted = await run('emit', SERIES, '--out', out);
    expect(emitted.code).toBe(0);
    expect(emitted.out).toMatch(/^warning: base-commit [0-9a-f]{12} is in no remote of this tree \(an import of a tarball, or a commit of your own\): a maintainer cannot apply the series onto it; send --send refuses it without --force$/m);
    const before = received.length;
    expectOneLineError(await run('send', SERIES, '--out', out, '--send', ...smtp), /0000-cover-letter\.patch: base-commit [0-9a-f]{12} is in no remote of this tree/);
    expect(received.length).toBe(before);
    const forced = await run('send', SERIES, '--out', out, '--send', '--force', ...smtp);
    expect(forced.code, forced.err).toBe(0);
    expect(received.length).toBeGreaterThan(before);
  } finally {
    git('update-ref', REMOTE_REF, 'HEAD');
  }
});
