// generate → emit on the real 6.12 tree, a template-only recipe (nothing to build): branches, commits, mails, checkpatch,
// the git am round trip, and versions. The static-key series, whose generate builds a draft, is test/kernel/static-key.test.ts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { getHeader, splitMail } from '../../src/mail/headers.js';
import { runCheckpatch } from '../../src/tools/kernel-scripts.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { amTree, cli, FIXTURE_RECIPES, git, userTree } from '../helpers/tree.js';

let tree: KernelTree;
let out: string;
const run = (...args: string[]) => cli(['--tree', tree.root, '--recipes', FIXTURE_RECIPES, ...args]);

beforeAll(async () => {
  tree = await userTree();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-out-'));
});
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

function patches(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.patch')).sort();
}

describe('a user recipe of three patches (diff, insert, new-file)', () => {
  const dir = () => path.join(out, 'bcd-cleanup', 'v1');

  test('generate and emit a threaded series with a cover letter', async () => {
    expect((await run('generate', 'bcd-cleanup')).code).toBe(0);
    const r = await run('emit', 'bcd-cleanup', '--out', out, '--json');
    expect(r.code).toBe(0);
    const files = patches(dir());
    expect(files).toEqual([
      '0000-cover-letter.patch',
      '0001-lib-bcd-Use-unsigned-int-instead-of-bare-unsigned.patch',
      '0002-lib-bcd-Document-_bcd2bin-and-_bin2bcd.patch',
      '0003-Documentation-Describe-the-BCD-helpers.patch',
    ]);
    const mails = files.map((f) => splitMail(fs.readFileSync(path.join(dir(), f), 'utf8')));
    const coverId = getHeader(mails[0]!.headers, 'Message-Id')!;
    expect(getHeader(mails[0]!.headers, 'Subject')).toBe('[PATCH 0/3] lib/bcd: Tidy up the BCD helpers');
    expect(mails[0]!.body).not.toMatch(/\*\*\*|EDITME/);
    expect(mails[0]!.body).toContain('Three small clean-ups of the BCD helpers');
    expect(mails[0]!.body).toMatch(/^base-commit: [0-9a-f]{40}$/m);
    expect(mails[0]!.body).toContain(' lib/bcd.c ');
    mails.slice(1).forEach((m, i) => {
      expect(getHeader(m.headers, 'Subject')).toMatch(new RegExp(`^\\[PATCH ${i + 1}/3\\] `));
      expect(getHeader(m.headers, 'In-Reply-To')).toBe(coverId);
      expect(getHeader(m.headers, 'References')).toBe(coverId);
    });
    const ids = mails.map((m) => getHeader(m.headers, 'Message-Id'));
    expect(new Set(ids).size).toBe(4);
    // The cover letter goes to everyone the patches go to.
    const coverTo = getHeader(mails[0]!.headers, 'To') ?? '';
    const coverCc = getHeader(mails[0]!.headers, 'Cc') ?? '';
    for (const m of mails.slice(1)) {
      for (const a of `${getHeader(m.headers, 'To')}, ${getHeader(m.headers, 'Cc') ?? ''}`.split(/,\s*/).filter(Boolean)) {
        expect(`${coverTo}, ${coverCc}`).toContain(a);
      }
    }
    expect(getHeader(mails[3]!.headers, 'To')).toContain('Jonathan Corbet <corbet@lwn.net>');
  });

  test('every emitted patch has 0 checkpatch errors', async () => {
    for (const f of patches(dir()).slice(1)) {
      const cp = await runCheckpatch(tree.root, fs.readFileSync(path.join(dir(), f), 'utf8'));
      expect(cp.errors, `${f}: ${JSON.stringify(cp.findings)}`).toBe(0);
    }
  });

  test('git am of the emitted files gives exactly the series tree', () => {
    const base = git(tree.root, 'rev-parse', 'kseries/bcd-cleanup/v1~3').trim();
    const mails = patches(dir()).filter((f) => !f.startsWith('0000-')).map((f) => path.join(dir(), f));
    expect(amTree(tree.root, base, mails)).toBe(git(tree.root, 'rev-parse', 'kseries/bcd-cleanup/v1^{tree}').trim());
  });

  test('v2 needs notes, then carries "Changes in v2" and a range-diff against v1', async () => {
    const g = await run('generate', 'bcd-cleanup', '--set', 'max_value=99', '--set', 'doc_summary=Convert packed BCD to binary', '--json');
    expect(JSON.parse(g.out)).toMatchObject({ version: 2, unchanged: false });
    const refused = await run('emit', 'bcd-cleanup', '--out', out);
    expect(refused.code).toBe(2);
    expect(refused.err.split('\n')).toHaveLength(2);
    const r = await run('emit', 'bcd-cleanup', '--out', out, '--notes', 'shorter kernel-doc summary', '--rfc');
    expect(r.code).toBe(0);
    const v2 = path.join(out, 'bcd-cleanup', 'v2');
    const cover = fs.readFileSync(path.join(v2, '0000-cover-letter.patch'), 'utf8');
    expect(getHeader(splitMail(cover).headers, 'Subject')).toBe('[RFC PATCH v2 0/3] lib/bcd: Tidy up the BCD helpers');
    expect(cover).toContain('Changes in v2:\n- shorter kernel-doc summary');
    expect(cover).toContain('Range-diff against v1:');
    expect(cover).toContain('Convert packed BCD to binary');
    const p2 = fs.readFileSync(path.join(v2, '0002-lib-bcd-Document-_bcd2bin-and-_bin2bcd.patch'), 'utf8');
    expect(getHeader(splitMail(p2).headers, 'Subject')).toBe('[RFC PATCH v2 2/3] lib/bcd: Document _bcd2bin() and _bin2bcd()');
  });

  test('--subject-prefix names the target tree', async () => {
    const r = await run('emit', 'bcd-cleanup', '-v', '1', '--out', out, '--subject-prefix', 'PATCH mm-nonmm-unstable', '--json');
    expect(JSON.parse(r.out).messages[1].subject).toBe('[PATCH mm-nonmm-unstable 1/3] lib/bcd: Use unsigned int instead of bare unsigned');
  });
});

describe('a series on top of another (manifest "after")', () => {
  test('it is based on the other series\' tip; its mail names the tree commit and the other series\' patches', async () => {
    const g = await run('generate', 'bcd-after', '--json');
    expect(g.code, g.err).toBe(0);
    const made = JSON.parse(g.out);
    // The newest version of bcd-cleanup (v2, made above).
    expect(made.base).toBe(git(tree.root, 'for-each-ref', '--sort=-version:refname', '--count=1', '--format=%(objectname)', 'refs/heads/kseries/bcd-cleanup/').trim());
    const e = await run('emit', 'bcd-after', '--out', out, '--json');
    expect(e.code, e.err).toBe(0);
    const dir = path.join(out, 'bcd-after', 'v1');
    const [file] = patches(dir);
    const mail = fs.readFileSync(path.join(dir, file!), 'utf8');
    const treeBase = git(tree.root, 'rev-parse', `${made.base}~3`).trim();
    expect(mail).toContain(`base-commit: ${treeBase}`);
    const ids = [...mail.matchAll(/^prerequisite-patch-id: ([0-9a-f]{40})$/gm)].map((m) => m[1]);
    const own = git(tree.root, 'log', '-p', '--reverse', `${treeBase}..${made.base}`);
    const expected = execFileSync('git', ['patch-id', '--stable'], { cwd: tree.root, input: own, encoding: 'utf8' }).trim().split('\n').map((l) => l.split(' ')[0]);
    expect(new Set(ids)).toEqual(new Set(expected));
    // bcd-cleanup has not been sent: no Message-Id for b4 to look for, and the mail does not claim it was.
    expect(mail).not.toMatch(/^prerequisite-message-id:/m);
    expect(mail.replace(/\s+/g, ' ')).toContain('This patch applies on top of the series "lib/bcd: Tidy up the BCD helpers" (3 patches), which is posted separately;');
    expect(JSON.parse(e.out).prerequisiteUnsent).toMatch(/^bcd-cleanup v\d+$/);
    // Once send --send has sent it (the sent.json it leaves in its folder), emit names it by its Message-Id.
    const version = /v(\d+)$/.exec(git(tree.root, 'for-each-ref', '--sort=-version:refname', '--count=1', '--format=%(refname)', 'refs/heads/kseries/bcd-cleanup/').trim())![1];
    fs.mkdirSync(path.join(out, 'bcd-cleanup', `v${version}`), { recursive: true });
    fs.writeFileSync(path.join(out, 'bcd-cleanup', `v${version}`, 'sent.json'), `${JSON.stringify({ sentAt: new Date(0).toISOString() })}\n`);
    expect((await run('emit', 'bcd-after', '--out', out, '--json')).code).toBe(0);
    const sentMail = fs.readFileSync(path.join(dir, file!), 'utf8');
    expect(sentMail).toMatch(/^prerequisite-message-id: <kseries-bcd-cleanup-v\d+-0-[0-9a-f]{12}@/m);
    expect(sentMail.replace(/\s+/g, ' ')).toContain('This patch applies on top of the series "lib/bcd: Tidy up the BCD helpers" (3 patches), sent before it as <kseries-bcd-cleanup-v');
    expect(amTree(tree.root, made.base, [path.join(dir, file!)])).toBe(git(tree.root, 'rev-parse', 'kseries/bcd-after/v1^{tree}').trim());
  });

  test('without the other series, generate stops in one line that says what to generate first', async () => {
    const recipes = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-recipes-'));
    fs.cpSync(path.join(FIXTURE_RECIPES, 'bcd-after'), path.join(recipes, 'bcd-orphan'), { recursive: true });
    const manifest = path.join(recipes, 'bcd-orphan', 'manifest.json');
    fs.writeFileSync(manifest, fs.readFileSync(manifest, 'utf8').replace('"after": "bcd-cleanup"', '"after": "bcd-never"'));
    const r = await cli(['--tree', tree.root, '--recipes', recipes, 'generate', 'bcd-orphan']);
    fs.rmSync(recipes, { recursive: true, force: true });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^kseries: bcd-orphan applies on top of the series bcd-never, which this tree has not generated\nhint: run kseries generate bcd-never --base [0-9a-f]{12} first\n?$/);
  });

  test('review applies it on the branch that holds its prerequisites, and says so', async () => {
    const dir = path.join(out, 'bcd-after', 'v1');
    const r = await run('review', path.join(dir, 'series.mbox'), '--no-build', '--json');
    const report = JSON.parse(r.out);
    expect(report.patches.map((p: { applied: boolean }) => p.applied)).toEqual([true]);
    expect(report.problems.map((p: { kind: string }) => p.kind)).toContain('prerequisites');
    expect(report.series.base).toBe(git(tree.root, 'rev-parse', 'kseries/bcd-after/v1~1').trim());
  });

  test('without a branch that holds its prerequisites, review says which are missing and where they were sent', async () => {
    const dir = path.join(out, 'bcd-after', 'v1');
    const mbox = path.join(out, 'bcd-after-stranger.mbox');
    fs.writeFileSync(mbox, fs.readFileSync(path.join(dir, 'series.mbox'), 'utf8').replace(/^(prerequisite-patch-id: )[0-9a-f]{40}$/m, `$1${'1'.repeat(40)}`));
    const report = JSON.parse((await run('review', mbox, '--no-build', '--json')).out);
    const missing = report.problems.find((p: { kind: string }) => p.kind === 'prerequisites-missing');
    expect(missing.severity).toBe('warning');
    expect(missing.message).toMatch(/^the series stands on 3 patches of another series \(sent as <kseries-bcd-cleanup-v\d+-0-[0-9a-f]{12}@example\.org>\), named by prerequisite-patch-id, which no branch of this tree holds on base-commit [0-9a-f]{12}; applied without them/);
  });
});
