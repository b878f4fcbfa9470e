// kseries check on the real tree, building each patch: each kind of finding found at its patch, exactly, and nothing
// else. A clean static-key series from generate to git am is static-key.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CheckReport } from '../../src/check/report.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { cli, FIXTURE_RECIPES, git, userTree } from '../helpers/tree.js';

let tree: KernelTree;
let out: string;
const run = (...args: string[]) => cli(['--tree', tree.root, '--recipes', FIXTURE_RECIPES, ...args]);

beforeAll(async () => {
  tree = await userTree();
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-check-'));
});
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

async function checked(recipe: string, ...set: string[]): Promise<{ code: number; report: CheckReport }> {
  const g = await run('generate', recipe, ...set.flatMap((s) => ['--set', s]), '--json');
  expect(g.code, g.err).toBe(0);
  const r = await run('check', JSON.parse(g.out).series, '--out', out, '--json');
  expect(r.err).toBe('');
  return { code: r.code, report: JSON.parse(r.out) as CheckReport };
}

const clean = { errors: 0, warnings: 0, checks: 0, findings: [] };

describe('each finding at its patch, nothing else', () => {
  test('a patch that breaks the build is reported even though the next one repairs it', async () => {
    const { code, report } = await checked('break-repair');
    expect(code).toBe(1);
    expect(report.failed).toBe(true);
    expect(report.patches.map((p) => p.build.status)).toEqual(['ok', 'failed', 'ok']);
    expect(report.patches[1]!.build.errors[0]).toMatch(/^lib\/bcd\.c:\d+:\d+: error: .BCD_TENS_MULTIPLER. undeclared/);
    expect(report.patches.map((p) => p.build.objects)).toEqual([['lib/bcd.o'], ['lib/bcd.o'], ['lib/bcd.o']]);
    for (const p of report.patches) {
      expect(p.build.newWarnings).toEqual([]);
      expect(p.checkpatch).toEqual(clean);
      expect(p.problems).toEqual([]);
    }
    expect(report.problems).toEqual([]);
  });

  test('a new W=1 warning is reported the way the test robot shows it, matched by message not line', async () => {
    const { code, report } = await checked('new-warning');
    expect(code).toBe(0);
    expect(report.verdict).toBe('findings');
    const [p] = report.patches;
    expect(p!.build.status).toBe('ok');
    // gcc's warning; clang's of the same -W option at the same line is not told again; sparse says it its way.
    expect(p!.build.newWarnings).toEqual([
      expect.stringMatching(/^lib\/bcd\.c:\d+:\d+: warning: no previous prototype for .bcd_byte_is_valid. \[-Wmissing-prototypes\]$/),
      ...(report.compiler.endsWith('+ sparse') ? [expect.stringMatching(/^lib\/bcd\.c:\d+:\d+: warning: symbol 'bcd_byte_is_valid' was not declared\. Should it be static\?$/)] : []),
    ]);
    expect(p!.checkpatch).toEqual(clean);
    expect(p!.problems).toEqual([]);
  });

  test('a checkpatch ERROR fails its patch, parsed into level, type, file and line', async () => {
    const { code, report } = await checked('checkpatch-error');
    expect(code).toBe(1);
    const [p] = report.patches;
    expect(p!.build.status).toBe('ok');
    expect(p!.build.newWarnings).toEqual([]);
    expect(p!.checkpatch).toEqual({
      errors: 1,
      warnings: 0,
      checks: 0,
      findings: [{ level: 'error', type: 'TRAILING_WHITESPACE', file: 'lib/bcd.c', line: 4, message: 'trailing whitespace' }],
    });
    expect(p!.problems).toEqual([]);
  });

});

describe('what is built', () => {
  test('a header change builds a reported sample of its dependents; a patch without C is skipped, saying why', async () => {
    const { code, report } = await checked('bcd-cleanup', 'suffix=-check');
    expect(code).toBe(0);
    const [p1, p2, p3] = report.patches;
    expect(p1!.build.status).toBe('ok');
    // lib/bcd.c itself, and a sample of 3 objects that depend on <linux/bcd.h> (which may be lib/bcd.o again,
    // when an earlier build's .cmd file already names it).
    expect(p1!.build.objects).toContain('lib/bcd.o');
    expect(p1!.build.objects.length).toBeGreaterThanOrEqual(3);
    expect(p1!.build.objects.length).toBeLessThanOrEqual(4);
    for (const o of p1!.build.objects) expect(git(tree.root, 'ls-files', o.replace(/\.o$/, '.c')).trim()).toBe(o.replace(/\.o$/, '.c'));
    expect(p1!.build.note).toMatch(/^include\/linux\/bcd\.h: built 3 of its dependents \(\d+ files include it; --full builds every dependent\)$/);
    expect(p2!.build.objects).toEqual(['lib/bcd.o']);
    expect(p3!.build).toMatchObject({ status: 'skipped', objects: [], note: 'touches no C or assembly file' });
    expect(p3!.checkpatch.findings.map((f) => f.type)).toEqual(['FILE_PATH_CHANGES']);
  });

  test('an object no build here can make is reported as not build-tested, with each reason', async () => {
    // sunsu.c builds on SPARC only, and CI installs no sparc cross compiler (a machine that has one builds it).
    const { code, report } = await checked('not-buildable');
    expect(code).toBe(0);
    expect(report.patches[0]!.build).toMatchObject({
      status: 'skipped',
      objects: [],
      notBuilt: [
        {
          object: 'drivers/tty/serial/sunsu.o',
          reason:
            'x86_64: CONFIG_SERIAL_SUNSU needs SPARC (drivers/tty/serial/Kconfig); it builds on sparc, for which no cross compiler is installed (gcc-sparc64-linux-gnu)',
        },
      ],
    });
    expect(report.verdict).toBe('findings');
  });
});

describe('report.json and emit', () => {
  test('check writes report.json beside the series; emit refuses a failed check unless --force', async () => {
    const dir = path.join(out, 'checkpatch-error', 'v1');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8')).failed).toBe(true);
    const refused = await run('emit', 'checkpatch-error', '--out', out);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^kseries: the last check of this series failed/);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.patch'))).toEqual([]);
    expect((await run('emit', 'checkpatch-error', '--out', out, '--force')).code).toBe(0);
  });

  test('--range checks any commits of the tree through the same code', async () => {
    const tip = 'kseries/break-repair/v1';
    const r = await run('check', '--range', `${tip}~3..${tip}`, '--json');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out) as CheckReport;
    expect(report.patches.map((p) => p.build.status)).toEqual(['ok', 'failed', 'ok']);
    // Commits are not mail: a range of three needs no cover letter.
    expect(report.problems).toEqual([]);
    expect(git(tree.root, 'status', '--porcelain')).toBe('');
  });
});
