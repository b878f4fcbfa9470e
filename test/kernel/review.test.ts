// kseries review on the real tree, building what it applies in the sandbox: a series written with a known defect in
// every patch, each found at its patch exactly; a clean series reported clean; a proof at the patch it concerns.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readMailbox } from '../../src/mail/mailbox.js';
import { sandboxWorks } from '../../src/tools/sandbox.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { replyMail, seriesMbox, type SeriesSpec } from '../helpers/mails.js';
import { CALL, findingKinds as kinds, libSpec, reviewMbox, SOB } from '../helpers/review.js';
import { git, userTree } from '../helpers/tree.js';

let tree: KernelTree;
let out: string;
let before: { head: string; status: string };
/** Builds run in the bubblewrap sandbox where it works; where it does not, the tests vouch for their own code. */
let buildArgs: string[] = [];
const spec = (s: Omit<SeriesSpec, 'root' | 'rev'>) => libSpec(tree, s);
const review = (name: string, mbox: string, ...args: string[]) => reviewMbox(tree, out, name, mbox, ...args);

beforeAll(async () => {
  tree = await userTree();
  buildArgs = (await sandboxWorks()) ? [] : ['--trust'];
  console.log(`review builds: ${buildArgs.length ? 'unsandboxed (--trust): bubblewrap does not work here' : 'in the bubblewrap sandbox'}`);
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-review-'));
  before = { head: git(tree.root, 'rev-parse', 'HEAD'), status: git(tree.root, 'status', '--porcelain') };
});
afterAll(() => {
  expect({ head: git(tree.root, 'rev-parse', 'HEAD'), status: git(tree.root, 'status', '--porcelain') }).toEqual(before);
  fs.rmSync(out, { recursive: true, force: true });
});

describe('a series with a defect in every patch, built in the sandbox', () => {
  let r: Awaited<ReturnType<typeof review>>;
  beforeAll(async () => {
    const mbox = seriesMbox(spec({
      id: 'defects',
      cover: { subject: 'lib/bsearch: A helper, and what goes wrong with it', body: 'Six patches, each with one defect a reviewer must see.' },
      patches: [
        { subject: 'lib/bsearch: Call a helper that is not there yet', body: `Call bsearch_helper(), added by the next patch.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: CALL, to: 'return bsearch_helper(key, base, num, size, cmp);' }] },
        {
          subject: 'lib/bsearch: Add the helper',
          body: `Add bsearch_helper(), which the previous patch calls.\n\n${SOB}`,
          edits: [{ file: 'lib/bsearch.c', from: 'void *bsearch(const void *key,', to: `static void *bsearch_helper(const void *key, const void *base, size_t num, size_t size,\n\t\t\t    cmp_func_t cmp)\n{\n\t${CALL}\n}\n\nvoid *bsearch(const void *key,` }],
        },
        { subject: 'lib/bsearch: Keep a count in the helper', body: `Start counting searches.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: `cmp_func_t cmp)\n{\n\t${CALL}`, to: `cmp_func_t cmp)\n{\n\tint searches;\n\n\t${CALL}` }] },
        { subject: 'lib/bsearch: Return early for an empty array', body: `Nothing to search in an empty array.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: `\tint searches;\n`, to: `\tint searches;\n\n\tif(num == 0) \n\t\treturn NULL;\n` }] },
        { subject: 'lib/bsearch: Say that the array is sorted', body: 'The comment should say the array must be sorted.', edits: [{ file: 'lib/bsearch.c', from: 'binary search an array of elements', to: 'binary search a sorted array of elements' }] },
        {
          subject: 'lib/bsearch: Say in the comment that the comparison function may compare a key of another type',
          body: `Make it plain.\n\n${SOB}`,
          edits: [{ file: 'lib/bsearch.c', from: 'Note that the key need not', to: 'Note that the key does not need to' }],
        },
      ],
    }));
    r = await review('defects', mbox, ...buildArgs);
  });

  test('each defect is found at its patch, and nothing else', () => {
    expect(r.code).toBe(1);
    expect(r.report.patches.map((p) => p.applied)).toEqual([true, true, true, true, true, true]);
    expect(r.report.patches.map((p) => p.build.status)).toEqual(['failed', 'ok', 'ok', 'ok', 'ok', 'ok']);
    expect(r.report.patches[0]!.build.errors.join('\n')).toMatch(/implicit declaration of function .bsearch_helper/);
    // gcc 12 also warns that the int the undeclared function returns becomes a pointer; gcc 14 makes that an error.
    expect(r.report.patches[0]!.build.newWarnings.filter((w) => !/\[-Wint-conversion\]$/.test(w))).toEqual([]);
    expect(r.report.patches.slice(1).map((p) => p.build.newWarnings.length)).toEqual([0, 1, 0, 0, 0]);
    expect(r.report.patches[2]!.build.newWarnings[0]).toMatch(/lib\/bsearch\.c:\d+:\d+: warning: unused variable .searches. \[-Wunused-variable\]/);
    expect(kinds(r.report)).toEqual([
      [],
      [],
      [],
      ['checkpatch:SPACING', 'checkpatch:TRAILING_WHITESPACE'],
      // No Signed-off-by of its author: the rule, and checkpatch (which --mailback used to silence).
      ['author-signoff', 'checkpatch:MISSING_SIGN_OFF'],
      ['subject-length'],
    ]);
    expect(r.report.problems).toEqual([]);
    expect(r.report.series).toMatchObject({ version: 1, patches: 6, baseFrom: 'base-commit', cover: true });
    expect(r.report.sandbox).toMatch(buildArgs.length ? /^unsandboxed/ : /^bwrap/);
  });

  test('replies: one per patch with findings, to the author only, threaded, quoting only the hunks concerned', async () => {
    const files = fs.readdirSync(r.dir).filter((f) => f.endsWith('.eml')).sort();
    expect(files).toEqual(['0000-cover-reply.eml', '0001-reply.eml', '0003-reply.eml', '0004-reply.eml', '0005-reply.eml', '0006-reply.eml']);
    const mails = await readMailbox(r.dir);
    for (const m of mails) {
      expect(m.to.map((a) => a.address)).toEqual(['ada@example.org']);
      expect(m.cc).toEqual([]);
      expect(m.subject).toMatch(/^Re: \[PATCH \d\/6\] /);
      expect(m.body).not.toMatch(/^(Reviewed|Acked|Tested)-by:/m);
    }
    const [cover, build, warning, style] = mails;
    expect(cover!.inReplyTo).toBe('20261201.0.defects@example.org');
    expect(cover!.body.split('\n').filter((l) => l.startsWith('kseries: '))).toHaveLength(1);
    expect(build!.inReplyTo).toBe('20261201.1.defects@example.org');
    expect(build!.references).toEqual(['20261201.0.defects@example.org', '20261201.1.defects@example.org']);
    expect(build!.body).toMatch(/All errors \(new ones prefixed by >>\):\n\n>> lib\/bsearch\.c:\d+:\d+: error: implicit declaration/);
    expect(build!.body).toMatch(/^> \+\treturn bsearch_helper\(key, base, num, size, cmp\);$/m);
    expect(warning!.body).toMatch(/All warnings \(new ones prefixed by >>\):\n\n>> lib\/bsearch\.c:\d+:\d+: warning: unused variable/);
    expect(style!.body).toMatch(/^> \+\tif\(num == 0\) $/m);
    expect(style!.body).toMatch(/checkpatch\.pl ERROR:SPACING/);
    // Only the hunk concerned is quoted: patch 4 has one hunk, and nothing of the comment at the top of the file.
    expect(style!.body).not.toMatch(/binary search/);
  });
});

describe('a clean series', () => {
  test('is reported clean, with a Reviewed-by from a reply carried onto its commit, and gets no mail', async () => {
    const s = spec({
      id: 'clean',
      cover: { subject: 'lib: Two comment fixes', body: 'Two small comment fixes.' },
      patches: [
        { subject: 'lib/bsearch: Say that the array is sorted', body: `The comment should say the array must be sorted.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: 'binary search an array of elements', to: 'binary search a sorted array of elements' }] },
        { subject: 'lib/sort: Say that sort_r sorts in place', body: `Say where the result goes.\n\n${SOB}`, edits: [{ file: 'lib/sort.c', from: ' * sort_r - sort an array of elements', to: ' * sort_r - sort an array of elements in place' }] },
      ],
    });
    const reply = replyMail({ subject: '[PATCH 1/2] lib/bsearch: Say that the array is sorted', msgid: '20261201.1.clean@example.org' }, 'Rita Reviewer <rita@example.org>', '> The comment should say\n\nReviewed-by: Rita Reviewer <rita@example.org>\n');
    const { code, report, dir } = await review('clean', `${seriesMbox(s)}\n${reply}`, ...buildArgs);
    expect(report.patches.map((p) => [p.applied, p.build.status, p.build.newWarnings.length])).toEqual([[true, 'ok', 0], [true, 'ok', 0]]);
    expect(kinds(report)).toEqual([[], []]);
    expect(report.problems).toEqual([]);
    expect(report.verdict).toBe('clean');
    expect(code).toBe(0);
    expect(report.patches[0]!.trailers).toEqual(['Reviewed-by: Rita Reviewer <rita@example.org>']);
    expect(git(tree.root, 'log', '-1', '--format=%B', `${report.series.branch}~1`)).toMatch(/^Reviewed-by: Rita Reviewer <rita@example.org>$/m);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.eml'))).toEqual(['0000-cover-reply.eml']);
  });
});

describe('a proof at the patch that touches what it covers', () => {
  test('a post_handler-only kprobe added to lib/bsearch.c: the analyzer judges its site on the built object', async () => {
    const probe = [
      'NOKPROBE_SYMBOL(bsearch);',
      '',
      'static void bsearch_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)',
      '{',
      '}',
      '',
      'struct kprobe bsearch_kp = {',
      '\t.symbol_name = "bsearch",',
      '\t.post_handler = bsearch_post,',
      '};',
    ].join('\n');
    const { report } = await review('kprobe', seriesMbox(spec({
      id: 'kprobe',
      patches: [{ subject: 'lib/bsearch: Add a kprobe that counts searches', body: `Count them after each call.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: 'NOKPROBE_SYMBOL(bsearch);', to: probe }] }],
    })), ...buildArgs);
    const [p] = report.patches;
    expect(p!.build.status).toBe('ok');
    expect(p!.proofs.map((x) => [x.recipe, x.object, x.ok])).toEqual([['kprobe-post', 'lib/bsearch.o', true]]);
    // bsearch is NOKPROBE_SYMBOL: kprobes refuse the whole function, which the analyzer reads from the object.
    expect(p!.proofs[0]!.summary).toMatch(/^bsearch\+0x0: stays \(not-probeable/);
  });
});
