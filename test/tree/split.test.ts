// kseries split on the real 6.12 tree: one commit of ours touching files of three maintainer trees becomes three
// series, each checkpatch clean, emitted as mails that git am applies to the series' tree; the commit's own message
// goes into each patch, and each cover letter names the other trees in one line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CheckReport } from '../../src/check/report.js';
import type { ReviewReport } from '../../src/review/review.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { forgetSeries, stringChoicesCommit } from '../helpers/series.js';
import { amTree, cli, expectOneLineError, git, userTree } from '../helpers/tree.js';

let tree: KernelTree;
let out: string;
let commit: string;
const run = (...args: string[]) => cli(['--tree', tree.root, ...args]);

beforeAll(async () => {
  tree = await userTree();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-split-'));
  for (const t of ['spi', 'andi.shyti-linux', 'linux-gpio-intel']) forgetSeries(tree.root, `split-use-string-choices-helpers-${t}`);
  commit = stringChoicesCommit(tree.root);
});
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

interface Made {
  series: string;
  base: string;
  commits: { sha: string; subject: string }[];
}

test('split of a commit touching three trees: three series, a patch each, the message kept', async () => {
  const r = await run('split', commit, '--json');
  expect(r.code, r.err).toBe(0);
  const made = (JSON.parse(r.out) as { series: Made[] }).series;
  expect(made.map((s) => [s.series, s.commits.map((c) => c.subject)])).toEqual([
    ['split-use-string-choices-helpers-linux-gpio-intel', ['gpio: wcove: Use string_choices helpers']],
    ['split-use-string-choices-helpers-andi.shyti-linux', ['i2c: tiny-usb: Use string_choices helpers']],
    ['split-use-string-choices-helpers-spi', ['spi: stm32: Use string_choices helpers']],
  ]);
  for (const s of made) {
    expect(s.base).toBe(git(tree.root, 'rev-parse', `${commit}^`).trim());
    const message = git(tree.root, 'log', '-1', '--format=%B', s.commits[0]!.sha);
    expect(message).toContain('The helpers of linux/string_choices.h say the same in fewer words.');
    expect(message.match(/Signed-off-by:/g)).toHaveLength(1);
    const c = await run('check', s.series, '--no-build', '--json');
    const report = JSON.parse(c.out) as CheckReport;
    expect(report.patches.map((p) => p.checkpatch.errors + p.checkpatch.warnings), s.series).toEqual([0]);
    expect((await run('emit', s.series, '--out', out, '--force')).code).toBe(0);
    const dir = path.join(out, s.series, 'v1');
    const patches = fs.readdirSync(dir).filter((f) => /^0001-.*\.patch$/.test(f)).map((f) => path.join(dir, f));
    expect(amTree(tree.root, s.base, patches)).toBe(git(tree.root, 'rev-parse', `${s.commits[0]!.sha}^{tree}`).trim());
    const rv = await run('review', path.join(dir, 'series.mbox'), '--no-build', '--out', path.join(out, 'review'), '--json');
    expect((JSON.parse(rv.out) as ReviewReport).verdict, s.series).toBe('clean');
  }
  // Together the three series are the commit.
  const files = made.flatMap((s) => git(tree.root, 'diff', '--name-only', s.base, s.commits[0]!.sha).trim().split('\n')).sort();
  expect(files).toEqual(git(tree.root, 'diff', '--name-only', `${commit}^`, commit).trim().split('\n').sort());
});

test('--by file with a subject template and a series name', async () => {
  const r = await run('split', `${commit}^..${commit}`, '--by', 'file', '--series', 'split-by-file', '--subject', '{{prefix}}: Use str_*() helpers ({{files.length}} file)', '--json');
  expect(r.code, r.err).toBe(0);
  const made = (JSON.parse(r.out) as { series: Made[] }).series;
  expect(made.map((s) => s.commits[0]!.subject)).toEqual(['gpio: wcove: Use str_*() helpers (1 file)', 'i2c: tiny-usb: Use str_*() helpers (1 file)', 'spi: stm32: Use str_*() helpers (1 file)']);
  for (const s of made) forgetSeries(tree.root, s.series);
});

test('--worktree: the checkout\'s uncommitted change, read and left as it was', async () => {
  const file = path.join(tree.root, 'drivers/spi/spi-stm32.c');
  const before = fs.readFileSync(file, 'utf8');
  const edited = before.replace('(spi->cur_usedma) ? "enabled" : "disabled");', 'str_enabled_disabled(spi->cur_usedma));');
  fs.writeFileSync(file, edited);
  try {
    await expectOneLineError(await run('split', '--worktree', '--subject', '{{prefix}}: Use str_enabled_disabled()'), /its patches would say nothing of why/);
    const body = 'Replace the ternary operator on two string literals with the helper of <linux/string_choices.h>, which says it in one word.';
    const r = await run('split', '--worktree', '--subject', '{{prefix}}: Use str_enabled_disabled()', '--body', body, '--series', 'split-worktree', '--json');
    expect(r.code, r.err).toBe(0);
    const made = (JSON.parse(r.out) as { series: Made[] }).series;
    expect(made.map((s) => [s.series, s.commits.map((c) => c.subject)])).toEqual([['split-worktree', ['spi: stm32: Use str_enabled_disabled()']]]);
    expect(git(tree.root, 'show', '--format=', made[0]!.commits[0]!.sha)).toContain('+\t\tstr_enabled_disabled(spi->cur_usedma));');
    // The body given on the command line, wrapped at 72 columns as checkpatch wants a commit message.
    expect(git(tree.root, 'log', '-1', '--format=%b', made[0]!.commits[0]!.sha).split('\n').filter(Boolean)).toEqual([
      'Replace the ternary operator on two string literals with the helper of',
      '<linux/string_choices.h>, which says it in one word.',
      expect.stringMatching(/^Signed-off-by: /),
    ]);
    expect(fs.readFileSync(file, 'utf8')).toBe(edited);
    expect(git(tree.root, 'status', '--porcelain', '--untracked-files=no').trim()).toBe('M drivers/spi/spi-stm32.c');
    forgetSeries(tree.root, 'split-worktree');
  } finally {
    fs.writeFileSync(file, before);
  }
});

test('bad input: no commit, nothing changed, a range and --worktree together, a template that breaks', async () => {
  await expectOneLineError(await run('split'), /split needs a commit, a range A\.\.B, or --worktree/);
  await expectOneLineError(await run('split', 'HEAD..HEAD'), /changes no file/);
  await expectOneLineError(await run('split', 'HEAD', '--worktree'), /split takes a range or --worktree, not both/);
  await expectOneLineError(await run('split', commit, '--subject', '{{#if}}'), /--subject/);
});
