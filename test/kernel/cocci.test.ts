// generate cocci on the real 6.12 tree with two of the tree's own semantic patches, over files of several maintainer
// trees: one series per tree, each patch built on its own (COMPILE_TEST where the driver is for another machine) and
// checkpatch clean, the emitted mails applying with git am to the series' tree, and kseries review finding nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CheckReport } from '../../src/check/report.js';
import type { ReviewReport } from '../../src/review/review.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { forgetSeries } from '../helpers/series.js';
import { amTree, cli, git, userTree } from '../helpers/tree.js';
import { X86_GCC } from '../helpers/kernels.js';

let tree: KernelTree;
let out: string;
const run = (...args: string[]) => cli(['--tree', tree.root, ...args]);

beforeAll(async () => {
  tree = await userTree();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-cocci-'));
  // An interrupted earlier run may have left these series: each test run starts at v1.
  for (const name of ['linux-gpio-intel', 'andi.shyti-linux', 'spi'].map((t) => `string_choices-${t}`)) forgetSeries(tree.root, name);
  for (const name of ['brgl-linux', 'andi.shyti-linux'].map((t) => `minmax-${t}`)) forgetSeries(tree.root, name);
});
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

/** Files chosen so that every patch builds on x86-64 (with COMPILE_TEST) and the two scripts meet five trees. */
const RUNS = [
  { script: 'tree:scripts/coccinelle/api/string_choices.cocci', paths: ['drivers/spi', 'drivers/i2c/busses/i2c-tiny-usb.c', 'drivers/gpio/gpio-wcove.c'] },
  { script: 'tree:scripts/coccinelle/misc/minmax.cocci', paths: ['drivers/i2c/busses/i2c-sprd.c', 'drivers/i2c/busses/i2c-st.c', 'drivers/gpio/gpiolib.c'] },
];

interface Generated {
  series: string;
  base: string;
  commits: { sha: string; subject: string }[];
}

const made: Generated[] = [];

test('generate cocci with two of the tree\'s scripts: one series per maintainer tree, a subject per driver and helper', async () => {
  for (const { script, paths } of RUNS) {
    const r = await run('generate', 'cocci', '--set', `script=${script}`, ...paths.flatMap((p) => ['--path', p]), '--json');
    expect(r.code, r.err).toBe(0);
    made.push(...(JSON.parse(r.out) as { series: Generated[] }).series);
  }
  expect(made.map((s) => [s.series, s.commits.map((c) => c.subject)])).toEqual([
    ['string_choices-linux-gpio-intel', ['gpio: wcove: Use str_hi_lo()']],
    ['string_choices-andi.shyti-linux', ['i2c: tiny-usb: Use str_read_write()']],
    ['string_choices-spi', ['spi: aspeed-smc: Use str_read_write()', 'spi: stm32: Use str_enabled_disabled() and str_true_false()']],
    ['minmax-brgl-linux', ['gpiolib: Use max()']],
    ['minmax-andi.shyti-linux', ['i2c: sprd: Use min()', 'i2c: st: Use min()']],
  ]);
  const message = git(tree.root, 'log', '-1', '--format=%B', made[2]!.commits[0]!.sha);
  expect(message).toContain('scripts/coccinelle/api/string_choices.cocci: "Find places');
  expect(message.replace(/\s+/g, ' ')).toContain('drivers/spi/spi-aspeed-smc.c now calls str_read_write() without including <linux/string_choices.h>, which this adds.');
  expect(git(tree.root, 'show', '--format=', made[2]!.commits[0]!.sha)).toContain('+#include <linux/string_choices.h>');
});

test('check: every patch builds on its own and checkpatch has nothing to say', async () => {
  for (const s of made) {
    const r = await run('check', s.series, '--out', out, ...X86_GCC, '--json');
    const report = JSON.parse(r.out) as CheckReport;
    expect(report.patches.map((p) => [p.subject, p.build.status, p.build.errors.length, p.checkpatch.errors + p.checkpatch.warnings + p.checkpatch.checks]), s.series).toEqual(s.commits.map((c) => [c.subject, 'ok', 0, 0]));
  }
}, 900_000);

test('emit: mails git am applies to the series tree, and review of them finds nothing', async () => {
  for (const s of made) {
    const e = await run('emit', s.series, '--out', out);
    expect(e.code, e.err).toBe(0);
    const dir = path.join(out, s.series, 'v1');
    const patches = fs.readdirSync(dir).filter((f) => f.endsWith('.patch') && !f.startsWith('0000-')).sort().map((f) => path.join(dir, f));
    expect(patches).toHaveLength(s.commits.length);
    expect(amTree(tree.root, s.base, patches), s.series).toBe(git(tree.root, 'rev-parse', `${s.commits.at(-1)!.sha}^{tree}`).trim());
    // Below each patch's ---, how check built it and what it costs: these clean-ups keep every string (issue 43).
    for (const p of patches) {
      const mail = fs.readFileSync(p, 'utf8');
      const below = mail.slice(mail.indexOf('\n---\n'), mail.indexOf('\ndiff --git')).replace(/\s+/g, ' ');
      expect(below, p).toMatch(/Built on its own \(x86_64 defconfig, gcc \+ sparse; W=1\): no new warnings\. In the x86_64 gcc build, \S+\.o: text \d+ -> \d+ \((0|[+-]\d+)\), data \d+ -> \d+ \((0|[+-]\d+)\), (the same code bytes, )?the same strings\./);
    }
    // A series of two has a cover letter naming the other trees the script changed files of.
    if (s.commits.length > 1) expect(fs.readFileSync(path.join(dir, fs.readdirSync(dir).find((f) => f.startsWith('0000-'))!), 'utf8')).toMatch(/^(Other trees get series of their own: \S+(, \S+)*|\d+ other trees get series of their own)\.$/m);
    const r = await run('review', path.join(dir, 'series.mbox'), '--no-build', '--out', path.join(out, 'review'), '--json');
    const report = JSON.parse(r.out) as ReviewReport;
    expect([report.verdict, report.patches.map((p) => [...p.problems.map((x) => x.kind), ...p.tree.map((x) => x.kind), ...p.checkpatch.findings.map((f) => f.type)])], s.series).toEqual(['clean', s.commits.map(() => [])]);
  }
}, 600_000);
