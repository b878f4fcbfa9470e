// kseries review on the real tree without building (--no-build): series that do not apply and why, series-level
// findings, b4's check, recipients, bad input, and mutated mail through the whole command. Reviews that build are
// test/kernel/review.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkpatchMail } from '../../src/check/checks/checkpatch.js';
import type { CheckpatchResult } from '../../src/tools/kernel-scripts.js';
import { readMailbox } from '../../src/mail/mailbox.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { seriesMbox, type SeriesSpec } from '../helpers/mails.js';
import { mutate, rng } from '../helpers/mutate.js';
import { findingKinds as kinds, libSpec, reviewMbox, scratchCommit, SOB } from '../helpers/review.js';
import { cli, git, userTree } from '../helpers/tree.js';

let tree: KernelTree;
let out: string;
let before: { head: string; status: string };
const spec = (s: Omit<SeriesSpec, 'root' | 'rev'>) => libSpec(tree, s);
const review = (name: string, mbox: string, ...args: string[]) => reviewMbox(tree, out, name, mbox, ...args);

beforeAll(async () => {
  tree = await userTree();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-review-'));
  before = { head: git(tree.root, 'rev-parse', 'HEAD'), status: git(tree.root, 'status', '--porcelain') };
});
afterAll(() => {
  expect({ head: git(tree.root, 'rev-parse', 'HEAD'), status: git(tree.root, 'status', '--porcelain') }).toEqual(before);
  fs.rmSync(out, { recursive: true, force: true });
});

describe('series that do not apply', () => {
  test('made against another base: the hunk context exists nowhere; each later patch said to apply without it or to need it', async () => {
    const other = '/*\n * A file from another tree\n */\nint x;\nint y;\nint z;\n';
    const { code, report } = await review('wrong-base', seriesMbox(spec({
      id: 'wrong-base',
      cover: { subject: 'lib/bsearch: From elsewhere', body: 'Made on another tree.' },
      patches: [
        { subject: 'lib/bsearch: Change y', body: `Change y.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: 'int y;', to: 'int yy;', base: other }] },
        { subject: 'lib/bsearch: Fix a comment', body: `Fix it.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: 'binary search an array', to: 'binary search a sorted array' }] },
        { subject: 'lib/bsearch: Change y again', body: `Change it again.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: 'int yy;', to: 'int yyy;', base: other.replace('int y;', 'int yy;') }] },
      ],
    })), '--no-build');
    expect(code).toBe(1);
    expect(report.patches.map((p) => p.applied)).toEqual([false, false, false]);
    expect(report.patches[0]!.failures).toMatchObject([{ kind: 'wrong-base', file: 'lib/bsearch.c', hunk: 1 }]);
    expect(report.patches[1]!.problems[0]!.message).toBe('not applied: patch 1 before it did not apply; it applies without it');
    expect(report.patches[2]!.problems[0]!.message).toBe('not applied: needs patch 1, which did not apply');
  });

  test('a conflict with an earlier patch: the differing lines are shown', async () => {
    const { report } = await review('conflict', seriesMbox(spec({
      id: 'conflict',
      cover: { subject: 'lib/bsearch: Two views of one comment', body: 'The second patch was made without the first.' },
      patches: [
        { subject: 'lib/bsearch: Fix a comment', body: `Fix it.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: ' * @num: number of elements', to: ' * @num: number of elements in the array' }] },
        {
          subject: 'lib/bsearch: Fix another comment',
          body: `Fix it too.\n\n${SOB}`,
          edits: [{ file: 'lib/bsearch.c', from: ' * @size: size of each element', to: ' * @size: size of one element', base: fs.readFileSync(path.join(tree.root, 'lib/bsearch.c'), 'utf8') }],
        },
      ],
    })), '--no-build');
    expect(report.patches.map((p) => p.applied)).toEqual([true, false]);
    const [f] = report.patches[1]!.failures;
    expect(f).toMatchObject({ kind: 'conflict', file: 'lib/bsearch.c', hunk: 1 });
    expect(f!.message).toMatch(/changed by patch 1 of this series/);
    expect(f!.differs).toEqual([{ line: 17, expected: ' * @num: number of elements', found: ' * @num: number of elements in the array' }]);
  });

  test('a patch the tree already has (format-patch of a commit, reviewed on that commit): already applied, the commit named', async () => {
    const sha = scratchCommit(tree.root, 'lib/bsearch.c', ' * @num: number of elements', ' * @num: number of elements in the array', 'lib/bsearch: Say what @num counts');
    const mbox = git(tree.root, 'format-patch', '-1', '--stdout', sha);
    const { code, report } = await review('already', mbox, '--no-build', '--base', sha);
    expect(code).toBe(1);
    expect(report.patches.map((p) => [p.applied, p.problems.map((x) => x.kind)])).toEqual([[false, ['already-applied']]]);
    expect(report.patches[0]!.problems[0]!.message).toBe(`already applied: the tree has this change (commit ${sha.slice(0, 12)} ("lib/bsearch: Say what @num counts"))`);
    expect(report.patches[0]!.failures).toEqual([]);
  });

  test('a patch the tree took and then changed around (neither it nor its reverse applies): already applied in substance', async () => {
    const taken = scratchCommit(tree.root, 'lib/bsearch.c', ' * @num: number of elements', ' * @num: number of elements to search', 'lib/bsearch: Say which elements @num counts');
    const later = scratchCommit(tree.root, 'lib/bsearch.c', ' * @size: size of each element', ' * @size: size of each element in bytes', 'lib/bsearch: Say what @size counts in', taken);
    const { report } = await review('substance', git(tree.root, 'format-patch', '-1', '--stdout', taken), '--no-build', '--base', later);
    expect(report.patches.map((p) => [p.applied, p.problems.map((x) => [x.kind, x.severity])])).toEqual([[false, [['already-applied', 'warning']]]]);
    expect(report.patches[0]!.problems[0]!.message).toBe('already applied in substance: the run of lines it adds is in the tree, the run of lines it removes is gone; neither it nor its reverse applies, as the code around them changed');
  });

  test('a patch made on a commit this tree is not at: its index lines name that commit (b4 --guess-base)', async () => {
    const upstream = scratchCommit(tree.root, 'lib/bsearch.c', ' * @size: size of each element', ' * @size: size of one element', 'lib/bsearch: Upstream rewords @size');
    const mine = scratchCommit(tree.root, 'lib/bsearch.c', ' * @size: size of one element', ' * @size: size of one element, in bytes', 'lib/bsearch: Say @size is in bytes', upstream);
    // Where a user's tree has it: on a branch (git log --all finds it there).
    git(tree.root, 'update-ref', 'refs/kseries-test/upstream', upstream);
    const { report } = await review('guess-base', git(tree.root, 'format-patch', '-1', '--stdout', mine), '--no-build').finally(() => git(tree.root, 'update-ref', '-d', 'refs/kseries-test/upstream'));
    expect(report.patches[0]!.applied).toBe(false);
    expect(report.patches[0]!.problems[0]!.message).toMatch(new RegExp(`; its index lines name the files of ${upstream.slice(0, 12)} \\("lib/bsearch: Upstream rewords @size"\\)$`));
  });

  test('a mangled mail (a long line re-wrapped by a mail client)', async () => {
    const { report } = await review('mangled', seriesMbox(spec({
      id: 'mangled',
      patches: [
        {
          subject: 'lib/bsearch: Explain the comparison',
          body: `Explain it.\n\n${SOB}`,
          edits: [{ file: 'lib/bsearch.c', from: ' * @cmp: pointer to comparison function', to: ' * @cmp: pointer to the comparison function, which returns <0, 0 or >0 as the key sorts before, with or after' }],
          mangle: (m) => m.replace('which returns <0, 0 or >0 as the key sorts before,', 'which returns <0, 0 or >0 as the key sorts\nbefore,'),
        },
      ],
    })), '--no-build');
    expect(report.patches[0]!.applied).toBe(false);
    expect(report.patches[0]!.failures).toMatchObject([{ kind: 'mangled', file: 'lib/bsearch.c' }]);
  });
});

describe('series-level findings', () => {
  test('a cover letter with placeholders', async () => {
    const { report } = await review('placeholder', seriesMbox(spec({
      id: 'placeholder',
      cover: { subject: '*** SUBJECT HERE ***', body: '*** BLURB HERE ***' },
      patches: [
        { subject: 'lib/bsearch: Fix a comment', body: `Fix it.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: 'binary search an array', to: 'binary search a sorted array' }] },
        { subject: 'lib/bsearch: Fix another comment', body: `Fix it.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: ' * @size: size of each element', to: ' * @size: size of one element' }] },
      ],
    })), '--no-build');
    expect(report.problems.map((p) => p.kind)).toEqual(['cover-placeholder']);
    expect(kinds(report)).toEqual([[], []]);
  });
});

describe('b4, recipients and bad input', () => {
  const one = () => seriesMbox(spec({
    id: 'b4',
    patches: [{ subject: 'lib/bsearch: Say that the array is sorted', body: 'No sign-off here.', edits: [{ file: 'lib/bsearch.c', from: 'binary search an array of elements', to: 'binary search a sorted array of elements' }] }],
  }));

  test("--b4-check: one message on stdin, b4's review-CI JSON out", async () => {
    const r = await cli(['--tree', tree.root, 'review', '--b4-check'], { stdin: one() });
    expect(r.code, r.err).toBe(0);
    const checks = JSON.parse(r.out) as { tool: string; status: string; summary: string; details: string }[];
    // It lacks its author's Signed-off-by: the rules say so, and checkpatch too (without --mailback, which hid it); the
    // rules of the tree it goes to (lib/, none but the general ones) pass.
    expect(checks.map((c) => [c.tool, c.status])).toEqual([['kseries', 'pass'], ['kseries', 'fail'], ['kseries', 'fail'], ['kseries', 'pass']]);
    expect(checks[1]!.details).toMatch(/SIGN_OFF/);
    expect(checks[2]!.details).toMatch(/author-signoff/);
  });

  test('--reply-all copies the original recipients; the default is the author only', async () => {
    const file = path.join(out, 'reply-all.mbox');
    fs.writeFileSync(file, one());
    const r = await cli(['--tree', tree.root, 'review', file, '--no-build', '--reply-all', '--out', out, '--json']);
    expect(r.code, r.err).toBe(1);
    const dir = path.join(out, 'review', 'lib-bsearch-say-that-the-array-is-sorted', 'v1');
    const [reply] = await readMailbox(path.join(dir, '0001-reply.eml'));
    expect(reply!.to.map((a) => a.address)).toEqual(['ada@example.org']);
    expect(reply!.cc.map((a) => a.address)).toEqual(['akpm@linux-foundation.org', 'linux-kernel@vger.kernel.org']);
  });

  test('a patch whose path leaves the tree is refused before anything is applied (exit 2)', async () => {
    const evil = one().replace(/a\/lib\/bsearch\.c/g, 'a/../../etc/passwd').replace(/b\/lib\/bsearch\.c/g, 'b/../../etc/passwd');
    const file = path.join(out, 'evil.mbox');
    fs.writeFileSync(file, evil);
    const r = await cli(['--tree', tree.root, 'review', file, '--no-build']);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')).toHaveLength(2);
    expect(r.err).toMatch(/^kseries: patch 1 .*"\.\.\/\.\.\/etc\/passwd" is not a path inside the kernel tree/);
  });

  test('without a working bubblewrap, review refuses to build unless --trust; --no-build needs none', async () => {
    const file = path.join(out, 'nosandbox.mbox');
    fs.writeFileSync(file, one());
    const env = { ...process.env, PATH: '/nonexistent' };
    const r = await cli(['--tree', tree.root, 'review', file], { env });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^kseries: reviewing builds code someone else wrote, and bubblewrap \(bwrap\) is missing/);
    expect(r.err).toMatch(/hint: apt-get install bubblewrap; or --no-build/);
  });

  test('a malformed mailbox is one clear error (exit 2)', async () => {
    const file = path.join(out, 'garbage.mbox');
    fs.writeFileSync(file, 'this is not mail\n\x00\x01\x02');
    const r = await cli(['--tree', tree.root, 'review', file, '--no-build']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^kseries: .*holds no patch/);
    // A path relative to where kseries was started reads the same file.
    const relative = await cli(['--tree', tree.root, 'review', 'garbage.mbox', '--no-build'], { cwd: out });
    expect(relative.err).toBe(r.err);
  });

  // Shapes met in real patch collections (OpenWrt, Armbian, LibreELEC, Debian): a diff -Naur or quilt file without
  // mail headers, a description then a diff, a list mail whose only diff is in a reply, and a pull request.
  test.each([
    ['plain-diff', 'diff -Naur a/lib/bsearch.c b/lib/bsearch.c\n--- a/lib/bsearch.c\n+++ b/lib/bsearch.c\n@@ -1,1 +1,1 @@\n-x\n+y\n', /^kseries: .*plain-diff\.patch: a diff without mail headers \(no From:\), which git am cannot apply\nhint: commit it/],
    ['described-diff', 'Fix the thing.\n\n--- a/lib/bsearch.c\n+++ b/lib/bsearch.c\n@@ -1,1 +1,1 @@\n-x\n+y\n', /a diff without mail headers/],
    ['reply-diff', 'From: A <a@kernel.org>\nSubject: Re: lib: trouble\n\nTry this:\n\n--- a/lib/bsearch.c\n+++ b/lib/bsearch.c\n@@ -1,1 +1,1 @@\n-x\n+y\n', /holds no patch \(its only diff is in a reply, Re:\)/],
    // A maintainer's pull request (git request-pull), as patchwork's corpus has them: a pull, not patches.
    ['pull', 'From: M <m@kernel.org>\nSubject: [GIT PULL] lib: fixes for 6.12\n\nThe following changes since commit 0123:\n\nare available in the Git repository at:   \n\n  git://git.kernel.org/pub/scm/linux/kernel/git/m/lib.git tags/lib-fixes\n\nfor you to fetch changes up to 4567:\n', /: a pull request \(git request-pull\) for git:\/\/git\.kernel\.org\/pub\/scm\/linux\/kernel\/git\/m\/lib\.git tags\/lib-fixes, not patches\nhint: fetch it/],
  ])('%s: one line saying what the file is (exit 2)', async (name, text, want) => {
    const file = path.join(out, `${name}.patch`);
    fs.writeFileSync(file, text);
    const r = await cli(['--tree', tree.root, 'review', file, '--no-build']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(want);
  });
});

test('checkpatch on a tree without history: a commit id it cannot look up is the tree\'s finding, labelled, not counted', async () => {
  const mail = git(tree.root, 'format-patch', '-1', '--stdout', scratchCommit(tree.root, 'lib/bsearch.c', ' * @size: size of each element', ' * @size: size of each element, in bytes', `lib/bsearch: Say what @size counts\n\nAs commit 0123456789ab ("lib: Old change") should have said.`));
  const unknown = (r: CheckpatchResult) => r.findings.filter((f) => f.type === 'UNKNOWN_COMMIT_ID');
  const counted = await checkpatchMail(tree.root, mail, { history: true });
  expect(unknown(counted).map((f) => f.fromTree)).toEqual([undefined]);
  const labelled = await checkpatchMail(tree.root, mail, { history: false });
  expect(unknown(labelled).map((f) => f.fromTree)).toEqual([expect.stringMatching(/no git history/)]);
  expect(labelled.warnings).toBe(counted.warnings - 1);
  expect(labelled.findings.filter((f) => f.fromTree === undefined)).toEqual(counted.findings.filter((f) => f.type !== 'UNKNOWN_COMMIT_ID'));
});

test('mutated mailboxes through the whole command on the real tree: exit 0, 1 or 2, never a bug', async () => {
  const seed = seriesMbox(spec({
    id: 'fuzz',
    cover: { subject: 'lib: Fuzzed', body: 'Mutated below.' },
    patches: [
      { subject: 'lib/bsearch: Say that the array is sorted', body: `Say it.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: 'binary search an array of elements', to: 'binary search a sorted array of elements' }] },
      { subject: 'lib/sort: Say that sort_r sorts in place', body: `Say it.\n\n${SOB}`, edits: [{ file: 'lib/sort.c', from: ' * sort_r - sort an array of elements', to: ' * sort_r - sort an array of elements in place' }] },
    ],
  }));
  // The 2000 mutations of test/unit/review-fuzz go through the same reading in-process; these check the whole command.
  const runs = 10;
  const codes: Record<number, number> = {};
  for (let run = 0; run < runs; run++) {
    const file = path.join(out, 'fuzz.mbox');
    fs.writeFileSync(file, Buffer.from(mutate(seed, rng(1000 + run)), 'latin1'));
    const r = await cli(['--tree', tree.root, 'review', file, '--no-build', '--out', out, '--json']);
    expect([0, 1, 2], `run ${run}: ${r.err}`).toContain(r.code);
    expect(r.err).not.toMatch(/internal error/);
    if (r.code === 2) expect(r.err.split('\n').filter((l) => /^(kseries|hint): /.test(l))).toHaveLength(2);
    codes[r.code] = (codes[r.code] ?? 0) + 1;
  }
  console.log(`${runs} mutated mailboxes through kseries review: exit codes ${JSON.stringify(codes)}`);
});

describe('mailbox shapes of real lists', () => {
  const bsearch = (id: string) => spec({
    id,
    patches: [{ subject: 'lib/bsearch: Say the array is sorted', body: `Say it.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: 'binary search an array', to: 'binary search a sorted array' }] }],
  });

  test('blank context lines a mail client stripped of their space: applied, as git applies them, with a warning', async () => {
    const mbox = seriesMbox(bsearch('blank-context'));
    const stripped = mbox.replace(/^ $/gm, '');
    expect(stripped).not.toBe(mbox);
    const { report } = await review('blank-context', stripped, '--no-build');
    expect(report.patches.map((p) => p.applied)).toEqual([true]);
    const damage = report.patches[0]!.problems.find((p) => p.kind === 'whitespace-damage');
    expect(damage?.severity).toBe('warning');
    expect(damage?.message).toMatch(/^\d+ blank context lines? lost (its|their) leading space on the way \(a mail client\); read as empty context lines, as git apply does$/);
    // The same patch with its file missing from the tree is a wrong base, not a damaged diff.
    const elsewhere = stripped.replaceAll('lib/bsearch.c', 'lib/bsearch-elsewhere.c');
    const moved = await review('blank-context-elsewhere', elsewhere, '--no-build');
    expect(moved.report.patches[0]!.failures.map((f) => f.kind)).toEqual(['wrong-base']);
  });

  test('the same patch sent twice: the newest copy reviewed, both named with their dates', async () => {
    const first = seriesMbox(bsearch('resent-1')).replace(/^Date: .*$/m, 'Date: Mon, 1 Dec 2026 10:00:00 +0000');
    const again = seriesMbox(bsearch('resent-2')).replace(/^Date: .*$/m, 'Date: Wed, 3 Dec 2026 10:00:00 +0000').replace('Say it.', 'Say it, again.');
    const { report } = await review('resent', `${again}\n${first}`, '--no-build');
    expect(report.patches.map((p) => p.applied)).toEqual([true]);
    const resent = report.problems.find((p) => p.kind === 'resent');
    expect(resent?.message).toBe('v1 was sent 2 times (2026-12-01 10:00: 1 patch; 2026-12-03 10:00: 1 patch); reviewing the newest, copy 2 of 2 (--copy N picks another, 1 the oldest)');
    const oldest = await review('resent-oldest', `${again}\n${first}`, '--no-build', '--copy', '1');
    expect(oldest.report.problems.find((p) => p.kind === 'resent')?.message).toContain('reviewing the oldest, copy 1 of 2');
  });
});

