// Bad input: one line naming the problem, one hint, exit code 2, no stack, no series branch, the checkout untouched.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { KernelTree } from '../../src/tree/tree.js';
import { snapshot, type Snapshot } from '../helpers/snapshot.js';
import { cli, expectOneLineError, FIXTURE_RECIPES, git, userTree, withOnlyGit } from '../helpers/tree.js';

let tree: KernelTree;
let before: Snapshot;
let branchesBefore: string;
const branches = () => git(tree.root, 'branch', '--list', 'kseries/*');

beforeAll(async () => {
  tree = await userTree();
  before = snapshot(tree.root, ['lib/bcd.c', 'mm/memcontrol.c']);
  branchesBefore = branches();
});

afterAll(() => {
  git(tree.root, 'branch', '-q', '-D', 'kseries/bcd-cleanup-bad/v1');
  expect(snapshot(tree.root, ['lib/bcd.c', 'mm/memcontrol.c'])).toEqual(before);
  expect(branches()).toBe(branchesBefore);
});

async function expectUserError(args: string[], message: RegExp, opts: { tree?: boolean } = {}) {
  return expectOneLineError(await cli([...(opts.tree === false ? [] : ['--tree', tree.root]), '--recipes', FIXTURE_RECIPES, ...args]), message);
}

describe('recipes and parameters', () => {
  test('unknown recipe', () => expectUserError(['generate', 'no-such-recipe'], /unknown recipe "no-such-recipe"/));
  test('a parameter of the wrong type', () =>
    expectUserError(['generate', 'static-key', '--set', 'file=mm/memcontrol.c', '--set', 'flag=1nope'], /parameter "flag" .*"1nope" is not a C identifier/));
  test('an integer parameter that is not one', () => expectUserError(['generate', 'bcd-cleanup', '--set', 'max_value=lots'], /"max_value" .*not an integer/));
  test('an unknown parameter', () => expectUserError(['generate', 'static-key', '--set', 'colour=blue'], /has no parameter "colour"/));
  test('a missing parameter', () => expectUserError(['generate', 'static-key', '--set', 'file=mm/memcontrol.c'], /needs parameter "flag"/));
  test('--set without =', () => expectUserError(['generate', 'static-key', '--set', 'flag'], /expected key=value/));
  test('a path parameter outside the tree', () =>
    expectUserError(['generate', 'static-key', '--set', 'file=../../etc/passwd', '--set', 'flag=x'], /not a path inside the kernel tree/));
  test('a file that does not exist', () =>
    expectUserError(['generate', 'static-key', '--set', 'file=mm/nope.c', '--set', 'flag=x'], /mm\/nope.c does not exist/));
  test('a flag the transform cannot convert names the line', () =>
    expectUserError(['generate', 'static-key', '--set', 'file=mm/memcontrol.c', '--set', 'flag=cgroup_memory_nokmem'], /mm\/memcontrol.c:124: .*outside a branch condition/));
});

describe('templates and edits', () => {
  test('a template syntax error names the file and line', () => expectUserError(['generate', 'broken-template'], /broken-template\/msg\.hbs:5: template syntax error: a block is not closed/));
  test('an unknown variable names the file, line and variable', () =>
    expectUserError(['generate', 'unknown-variable'], /unknown-variable\/msg\.hbs:3: unknown variable "nmae"/));
  test('a diff that does not apply names the hunk and the line it expected', () =>
    expectUserError(['generate', 'broken-diff'], /broken-diff: patches\[1\]\.edits\[0\] \(stale\.diff\.hbs\): hunk 1 \(@@ -5,5 \+5,5 @@\) does not apply to lib\/bcd\.c: no match for "unsigned _bcd2bin\(unsigned char val\)" near line 5/));
  test('a diff that reaches outside the tree', () => expectUserError(['generate', 'escape-tree'], /not a path inside the kernel tree/));
});

describe('options', () => {
  test('a series version that is not a positive integer makes no branch', async () => {
    for (const v of ['abc', '1.5', '-3']) await expectUserError(['generate', 'bcd-cleanup', '--set', 'suffix=-bad', '-v', v], /-v\/--series-version \S+: not a positive integer/);
  });
  test('a --path that names nothing in the tree', () => expectUserError(['scan', 'static-keys', '--path', 'nosuch'], /--path nosuch: no such folder or file in /));
  test('a --path that names nothing at --rev', () => expectUserError(['scan', 'static-keys', '--rev', 'HEAD', '--path', 'mm/nosuch'], /--path mm\/nosuch: no such folder or file at commit/));
  test('generate static-keys --path that names nothing at the base', () =>
    expectUserError(['generate', 'static-keys', '--path', 'nosuch', '--no-build'], /--path nosuch: no such folder or file at commit/));
});

describe('environment', () => {
  test('no kernel tree', () => expectUserError(['--tree', '/nonexistent/linux', 'generate', 'static-key'], /no kernel tree at \/nonexistent\/linux/, { tree: false }));
  test('a directory that is not a kernel tree', () => expectUserError(['--tree', os.tmpdir(), 'series'], /not the top of a Linux source tree/, { tree: false }));
  test('an unknown series', () => expectUserError(['emit', 'never-generated'], /no series never-generated/));
  test('an unwritable out/', async () => {
    expect((await cli(['--tree', tree.root, '--recipes', FIXTURE_RECIPES, 'generate', 'bcd-cleanup', '--set', 'suffix=-bad'])).code).toBe(0);
    await expectUserError(['emit', 'bcd-cleanup-bad', '--out', '/dev/null/out'], /cannot write \/dev\/null\/out/);
  });
  test('a missing program (perl) names its Debian package', () =>
    withOnlyGit(async () => {
      const line = await expectUserError(['emit', 'bcd-cleanup-bad', '--out', os.tmpdir()], /perl is not installed/);
      expect(line).toBe('kseries: perl is not installed');
    }));
  test('an unknown command', () => expectUserError(['frobnicate'], /Unknown argument: frobnicate|Unknown command/));
});

describe('semantic patches (generate cocci)', () => {
  const script = (text: string) => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-smpl-')), 'mine.cocci');
    fs.writeFileSync(file, text);
    return file;
  };
  test('a script spatch cannot parse: its error and the script\'s line', () =>
    expectUserError(['generate', 'cocci', '--set', `script=${script('@@\nexpression E;\n@@\n- foo(E\n+ bar(E)\n')}`, '--path', 'lib/bcd.c'], /spatch failed on .*mine\.cocci:\d+: .*parse error/));
  test('spatch missing names its Debian package', () =>
    withOnlyGit(async () => {
      const r = await cli(['--tree', tree.root, 'generate', 'cocci', '--set', 'script=tree:scripts/coccinelle/misc/minmax.cocci', '--path', 'lib/bcd.c']);
      expect(expectOneLineError(r, /spatch is not installed/)).toBe('kseries: spatch is not installed');
      expect(r.err).toContain('coccinelle');
    }));
  test('a script that changes nothing: one line, exit 1', async () => {
    const r = await cli(['--tree', tree.root, 'generate', 'cocci', '--set', 'script=tree:scripts/coccinelle/misc/boolconv.cocci', '--path', 'lib/bcd.c']);
    expect(r.code).toBe(1);
    expect(r.err.split('\n')[0]).toBe('kseries: spatch tree:scripts/coccinelle/misc/boolconv.cocci changes nothing in lib/bcd.c');
  });
});
