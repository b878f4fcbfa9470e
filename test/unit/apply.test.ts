import { expect, test } from 'vitest';
import { ApplyError } from '../../src/errors.js';
import { applyEdit, type RenderedEdit } from '../../src/edits/apply.js';
import { FileOverlay } from '../../src/edits/overlay.js';

const BASE: Record<string, string> = {
  'lib/a.c': ['#include <linux/a.h>', '', 'int a(void)', '{', '\treturn 1;', '}', ''].join('\n'),
};

function overlay() {
  return new FileOverlay(async (f) => BASE[f]);
}

const diff = (oldStart: number, context: string) =>
  ['--- a/lib/a.c', '+++ b/lib/a.c', `@@ -${oldStart},5 +${oldStart},5 @@`, ` ${context}`, ' int a(void)', ' {', '-\treturn 1;', '+\treturn 2;', ' }', ''].join('\n');

test('a unified diff applies, and a hunk whose line numbers are off still applies', async () => {
  for (const start of [2, 40]) {
    const files = overlay();
    await applyEdit(files, { kind: 'diff', source: 's', diff: diff(start, '') });
    expect(files.changes()).toEqual([{ file: 'lib/a.c', before: BASE['lib/a.c'], after: BASE['lib/a.c']!.replace('return 1', 'return 2') }]);
  }
});

test('a diff that does not apply names the hunk and what it expected', async () => {
  const bad = diff(2, '').replace('-\treturn 1;', '-\treturn 7;');
  await expect(applyEdit(overlay(), { kind: 'diff', source: 'r: e', diff: bad })).rejects.toThrow(
    /^r: e: hunk 1 \(@@ -2,5 \+2,5 @@\) does not apply to lib\/a\.c: no match for "" near line 2$/,
  );
});

test('hunk counts are recounted as git apply --recount does; a line no hunk can hold names its hunk', async () => {
  // Hand-written: wrong counts, and the blank context line an editor stripped of its space.
  const wrong = ['--- a/lib/a.c', '+++ b/lib/a.c', '@@ -1,2 +1,9 @@', ' #include <linux/a.h>', '', ' int a(void)', ' {', '-\treturn 1;', '+\treturn 2;', ' }', ''].join('\n');
  const files = overlay();
  await applyEdit(files, { kind: 'diff', source: 's', diff: wrong });
  expect(await files.read('lib/a.c')).toBe(BASE['lib/a.c']!.replace('return 1', 'return 2'));
  // git format-patch ends a mail with a signature: "-- " and git's version (58 of 175 real patches tried had one).
  const mailed = `${wrong}-- \n2.39.5\n\n`;
  const signed = overlay();
  await applyEdit(signed, { kind: 'diff', source: 's', diff: mailed });
  expect(await signed.read('lib/a.c')).toBe(BASE['lib/a.c']!.replace('return 1', 'return 2'));
  // The shape of issue 22: a template line that lost its leading space.
  const broken = wrong.replace(' }', ')');
  await expect(applyEdit(overlay(), { kind: 'diff', source: 'r: e', diff: broken })).rejects.toThrow(
    /^r: e: hunk 1 \(@@ -1,2 \+1,9 @@\), line 7: "\)" starts with none of ' ', '-', '\+'$/,
  );
});

test('a diff may create a file, but not one that exists', async () => {
  const create = ['--- /dev/null', '+++ b/lib/new.c', '@@ -0,0 +1 @@', '+new', ''].join('\n');
  const files = overlay();
  await applyEdit(files, { kind: 'diff', source: 's', diff: create });
  expect(await files.read('lib/new.c')).toBe('new\n');
  await expect(applyEdit(files, { kind: 'diff', source: 's', diff: create })).rejects.toThrow(/already exists/);
});

test.each(['../x.c', '/etc/passwd', 'a/../../x'])('no edit may leave the tree: %s', async (file) => {
  const edits: RenderedEdit[] = [
    { kind: 'new-file', source: 's', file, text: 'x' },
    { kind: 'insert', source: 's', file, anchor: 'x', regex: false, position: 'after', text: 'y' },
    { kind: 'diff', source: 's', diff: ['--- /dev/null', `+++ b/${file}`, '@@ -0,0 +1 @@', '+x', ''].join('\n') },
  ];
  for (const e of edits) await expect(applyEdit(overlay(), e)).rejects.toThrow(ApplyError);
});

test('an insert goes before, after or instead of the one line its anchor matches', async () => {
  const lines = BASE['lib/a.c']!.split('\n');
  const cases = [
    ['before', ['#include <linux/b.h>', ...lines]],
    ['after', [lines[0], '#include <linux/b.h>', ...lines.slice(1)]],
    ['replace', ['#include <linux/b.h>', ...lines.slice(1)]],
  ] as const;
  for (const [position, expected] of cases) {
    const files = overlay();
    await applyEdit(files, { kind: 'insert', source: 's', file: 'lib/a.c', anchor: '^#include <linux/a\\.h>$', regex: true, position, text: '#include <linux/b.h>\n' });
    expect(await files.read('lib/a.c')).toBe(expected.join('\n'));
  }
});

test('an anchor must match exactly one line', async () => {
  const e = (anchor: string): RenderedEdit => ({ kind: 'insert', source: 's', file: 'lib/a.c', anchor, regex: false, position: 'after', text: 'x' });
  await expect(applyEdit(overlay(), e('nowhere'))).rejects.toThrow(/matches 0 lines/);
  await expect(applyEdit(overlay(), e('a'))).rejects.toThrow(/matches 3 lines of lib\/a\.c \(lines 1, 3, 4\)|matches \d+ lines/);
});

test('within names the block (a function) where the anchor is looked for, up to its closing brace', async () => {
  const text = ['int a(void)', '{', 'out:', '\treturn 0;', '}', '', 'int b(void)', '{', 'out:', '\treturn 1;', '}', ''].join('\n');
  const files = new FileOverlay(async (f) => (f === 'lib/c.c' ? text : undefined));
  type Insert = Extract<RenderedEdit, { kind: 'insert' }>;
  const e = (within: string): Insert => ({ kind: 'insert', source: 's', file: 'lib/c.c', anchor: '^out:$', regex: true, position: 'after', text: '\tx();', within });
  await expect(applyEdit(files, { ...e('^int b'), within: undefined })).rejects.toThrow(/anchor "\^out:\$" matches 2 lines of lib\/c\.c \(lines 3, 9\)/);
  await applyEdit(files, e('^int b\\(void\\)$'));
  expect((await files.read('lib/c.c'))!.split('\n').slice(6, 11)).toEqual(['int b(void)', '{', 'out:', '\tx();', '\treturn 1;']);
  await expect(applyEdit(files, e('^int c'))).rejects.toThrow(/block "\^int c" matches 0 lines of lib\/c\.c/);
  const missing = applyEdit(files, { ...e('^int a'), anchor: '^err:$' }).catch((x: ApplyError) => `${x.message} / ${x.hint}`);
  await expect(missing).resolves.toMatch(/anchor "\^err:\$" in that block matches 0 lines of lib\/c\.c \/ the tree's lib\/c\.c differs from the code this recipe was written for/);
});

test('new files get a final newline and must not exist', async () => {
  const files = overlay();
  await applyEdit(files, { kind: 'new-file', source: 's', file: 'lib/b.c', text: 'x' });
  expect(await files.read('lib/b.c')).toBe('x\n');
  await expect(applyEdit(files, { kind: 'new-file', source: 's', file: 'lib/a.c', text: 'x' })).rejects.toThrow(/already exists/);
});

test('until makes the anchor the first line of a block that ends before the line until matches', async () => {
  const text = ['int f(void)', '{', '\tint a, b;', '', '\t/* check */', '\tif (a)', '\t\treturn 0;', '', '\t/* work */', '\treturn b;', '}', ''].join('\n');
  const files = () => new FileOverlay(async (f) => (f === 'lib/f.c' ? text : undefined));
  type Insert = Extract<RenderedEdit, { kind: 'insert' }>;
  const block: Insert = { kind: 'insert', source: 's', file: 'lib/f.c', anchor: '/* check */', until: '/* work */', regex: false, position: 'replace', text: '\t/* gone */\n' };
  const replaced = files();
  await applyEdit(replaced, block);
  expect((await replaced.read('lib/f.c'))!.split('\n').slice(3, 6)).toEqual(['', '\t/* gone */', '\t/* work */']);
  const after = files();
  await applyEdit(after, { ...block, position: 'after', text: '\tx();' });
  expect((await after.read('lib/f.c'))!.split('\n').slice(7, 10)).toEqual(['', '\tx();', '\t/* work */']);
  const deleted = files();
  await applyEdit(deleted, { ...block, text: '' });
  expect((await deleted.read('lib/f.c'))!.split('\n').slice(3, 5)).toEqual(['', '\t/* work */']);
  await expect(applyEdit(files(), { ...block, until: '/* none */' })).rejects.toThrow(/until "\/\* none \*\/" after line 5 matches 0 lines of lib\/f\.c/);
  await expect(applyEdit(files(), { ...block, within: 'int f(void)', until: 'int g' })).rejects.toThrow(/after line 5 in that block matches 0 lines/);
});

test('substitute changes only the part of the line the anchor matches, with the groups of a regular expression', async () => {
  const text = ['\t\tif (jump(&insn, paddr + 1,', '\t\t\t DISP))', ''].join('\n');
  const files = new FileOverlay(async (f) => (f === 'lib/g.c' ? text : undefined));
  const sub = (anchor: string, out: string, regex: boolean): RenderedEdit => ({ kind: 'insert', source: 's', file: 'lib/g.c', anchor, regex, position: 'substitute', text: out });
  await applyEdit(files, sub('paddr \\+ (\\d),$', 'target + $1,', true));
  await applyEdit(files, sub('DISP))', 'len$1))', false));
  expect(await files.read('lib/g.c')).toBe(['\t\tif (jump(&insn, target + 1,', '\t\t\t len$1))', ''].join('\n'));
});

test('move takes lines out and puts them, unchanged, before or after other lines', async () => {
  const text = ['int f(void)', '{', '\t/* check */', '\tif (a)', '\t\treturn 0;', '', '\treturn scan();', '}', '', 'int g(void)', '{', '\treturn 1;', '}', ''].join('\n');
  const files = new FileOverlay(async (f) => (f === 'lib/m.c' ? text : undefined));
  await applyEdit(files, {
    kind: 'move', source: 's', file: 'lib/m.c', anchor: '^\\t/\\* check \\*/$', until: '^\\treturn scan', regex: true, within: '^int f',
    to: { anchor: '^\\treturn 1;$', regex: true, within: '^int g', position: 'before' },
  });
  expect(await files.read('lib/m.c')).toBe(
    ['int f(void)', '{', '\treturn scan();', '}', '', 'int g(void)', '{', '\t/* check */', '\tif (a)', '\t\treturn 0;', '', '\treturn 1;', '}', ''].join('\n'),
  );
});

test('an insert may name a function or a struct instead of a line: its whole definition, or an anchor inside it', async () => {
  const text = [
    '#include <linux/a.h>',
    '',
    '/* Counts. */',
    'struct counter {',
    '\tint n;',
    '};',
    '',
    '#ifdef CONFIG_A',
    'static int __init',
    'count_init(struct counter *c,',
    '\t   int start)',
    '{',
    '\tc->n = start;',
    '\treturn 0;',
    '}',
    '#endif',
    '',
  ].join('\n');
  const files = new FileOverlay(async (f) => (f === 'lib/c.c' ? text : undefined));
  // Before the function: above its declaration's first line, below the #ifdef; after it: below its closing brace.
  await applyEdit(files, { kind: 'insert', source: 's', file: 'lib/c.c', function: 'count_init', regex: false, position: 'before', text: '/* before */' });
  await applyEdit(files, { kind: 'insert', source: 's', file: 'lib/c.c', function: 'count_init', regex: false, position: 'after', text: '/* after */' });
  await applyEdit(files, { kind: 'insert', source: 's', file: 'lib/c.c', function: 'count_init', anchor: 'return 0;', regex: false, position: 'before', text: '\tc->n++;' });
  await applyEdit(files, { kind: 'insert', source: 's', file: 'lib/c.c', struct: 'counter', anchor: 'int n;', regex: false, position: 'after', text: '\tint max;' });
  const out = (await files.read('lib/c.c'))!;
  expect(out).toContain('#ifdef CONFIG_A\n/* before */\nstatic int __init\ncount_init(');
  expect(out).toContain('\tc->n++;\n\treturn 0;\n}\n/* after */\n#endif');
  expect(out).toContain('struct counter {\n\tint n;\n\tint max;\n};');
  await expect(applyEdit(files, { kind: 'insert', source: 'r: e', file: 'lib/c.c', function: 'count_exit', regex: false, position: 'after', text: 'x' })).rejects.toThrow(/^r: e: lib\/c\.c defines no function count_exit$/);
  const replaced = new FileOverlay(async () => text);
  await applyEdit(replaced, { kind: 'insert', source: 's', file: 'lib/c.c', struct: 'counter', regex: false, position: 'replace', text: 'struct counter;' });
  expect(await replaced.read('lib/c.c')).toContain('/* Counts. */\nstruct counter;\n\n#ifdef');
});
