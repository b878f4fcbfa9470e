// kseries review on the real tree: series written with known defects, each found at its patch exactly; a clean series
// reported clean; the replies parsed back; the user's checkout untouched.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readMailbox } from '../../src/mail/mailbox.js';
import type { ReviewReport } from '../../src/review/review.js';
import { sandboxWorks } from '../../src/tools/sandbox.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { AUTHOR, replyMail, seriesMbox, type SeriesSpec } from '../helpers/mails.js';
import { mutate, rng } from '../helpers/mutate.js';
import { cli, git, userTree } from '../helpers/tree.js';

let tree: KernelTree;
let out: string;
let before: { head: string; status: string };
/** Builds run in the bubblewrap sandbox where it works; where it does not, the tests vouch for their own code. */
let buildArgs: string[] = [];

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

const SOB = `Signed-off-by: ${AUTHOR}`;
const LIB_TO = ['Andrew Morton <akpm@linux-foundation.org>', 'linux-kernel@vger.kernel.org'];
const CALL = 'return __inline_bsearch(key, base, num, size, cmp);';

function spec(s: Omit<SeriesSpec, 'root' | 'rev'>): SeriesSpec {
  return { root: tree.root, rev: 'HEAD', to: LIB_TO, ...s };
}

async function review(name: string, mbox: string, ...args: string[]): Promise<{ code: number; report: ReviewReport; err: string; dir: string }> {
  const file = path.join(out, `${name}.mbox`);
  fs.writeFileSync(file, mbox);
  const r = await cli(['--tree', tree.root, 'review', file, '--out', out, '--json', ...args]);
  expect(r.code === 0 || r.code === 1, r.err).toBe(true);
  const report = JSON.parse(r.out) as ReviewReport;
  const slug = fs.readdirSync(path.join(out, 'review')).find((d) => report.series.branch.includes(`/${d}/`))!;
  return { code: r.code, report, err: r.err, dir: path.join(out, 'review', slug, `v${report.series.version}`) };
}

const kinds = (r: ReviewReport) => r.patches.map((p) => [...p.problems.map((x) => x.kind), ...p.checkpatch.findings.map((f) => `checkpatch:${f.type}`)].sort());

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
      ['author-signoff'],
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

describe('series that do not apply', () => {
  test('made against another base: the hunk context exists nowhere; the later patches are not applied', async () => {
    const other = '/*\n * A file from another tree\n */\nint x;\nint y;\nint z;\n';
    const { code, report } = await review('wrong-base', seriesMbox(spec({
      id: 'wrong-base',
      cover: { subject: 'lib/bsearch: From elsewhere', body: 'Made on another tree.' },
      patches: [
        { subject: 'lib/bsearch: Change y', body: `Change y.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: 'int y;', to: 'int yy;', base: other }] },
        { subject: 'lib/bsearch: Fix a comment', body: `Fix it.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: 'binary search an array', to: 'binary search a sorted array' }] },
      ],
    })), '--no-build');
    expect(code).toBe(1);
    expect(report.patches.map((p) => p.applied)).toEqual([false, false]);
    expect(report.patches[0]!.failures).toMatchObject([{ kind: 'wrong-base', file: 'lib/bsearch.c', hunk: 1 }]);
    expect(report.patches[1]!.problems[0]!.message).toMatch(/not applied: patch 1 before it did not apply/);
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

describe('b4, recipients and bad input', () => {
  const one = () => seriesMbox(spec({
    id: 'b4',
    patches: [{ subject: 'lib/bsearch: Say that the array is sorted', body: 'No sign-off here.', edits: [{ file: 'lib/bsearch.c', from: 'binary search an array of elements', to: 'binary search a sorted array of elements' }] }],
  }));

  test("--b4-check: one message on stdin, b4's review-CI JSON out", async () => {
    const r = await cli(['--tree', tree.root, 'review', '--b4-check'], { stdin: one() });
    expect(r.code, r.err).toBe(0);
    const checks = JSON.parse(r.out) as { tool: string; status: string; summary: string; details: string }[];
    expect(checks.map((c) => [c.tool, c.status])).toEqual([['kseries', 'pass'], ['kseries', 'pass'], ['kseries', 'fail']]);
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

test('mutated mailboxes through the whole command on the real tree: exit 0, 1 or 2, never a bug', async () => {
  const seed = seriesMbox(spec({
    id: 'fuzz',
    cover: { subject: 'lib: Fuzzed', body: 'Mutated below.' },
    patches: [
      { subject: 'lib/bsearch: Say that the array is sorted', body: `Say it.\n\n${SOB}`, edits: [{ file: 'lib/bsearch.c', from: 'binary search an array of elements', to: 'binary search a sorted array of elements' }] },
      { subject: 'lib/sort: Say that sort_r sorts in place', body: `Say it.\n\n${SOB}`, edits: [{ file: 'lib/sort.c', from: ' * sort_r - sort an array of elements', to: ' * sort_r - sort an array of elements in place' }] },
    ],
  }));
  const codes: Record<number, number> = {};
  for (let run = 0; run < 30; run++) {
    const file = path.join(out, 'fuzz.mbox');
    fs.writeFileSync(file, Buffer.from(mutate(seed, rng(1000 + run)), 'latin1'));
    const r = await cli(['--tree', tree.root, 'review', file, '--no-build', '--out', out, '--json']);
    expect([0, 1, 2], `run ${run}: ${r.err}`).toContain(r.code);
    expect(r.err).not.toMatch(/internal error/);
    if (r.code === 2) expect(r.err.split('\n').filter((l) => /^(kseries|hint): /.test(l))).toHaveLength(2);
    codes[r.code] = (codes[r.code] ?? 0) + 1;
  }
  console.log(`30 mutated mailboxes through kseries review: exit codes ${JSON.stringify(codes)}`);
});
