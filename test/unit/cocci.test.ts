// The cocci edit kind and recipe without spatch or a tree: a script's own words, spatch's diff cut per file, titles
// and #include lines from facts, and a plan whose spatch is a stub.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { MissingToolError, NoChangeError, RecipeError } from '../../src/errors.js';
import { diffFiles } from '../../src/edits/cocci.js';
import { commonPrefix, includePlace, newCalls, othersLine, titleOf } from '../../src/recipes/cocci/index.js';
import { loadRecipe, BUILTIN_RECIPES } from '../../src/recipes/load.js';
import { planSeries, type TreeServices } from '../../src/series/plan.js';
import { readManifest } from '../../src/templates/manifest.js';
import { checkSpatchOptions, readSmpl, spatchFailed } from '../../src/tools/spatch.js';

const DIFF = fs.readFileSync(path.join(__dirname, '../fixtures/cocci/spatch-output.diff'), 'utf8');

test('a script says what it does in its first /// paragraph, and names its options and virtual rules', () => {
  const s = readSmpl('x.cocci', '// SPDX-License-Identifier: GPL-2.0-only\n///\n/// Use kmemdup rather than\n/// duplicating its implementation\n///\n/// more\n// Options: --no-includes --include-headers\nvirtual patch\nvirtual context, report\n');
  expect(s.description).toBe('Use kmemdup rather than duplicating its implementation');
  expect(s.options).toEqual(['--no-includes', '--include-headers']);
  expect(s.virtuals).toEqual(['patch', 'context', 'report']);
  expect(readSmpl('y.cocci', '@@\n@@\n- a\n+ b\n').description).toBeUndefined();
  // err_cast.cocci of 6.12: an empty "// Options:" line, then "//": no option.
  expect(readSmpl('err_cast.cocci', '// Confidence: High\n// Options:\n//\n// Keywords: ERR_PTR\nvirtual patch\n').options).toEqual([]);
});

test('options that would write into the tree or move the diff are refused with the one line', () => {
  expect(() => checkSpatchOptions(['--include-headers', '-D', 'report'], 'm')).not.toThrow();
  expect(() => checkSpatchOptions(['--in-place'], 'm')).toThrow(/--in-place is set by kseries or would write into the tree/);
  expect(() => checkSpatchOptions(['--dir=/'], 'm')).toThrow(RecipeError);
});

test("spatch's diff is cut per file, with the separate changes each makes", () => {
  const files = diffFiles(DIFF);
  expect(files.map((f) => [f.file, f.sites])).toEqual([
    ['drivers/i2c/algos/i2c-algo-bit.c', 1],
    ['drivers/spi/spi-aspeed-smc.c', 3],
  ]);
  expect(files[1]!.text.startsWith('diff -u -p a/drivers/spi/spi-aspeed-smc.c')).toBe(true);
  expect(files.map((f) => f.text).join('')).toBe(DIFF.replace(/\n*$/, '\n'));
  // git's own diffs, without a diff line per file, are cut the same way.
  expect(diffFiles('--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n--- a/y.c\n+++ b/y.c\n@@ -1 +1 @@\n-c\n+d\n').map((f) => f.file)).toEqual(['x.c', 'y.c']);
});

test('titles from the script and the helpers the files now call', () => {
  const sc = { file: '/t/scripts/coccinelle/api/string_choices.cocci', description: "Find places to use string_choices.h's various helpers." };
  expect(newCalls(diffFiles(DIFF))).toEqual(['str_plural', 'str_read_write']);
  expect(titleOf(sc, ['str_plural', 'str_read_write'])).toBe('Use str_plural() and str_read_write()');
  expect(titleOf(sc, ['a', 'b', 'c'])).toBe('Use a(), b() and c()');
  expect(titleOf(sc, ['a', 'b', 'c', 'd'])).toBe("Use string_choices.h's various helpers");
  expect(titleOf({ file: 'boolconv.cocci', description: 'Remove unneeded conversion to bool' }, [])).toBe('Remove unneeded conversion to bool');
  // minmax.cocci: "Check for opencoded min(), max() implementations." says no change; the calls it adds do.
  expect(titleOf({ file: 'minmax.cocci', description: 'Check for opencoded min(), max() implementations.' }, ['max'])).toBe('Use max()');
  // A description that says no change ("Since commit ... , ...") gives no subject.
  expect(titleOf({ file: '/x/ifnulldev_put.cocci', description: 'Since commit b37a46683739 ("netdevice: add the case if dev is NULL"), NULL check before dev_{put, hold} functions is not needed.' })).toBe('Apply ifnulldev_put.cocci');
});

test('the #include a new helper needs goes where the file sorts it', () => {
  const text = '#include <linux/clk.h>\n#include <linux/spi/spi.h>\n#include <linux/spi/spi-mem.h>\n\n#define X 1\n';
  expect(includePlace(text, 'linux/string_choices.h')).toEqual({ anchor: '^#include <linux\\/spi\\/spi-mem\\.h>$', position: 'after' });
  expect(includePlace(text, 'linux/bitops.h')).toEqual({ anchor: '^#include <linux\\/clk\\.h>$', position: 'before' });
  expect(includePlace('#include "local.h"\n', 'linux/string_choices.h')).toBeUndefined();
});

/** The built-in recipe over a tree of two files, spatch stubbed with the fixture's diff. */
async function planCocci(given: Record<string, string>, diff = DIFF, extra: Partial<TreeServices> = {}, confidence = '', files: Record<string, string> = {}) {
  const base: Record<string, string> = {
    'scripts/coccinelle/api/string_choices.cocci': `/// Find places to use string_choices.h's various helpers.\n${confidence ? `// Confidence: ${confidence}\n` : ''}// Options: --no-includes --include-headers\nvirtual patch\n`,
  };
  Object.assign(base, files);
  // The files as spatch saw them: the old side of each hunk, padded to its line numbers.
  for (const f of diffFiles(diff)) {
    const lines: string[] = ['#include <linux/kernel.h>'];
    for (const m of f.text.matchAll(/^@@ -(\d+)(?:,\d+)? [^\n]*\n((?:[ +-][^\n]*\n?)*)/gm)) {
      const body = m[2]!.split('\n').filter((l) => l.startsWith(' ') || l.startsWith('-')).map((l) => l.slice(1));
      while (lines.length < Number(m[1]) - 1) lines.push('');
      lines.push(...body);
    }
    base[f.file] = `${lines.join('\n')}\n`;
  }
  const calls: string[][] = [];
  const services: TreeServices = {
    flagCandidates: async () => [],
    maintainersOf: async (file) => [file.includes('/spi/') ? 'Mark <m@spi>' : 'Wolfram <w@i2c>'],
    routeOf: async (file) => (file.includes('/spi/') ? { tree: 'broonie/spi', slug: 'spi', entry: 'SPI SUBSYSTEM', prefix: 'spi', lists: [] } : { tree: 'wsa/linux', slug: 'wsa-linux', entry: 'I2C SUBSYSTEM', prefix: 'i2c', lists: [] }),
    spatch: async (script, paths, options) => {
      calls.push([script.name, ...paths, ...options]);
      return diff;
    },
    headersOf: async (names) => new Map(names.filter((n) => n.startsWith('str_')).map((n) => [n, 'linux/string_choices.h'])),
    ...extra,
  };
  const recipe = loadRecipe('cocci', [BUILTIN_RECIPES]);
  const plan = await planSeries({ recipe, given, tree: { root: '/nonexistent', version: '6.12' }, readBase: async (f) => base[f], services });
  return { plan, calls };
}

test('generate cocci: one series per tree, one patch per group, the #include the script leaves out, spatch run once', async () => {
  const { plan, calls } = await planCocci({ script: 'tree:scripts/coccinelle/api/string_choices.cocci', paths: 'drivers/i2c,drivers/spi' });
  // Every edit asks the same question the recipe asked (generate's spatch answers it once).
  expect([...new Set(calls.map((c) => c.join(' ')))]).toEqual(['tree:scripts/coccinelle/api/string_choices.cocci drivers/i2c drivers/spi']);
  expect(plan.patches.map((p) => p.subject)).toEqual(['i2c: algo-bit: Use str_plural()', 'spi: aspeed-smc: Use str_read_write()']);
  const spi = plan.patches[1]!;
  expect(spi.changes[0]!.after).toContain('#include <linux/kernel.h>\n#include <linux/string_choices.h>\n');
  expect(spi.body).toContain('scripts/coccinelle/api/string_choices.cocci: "Find places to use');
  // The include is said of the file that got it, and only there.
  expect(spi.body.replace(/\s+/g, ' ')).toContain('Do that in drivers/spi/spi-aspeed-smc.c (3 places), as the script makes it; drivers/spi/spi-aspeed-smc.c now calls str_read_write() without including <linux/string_choices.h>, which this adds.');
  expect(plan.patches[0]!.body).not.toContain('#include');
  expect(spi.body).toMatch(/\n\nGenerated by: scripts\/coccinelle\/api\/string_choices.cocci$/);
  expect(plan.cover.body.replace(/\s+/g, ' ')).toContain('one patch per driver, 4 places in 2 files. Each patch is what the script makes of the driver\'s files, with the #include of <linux/string_choices.h> added where a file calls the helpers without it.');
  // Each cover names the other trees in one line, and has its patches' shared prefix in its subject.
  const prepared = plan.prepared as { trees: { suffix: string; others: string; coverPrefix: string }[] };
  expect(prepared.trees.map((t) => [t.suffix, t.others, t.coverPrefix])).toEqual([
    ['wsa-linux', "Other trees get series of their own: broonie/spi.", 'i2c: algo-bit'],
    ['spi', "Other trees get series of their own: wsa/linux.", 'spi: aspeed-smc'],
  ]);
});

test("a cover's subject has what its patches' prefixes share; the other trees take one line, named where they fit", () => {
  expect(commonPrefix(['wifi: ath11k', 'wifi: at76c50x'])).toBe('wifi');
  expect(commonPrefix(['wifi: iwlegacy', 'wifi: iwlegacy'])).toBe('wifi: iwlegacy');
  expect(commonPrefix(['gemini', 'r8169', 'hv_netvsc'])).toBe('');
  expect(othersLine([])).toBe(false);
  expect(othersLine(['can-next', 'wpan-next'])).toBe("Other trees get series of their own: can-next, wpan-next.");
  expect(othersLine(['netdev/net-next', 'mkl/linux-can-next', 'wpan/wpan-next', 'ath/ath', 'wireless/wireless-next'])).toBe("5 other trees get series of their own.");
});

test('a driver whose MAINTAINERS entry is orphaned (S: Orphan) is named, not sent: nobody would take its clean-up', async () => {
  const routeOf = async (file: string) =>
    file.includes('/spi/') ? { tree: 'broonie/spi', slug: 'spi', entry: 'SPI SUBSYSTEM', prefix: 'spi', lists: [] } : { tree: 'wsa/linux', slug: 'wsa-linux', entry: 'I2C ALGO BIT', status: 'Orphan', prefix: 'i2c', lists: [] };
  const { plan } = await planCocci({ script: 'tree:scripts/coccinelle/api/string_choices.cocci', paths: 'drivers/i2c,drivers/spi' }, DIFF, { routeOf });
  // One series per tree that takes a patch: the i2c driver's tree gets none.
  const prepared = plan.prepared as { notices: string[]; trees: { suffix: string; groups: { fileList: string }[] }[] };
  expect(prepared.trees.map((t) => [t.suffix, t.groups.map((g) => g.fileList)])).toEqual([['spi', ['drivers/spi/spi-aspeed-smc.c']]]);
  expect(prepared.notices).toContainEqual('I2C ALGO BIT is orphaned (S: Orphan in MAINTAINERS): 1 file left out (drivers/i2c/algos/i2c-algo-bit.c)');
});

test('a patch the lists have had already (generate --inbox) is left out and named with where it was posted', async () => {
  const asked: string[][] = [];
  const posted: TreeServices['posted'] = async (patches) => {
    asked.push(patches.flatMap((p) => p.files));
    const i = patches.findIndex((p) => p.files.includes('drivers/spi/spi-aspeed-smc.c') && p.summary === 'use str_read_write()' && p.diff.includes('+'));
    return i < 0 ? [] : [{ patch: i + 1, by: 'patch-id', subject: '[PATCH] spi: aspeed-smc: Use str_read_write()', from: 'Someone <s@example.org>', date: '2025-02-01', messageId: 'x@y', applied: { by: 'Mark Brown', messageId: 'a@y' } }];
  };
  const { plan } = await planCocci({ script: 'tree:scripts/coccinelle/api/string_choices.cocci', paths: 'drivers/i2c,drivers/spi' }, DIFF, { posted });
  expect(asked).toEqual([['drivers/i2c/algos/i2c-algo-bit.c', 'drivers/spi/spi-aspeed-smc.c']]);
  const prepared = plan.prepared as { notices: string[]; trees: { suffix: string }[] };
  expect(prepared.trees.map((t) => t.suffix)).toEqual(['wsa-linux']);
  expect(prepared.notices).toContainEqual('spi: aspeed-smc: left out, posted already: "[PATCH] spi: aspeed-smc: Use str_read_write()" by Someone <s@example.org> on 2025-02-01, <x@y>, applied (Mark Brown)');
});

test("a script of the user's goes into the message; one that changes nothing is exit 1", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-cocci-'));
  const script = path.join(dir, 'mine.cocci');
  fs.writeFileSync(script, '@@\nexpression E;\n@@\n- E ? "read" : "write"\n+ str_read_write(E)\n');
  const { plan } = await planCocci({ script, paths: 'drivers/spi' });
  expect(plan.patches[0]!.body).toContain('The semantic patch:\n\n@@\nexpression E;');
  expect(plan.patches[0]!.body).toContain('Generated by: mine.cocci');
  const none = planCocci({ script, paths: 'drivers/spi' }, '');
  await expect(none).rejects.toThrow(NoChangeError);
  await expect(none).rejects.toThrow(/spatch .*mine.cocci changes nothing in drivers\/spi/);
  expect(new NoChangeError('x', 'y').exitCode).toBe(1);
  await expect(planCocci({ script: 'tree:scripts/none.cocci' })).rejects.toThrow(/semantic patch tree:scripts\/none.cocci: the tree has no scripts\/none.cocci/);
});

test('a cocci edit in a manifest: its fields, and a script path that leaves the recipe refused', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-cocci-m-'));
  const manifest = (edit: object) => {
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ description: 'd', series: 's', params: {}, patches: [{ subject: 'x: y', body: 'b.hbs', edits: [edit] }] }));
    return readManifest(dir).patches[0]!.edits[0];
  };
  expect(manifest({ kind: 'cocci', script: 'a.cocci', paths: ['drivers/spi', '{{p}}'], options: '--include-headers' })).toEqual({ kind: 'cocci', script: 'a.cocci', paths: ['drivers/spi', '{{p}}'], options: ['--include-headers'] });
  expect(() => manifest({ kind: 'cocci' })).toThrow(/edits\[0\]\.script: must be a string/);
});

test("a script with script:ocaml rules where no OCaml compiler is installed: the package to install, not spatch's riddle", () => {
  // What Debian's spatch 1.1.1 prints for scripts/coccinelle/null/badzero.cocci without ocaml-nox.
  const out = 'No OCaml compiler found! Install either ocamlopt or ocamlopt.opt\n';
  const e = spatchFailed({ ...readSmpl('tree:scripts/coccinelle/null/badzero.cocci', 'virtual patch\n'), file: '/w/badzero.cocci' }, ['--dir', 'drivers/gpio'], out);
  expect(e).toBeInstanceOf(MissingToolError);
  expect([e.message, (e as MissingToolError).hint]).toEqual([
    'spatch tree:scripts/coccinelle/null/badzero.cocci: its script:ocaml rules need the OCaml compiler, which is not installed',
    'apt-get install ocaml-nox',
  ]);
});

test("a hunk inside #if 0 is left out and named; a script of Medium confidence has every change listed for review", async () => {
  const diff = [
    '--- a/drivers/spi/spi-x.c',
    '+++ b/drivers/spi/spi-x.c',
    '@@ -2,3 +2,3 @@',
    ' #if 0',
    '-\tpr("%s", x ? "on" : "off");',
    '+\tpr("%s", str_on_off(x));',
    ' #endif',
    '@@ -10,1 +10,1 @@',
    '-\tpr("%s", y ? "on" : "off");',
    '+\tpr("%s", str_on_off(y));',
    '',
  ].join('\n');
  const { plan } = await planCocci({ script: 'tree:scripts/coccinelle/api/string_choices.cocci', paths: 'drivers/spi' }, diff, {}, 'Medium');
  const after = plan.patches[0]!.changes[0]!.after!;
  expect(after).toContain('\tpr("%s", x ? "on" : "off");');
  expect(after).toContain('\tpr("%s", str_on_off(y));');
  expect(plan.patches[0]!.body).toContain('(1 place)');
  const text = plan.cover.body.replace(/\s+/g, ' ');
  expect(text).toContain('rates its own confidence Medium');
  expect(text).toContain('- spi: x: drivers/spi/spi-x.c:10 ');
  expect(text).toContain('Left out: what the script changes inside #if 0, which no build compiles (drivers/spi/spi-x.c:3).');
  // A series of one patch has no cover letter: the same notes go below its ---.
  expect(plan.remarks!.replace(/\s+/g, ' ')).toBe('scripts/coccinelle/api/string_choices.cocci rates its own confidence Medium: its rules do not always keep what the code did, so here is every change, to read rather than trust: drivers/spi/spi-x.c:10. Left out: what the script changes inside #if 0, which no build compiles (drivers/spi/spi-x.c:3).');
});

test("a hunk that puts a const char * helper's result into a char * is left out and named, not emitted as if clean", async () => {
  const diff = [
    '--- a/drivers/spi/spi-y.c',
    '+++ b/drivers/spi/spi-y.c',
    '@@ -2,2 +2,2 @@',
    ' \tchar *str;',
    '-\tstr = (cfg & 1) ? "enabled" : "disabled";',
    '+\tstr = str_enabled_disabled(cfg & 1);',
    '@@ -10,1 +10,1 @@',
    '-\tpr("%s", y ? "on" : "off");',
    '+\tpr("%s", str_on_off(y));',
    '',
  ].join('\n');
  const header = 'static inline const char *str_enabled_disabled(bool v)\n{\n}\nstatic inline const char *str_on_off(bool v)\n{\n}\n';
  const { plan } = await planCocci({ script: 'tree:scripts/coccinelle/api/string_choices.cocci', paths: 'drivers/spi' }, diff, {}, '', { 'include/linux/string_choices.h': header });
  const after = plan.patches[0]!.changes[0]!.after!;
  expect(after).toContain('\tstr = (cfg & 1) ? "enabled" : "disabled";');
  expect(after).toContain('str_on_off(y)');
  expect(plan.remarks!.replace(/\s+/g, ' ')).toContain('whether the variable may become const is the author\'s to judge (drivers/spi/spi-y.c:3).');
});

test('a subject stays within 75 columns: the helpers are named where they fit after the prefix, else the script says it', () => {
  const sc = { file: '/t/scripts/coccinelle/api/string_choices.cocci', description: "Find places to use string_choices.h's various helpers." };
  const calls = ['str_enabled_disabled', 'str_up_down', 'str_write_read'];
  expect(titleOf(sc, calls)).toBe('Use str_enabled_disabled(), str_up_down() and str_write_read()');
  const room = 75 - 'wifi: brcmfmac: '.length;
  expect(titleOf(sc, calls, room)).toBe("Use string_choices.h's various helpers");
  expect(titleOf(sc, ['str_on_off'], room)).toBe('Use str_on_off()');
});
