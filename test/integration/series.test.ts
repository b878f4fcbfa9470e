// generate → emit on the real 6.12 tree: branches, commits, mails, checkpatch, and the git am round trip.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { getHeader, splitMail } from '../../src/mail/headers.js';
import { runCheckpatch } from '../../src/tools/kernel-scripts.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { cli, FIXTURE_RECIPES, userTree, git } from '../helpers/tree.js';

let tree: KernelTree;
let out: string;
const run = (...args: string[]) => cli(['--tree', tree.root, '--recipes', FIXTURE_RECIPES, ...args]);

beforeAll(async () => {
  tree = await userTree();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-out-'));
});
afterAll(() => {
  if (amWorktree) git(tree.root, 'worktree', 'remove', '--force', amWorktree);
  fs.rmSync(out, { recursive: true, force: true });
});

function patches(dir: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.patch')).sort();
}

let amWorktree: string | undefined;

/** git am the emitted patches onto a fresh checkout of the base (one worktree, reused); the resulting tree hash. */
function amTree(base: string, dir: string): string {
  if (!amWorktree) {
    amWorktree = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-am-'));
    git(tree.root, 'worktree', 'add', '-q', '--detach', amWorktree, base);
  }
  git(amWorktree, 'checkout', '-q', '--detach', '--force', base);
  const files = patches(dir).filter((f) => !f.startsWith('0000-')).map((f) => path.join(dir, f));
  git(amWorktree, 'am', '-q', ...files);
  return git(amWorktree, 'rev-parse', 'HEAD^{tree}').trim();
}

describe('static-key on mm/memcontrol.c', () => {
  const series = 'static-key-cgroup_memory_nobpf';

  test('generate makes one signed-off commit on kseries/<series>/v1', async () => {
    const r = await run('generate', 'static-key', '--set', 'file=mm/memcontrol.c', '--set', 'flag=cgroup_memory_nobpf', '--json');
    // The recipe proves its conversion, so a draft is built first for the figures of the commit message.
    expect(r.err).toBe('making a draft of 1 patch to build it (defconfig) to measure the object code');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ series, version: 1, branch: `kseries/${series}/v1`, unchanged: false });
    expect(j.commits).toHaveLength(1);
    const msg = git(tree.root, 'log', '-1', '--format=%an <%ae>%n%B', j.branch);
    expect(msg).toContain('Test Author <test.author@example.org>\nmm: memcontrol: Convert cgroup_memory_nobpf to a static key');
    expect(msg).toContain('Signed-off-by: Test Author <test.author@example.org>');
    expect(msg).toContain('\n  mem_cgroup_css_alloc(): cmpb+je 13 bytes -> nop 2 bytes\n  in all: 2 tests, 4 insns/22 bytes -> 2 jump labels, 2 insns/4 bytes\n');
    const diff = git(tree.root, 'diff', `${j.base}..${j.branch}`);
    expect(diff).toContain('+static DEFINE_STATIC_KEY_FALSE_RO(cgroup_memory_nobpf_key);');
    expect(diff).toContain('+\t\t\tstatic_branch_enable(&cgroup_memory_nobpf_key);');
    expect(git(tree.root, 'show', `${j.branch}:mm/memcontrol.c`)).not.toMatch(/\bcgroup_memory_nobpf\b/);
  });

  test('generating the same series again makes no new version', async () => {
    const r = await run('generate', 'static-key', '--set', 'file=mm/memcontrol.c', '--set', 'flag=cgroup_memory_nobpf', '--json');
    expect(JSON.parse(r.out)).toMatchObject({ version: 1, unchanged: true });
    expect(git(tree.root, 'branch', '--list', `kseries/${series}/*`).trim().split('\n')).toHaveLength(1);
  });

  test('emit writes one checkpatch-clean patch with maintainers, base-commit and a stable Message-Id', async () => {
    const r = await run('emit', series, '--out', out, '--json');
    expect(r.code).toBe(0);
    const dir = path.join(out, series, 'v1');
    expect(patches(dir)).toEqual(['0001-mm-memcontrol-Convert-cgroup_memory_nobpf-to-a-stati.patch']);
    const text = fs.readFileSync(path.join(dir, patches(dir)[0]!), 'utf8');
    const { headers, body } = splitMail(text);
    expect(getHeader(headers, 'Subject')).toBe('[PATCH] mm: memcontrol: Convert cgroup_memory_nobpf to a static key');
    expect(getHeader(headers, 'To')).toContain('Johannes Weiner <hannes@cmpxchg.org>');
    expect(getHeader(headers, 'To')).toContain('Andrew Morton <akpm@linux-foundation.org>');
    expect(getHeader(headers, 'Cc')).toContain('linux-mm@kvack.org');
    expect(getHeader(headers, 'Cc')).toContain('Muchun Song <muchun.song@linux.dev>');
    expect(getHeader(headers, 'In-Reply-To')).toBeUndefined();
    expect(body).toMatch(/^base-commit: [0-9a-f]{40}$/m);
    expect(body).toContain(' mm/memcontrol.c | ');
    const cp = await runCheckpatch(tree.root, text, { strict: true });
    expect(cp.findings).toEqual([]);
    const again = await run('emit', series, '--out', out, '--json');
    expect(JSON.parse(again.out).messages[0].messageId).toBe(getHeader(headers, 'Message-Id'));
    expect(fs.readFileSync(path.join(dir, 'series.mbox'), 'utf8')).toBe(text);
  });

  test('git am of the emitted patch gives exactly the series tree', () => {
    const base = git(tree.root, 'rev-parse', `kseries/${series}/v1~1`).trim();
    expect(amTree(base, path.join(out, series, 'v1'))).toBe(git(tree.root, 'rev-parse', `kseries/${series}/v1^{tree}`).trim());
  });
});

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
    expect(amTree(base, dir())).toBe(git(tree.root, 'rev-parse', 'kseries/bcd-cleanup/v1^{tree}').trim());
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
