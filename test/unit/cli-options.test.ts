// Option values are checked where the options are declared (the yargs table of src/cli/main.ts): a bad one is refused
// with the option's name, exit 2, one line and a hint, before any tree is opened. Also: a --path that names nothing in
// the tree (a tiny git tree made here), and a recipe folder holding one broken recipe.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { cli as runCli, expectOneLineError } from '../helpers/cli.js';

/** No tree here: a check that lets a bad value through meets "no kernel tree" instead, which names no option. */
const NO_TREE = path.join(os.tmpdir(), 'kseries-no-such-tree');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-options-'));

const cli = (args: string[], cwd?: string, recipes = '') => runCli(args, { cwd, env: { ...process.env, KSERIES_TREE: NO_TREE, KSERIES_RECIPES: recipes } });

/** Exit 2, `kseries: <message>` then `hint: <hint>`, no stack trace. */
async function expectRefused(args: string[], message: RegExp, cwd?: string): Promise<string> {
  return expectOneLineError(await cli(args, cwd), message);
}

let files: { config: string; kunit: string; dir: string };

beforeAll(() => {
  const dir = tmp();
  files = { config: path.join(dir, 'my.config'), kunit: path.join(dir, '.kunitconfig'), dir };
  fs.writeFileSync(files.config, 'CONFIG_64BIT=y\n');
  fs.writeFileSync(files.kunit, 'CONFIG_KUNIT=y\n');
});

describe('a bad option value is refused at parse time, naming the option', () => {
  const version = /-v\/--series-version/;
  test.each<[string, string[], RegExp]>([
    ['generate -v abc', ['generate', 'static-key', '-v', 'abc'], /-v\/--series-version abc: not a positive integer/],
    ['generate -v 1.5', ['generate', 'static-key', '-v', '1.5'], /-v\/--series-version 1\.5: not a positive integer/],
    ['generate -v -3', ['generate', 'static-key', '-v', '-3'], /-v\/--series-version -3: not a positive integer/],
    ['generate -v 0', ['generate', 'static-key', '-v', '0'], version],
    ['generate -v 0x10', ['generate', 'static-key', '-v', '0x10'], version],
    ['generate -v 1e3', ['generate', 'static-key', '-v', '1e3'], version],
    ['generate -v with no value', ['generate', 'static-key', '-v'], /-v\/--series-version needs a value/],
    ['generate -v twice', ['generate', 'static-key', '-v', '1', '-v', '2'], /-v\/--series-version given 2 times \(1, 2\)/],
    ['generate --series-version abc', ['generate', 'static-key', '--series-version', 'abc'], version],
    ['emit -v abc', ['emit', 'some-series', '-v', 'abc'], version],
    ['send -v abc', ['send', 'some-series', '-v', 'abc'], version],
    ['check -v abc', ['check', 'some-series', '-v', 'abc'], version],
    ['check --series-version 2.0', ['check', '--series-version', '2.0'], version],
    ['send --smtp-port abc', ['send', '--smtp-port', 'abc'], /--smtp-port abc: not a port number/],
    ['send --smtp-port 0', ['send', '--smtp-port', '0'], /--smtp-port 0: not a port number/],
    ['send --smtp-port 65536', ['send', '--smtp-port', '65536'], /--smtp-port 65536: not a port number/],
    ['send --smtp-port 25.5', ['send', '--smtp-port', '25.5'], /--smtp-port 25\.5: not a port number/],
    ['send --smtp-port -1', ['send', '--smtp-port=-1'], /--smtp-port -1: not a port number/],
    ['send --smtp-encryption starttls', ['send', '--smtp-encryption', 'starttls'], /--smtp-encryption "starttls": not one of none, ssl, tls/],
    ['send --smtp-server given twice', ['send', '--smtp-server', 'a', '--smtp-server', 'b'], /--smtp-server given 2 times/],
    ['generate --config nosuch', ['generate', 'static-key', '--config', 'nosuch'], /--config nosuch: neither defconfig, allmodconfig nor a file/],
    ['generate --config of a folder', ['generate', 'static-key', '--config', os.tmpdir()], /--config \S+: neither defconfig/],
    ['check --config nosuch', ['check', '--config', 'nosuch.config'], /--config nosuch\.config: neither defconfig/],
    ['check --config given twice', ['check', '--config', 'defconfig', '--config', 'allmodconfig'], /--config given 2 times/],
    ['kprobe --config nosuch', ['kprobe', 'analyze', '--object', 'mm/slub.o', '--all', 'f', '--config', 'nosuch'], /--config nosuch: neither/],
    ['check --kunit nosuch', ['check', '--kunit', 'nosuch/.kunitconfig'], /--kunit nosuch\/\.kunitconfig: no such \.kunitconfig/],
    ['check --kunit of a folder without one', ['check', '--kunit', os.tmpdir()], /--kunit \S+: no such \.kunitconfig/],
    ['check --range without ..', ['check', '--range', 'v6.12'], /--range v6\.12: not base\.\.tip/],
    ['check --range and a series', ['check', 'some-series', '--range', 'a..b'], /--range checks commits, not a series: series some-series would be ignored/],
    ['check --range and -v', ['check', '--range', 'a..b', '-v', '2'], /--range checks commits, not a series: -v would be ignored/],
    ['check --range and --out', ['check', '--range', 'a..b', '--out', 'o'], /--range checks commits, not a series: --out would be ignored/],
    ['emit --out given twice', ['emit', '--out', 'a', '--out', 'b'], /--out given 2 times \(a, b\)/],
    ['emit --out ""', ['emit', '--out', ''], /--out needs a value, not ""/],
    ['emit --subject-prefix with no value', ['emit', '--subject-prefix'], /--subject-prefix needs a value/],
    ['scan --rev given twice', ['scan', 'static-keys', '--rev', 'a', '--rev', 'b'], /--rev given 2 times/],
    ['scan --path outside the tree', ['scan', 'static-keys', '--path', '../etc'], /--path: "\.\.\/etc" is not a path inside the kernel tree/],
    ['generate --path into .git', ['generate', 'static-keys', '--path', '.git/hooks'], /--path: "\.git\/hooks" points into \.git/],
    ['--tree given twice', ['--tree', 'a', '--tree', 'b', 'series'], /--tree given 2 times/],
    ['--recipes nosuch', ['--recipes', 'no-such-recipe-folder', 'recipes'], /--recipes no-such-recipe-folder: no such folder/],
    ['tree init --from nosuch', ['tree', 'init', '--from', '/nonexistent/linux'], /--from \/nonexistent\/linux: no such folder/],
    ['tree frob', ['tree', 'frob'], /action "frob": not one of init, show/],
    ['scan with an unknown --flag', ['scan', 'static-keys', '--paths', 'mm'], /Unknown argument: paths/],
    ['measure --config allmodconfig', ['measure', '--config', 'allmodconfig'], /--config allmodconfig: neither minimal, defconfig nor a file/],
    ['measure --workload nosuch', ['measure', '--workload', 'nosuch'], /--workload "nosuch": not one of boot, default/],
    ['scan --measure --config nosuch', ['scan', 'static-keys', '--measure', '--config', 'nosuch'], /--config nosuch: neither minimal/],
    ['generate --min-rate abc', ['generate', 'static-keys', '--min-rate', 'abc'], /--min-rate abc: not a rate/],
    ['generate --min-rate -5', ['generate', 'static-keys', '--min-rate=-5'], /--min-rate -5: not a rate/],
    ['generate --min-rate 2.5', ['generate', 'static-keys', '--min-rate', '2.5'], /--min-rate 2\.5: not a rate/],
    ['check --boot nosuch', ['check', '--boot', 'nosuch.config'], /--boot nosuch\.config: neither minimal, defconfig nor a file/],
  ])('%s', async (_what, args, message) => {
    await expectRefused(args, message);
  });
});

describe('a good option value passes to the command (which then finds no tree)', () => {
  test.each<[string, string[]]>([
    ['generate -v 3', ['generate', 'static-key', '--set', 'file=mm/a.c', '--set', 'flag=f', '-v', '3']],
    ['emit --series-version 12', ['emit', 'some-series', '--series-version', '12']],
    ['send with SMTP options', ['send', '--smtp-server', 'localhost', '--smtp-port', '587', '--smtp-encryption', 'tls', '-v', '1']],
    ['send --smtp-encryption none', ['send', '--smtp-encryption', 'none']],
    ['check --config allmodconfig --no-kunit', ['check', '--config', 'allmodconfig', '--no-kunit']],
    ['check --range', ['check', '--range', 'a..b']],
    ['scan --path', ['scan', 'static-keys', '--path', 'mm/', '--path', 'kernel/sched']],
    ['measure --config defconfig --workload boot', ['measure', '--config', 'defconfig', '--workload', 'boot', '--fresh']],
    ['scan --measure', ['scan', 'static-keys', '--measure', '--workload', 'default']],
    ['generate --min-rate 250', ['generate', 'static-keys', '--min-rate', '250', '--workload', 'boot']],
    ['check --no-boot', ['check', '--no-boot']],
    ['check --boot defconfig', ['check', '--boot', 'defconfig']],
  ])('%s', async (_what, args) => {
    await expectRefused(args, /no kernel tree at .*kseries-no-such-tree/);
  });

  test('--config and --kunit of files relative to the working directory', async () => {
    await expectRefused(['check', '--config', 'my.config', '--kunit', '.kunitconfig'], /no kernel tree/, files.dir);
    await expectRefused(['check', '--kunit', '.'], /no kernel tree/, files.dir);
    await expectRefused(['generate', 'static-key', '--set', 'file=mm/a.c', '--set', 'flag=f', '--config', files.config], /no kernel tree/);
  });
});

/** A tree kseries accepts (a top Makefile with a version, scripts/checkpatch.pl, git) holding one flag in mm/. */
function tinyTree(): string {
  const root = fs.realpathSync(tmp());
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  write('Makefile', 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n');
  write('scripts/checkpatch.pl', '#!/usr/bin/perl\n');
  write('MAINTAINERS', '');
  write('mm/flags.c', [
    'static bool tiny_enabled;',
    'static int __init tiny_setup(char *s)',
    '{',
    '\ttiny_enabled = true;',
    '\treturn 1;',
    '}',
    '__setup("tiny", tiny_setup);',
    '',
    'int tiny(void)',
    '{',
    '\tif (tiny_enabled)',
    '\t\treturn 1;',
    '\treturn 0;',
    '}',
    '',
  ].join('\n'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  git('init', '-q');
  git('add', '.');
  git('commit', '-q', '-m', 'base');
  // In the working tree only: at HEAD there is no drivers/.
  write('drivers/new.c', 'int x;\n');
  return root;
}

describe('--path must name a folder or .c file of the tree', () => {
  let tree: string;
  beforeAll(() => {
    tree = tinyTree();
  });
  const scan = (...args: string[]) => cli(['--tree', tree, 'scan', 'static-keys', ...args]);

  test.each<[string, string[], RegExp]>([
    ['in the working tree', ['--path', 'nosuch'], /--path nosuch: no such folder or file in \//],
    ['at --rev', ['--rev', 'HEAD', '--path', 'nosuch'], /--path nosuch: no such folder or file at commit [0-9a-f]{12}/],
    ['at --rev, where only the working tree has it', ['--rev', 'HEAD', '--path', 'drivers'], /--path drivers: no such folder or file at commit/],
    ['a file that is not C', ['--path', 'Makefile'], /--path Makefile: not a folder or a \.c file/],
  ])('scan: a path that names nothing %s is refused', async (_what, args, message) => {
    await expectRefused(['--tree', tree, 'scan', 'static-keys', ...args], message);
  });

  test('scan: a folder and a .c file are scanned, in the working tree and at --rev', async () => {
    for (const args of [['--path', 'mm'], ['--path', 'mm/flags.c'], ['--rev', 'HEAD', '--path', 'mm'], ['--rev', 'HEAD', '--path', 'mm/flags.c'], ['--path', 'drivers']]) {
      const r = await scan(...args, '--json');
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0);
      const files = (JSON.parse(r.out) as { candidates: { file: string }[] }).candidates.map((c) => c.file);
      expect(files).toEqual(args.includes('drivers') ? [] : ['mm/flags.c']);
    }
  });

  test('generate static-keys: the same check, at the base commit', async () => {
    await expectRefused(['--tree', tree, 'generate', 'static-keys', '--path', 'nosuch', '--no-build'], /--path nosuch: no such folder or file at commit/);
    expect(execFileSync('git', ['branch', '--list', 'kseries/*'], { cwd: tree, encoding: 'utf8' })).toBe('');
  });
});

describe('kseries recipes with a broken user recipe', () => {
  let folder: string;
  beforeAll(() => {
    folder = tmp();
    const manifest = {
      description: 'a good one',
      series: 'good',
      cover: { subject: 'x: y', template: 'c.hbs' },
      patches: [{ subject: 'x: y', body: 'b.hbs', edits: [{ kind: 'new-file', file: 'f', template: 't.hbs' }] }],
    };
    for (const [id, text] of [['good', JSON.stringify(manifest)], ['bad-json', '{ nope'], ['no-patches', JSON.stringify({ ...manifest, patches: [] })]]) {
      fs.mkdirSync(path.join(folder, id!));
      fs.writeFileSync(path.join(folder, id!, 'manifest.json'), text!);
    }
  });

  test('the others are listed, each broken one on stderr with its error, exit 0', async () => {
    const r = await cli(['--recipes', folder, 'recipes']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^good — a good one$/m);
    expect(r.out).toMatch(/^static-key — /m);
    expect(r.out).not.toMatch(/bad-json|no-patches/);
    expect(r.err.split('\n')).toEqual([
      expect.stringMatching(/^broken: bad-json: .*bad-json\/manifest\.json: not valid JSON/),
      expect.stringMatching(/^broken: no-patches: .*no-patches\/manifest\.json: patches: must be a non-empty list$/),
    ]);
  });

  test('the same from $KSERIES_RECIPES, and in --json under "broken"', async () => {
    const r = await cli(['recipes', '--json'], undefined, folder);
    expect(r.code).toBe(0);
    const listing = JSON.parse(r.out) as { recipes: { id: string }[]; broken: { id: string; error: string }[] };
    expect(listing.recipes.map((r) => r.id)).toContain('good');
    expect(listing.broken.map((b) => b.id)).toEqual(['bad-json', 'no-patches']);
  });

  test('naming the broken recipe is its error, exit 2', () => expectRefused(['--recipes', folder, 'recipes', 'bad-json'], /bad-json\/manifest\.json: not valid JSON/));
});
