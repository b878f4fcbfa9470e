// Why a hunk does not apply: wrong base, conflict (with the lines that differ), mangled mail. Pure, on small files.
import { describe, expect, test } from 'vitest';
import { appliedInSubstance, diagnose, diffPart, pathsOf, substanceOf, trimDiff } from '../../src/review/diagnose.js';
import { attribution, writeReply } from '../../src/mail/reply.js';
import type { Message } from '../../src/mail/mailbox.js';

const FILE = ['int a;', 'int b;', 'int c;', 'int d;', 'int e;', ''].join('\n');
const diff = (hunk: string[]) => ['diff --git a/f.c b/f.c', '--- a/f.c', '+++ b/f.c', ...hunk, ''].join('\n');
const src = (now: string | undefined, base = FILE, touched: number[] = []) => ({ now: () => now, atBase: () => base, touchedBy: () => touched });

test.each([
  ['applies', diff(['@@ -2,3 +2,3 @@', ' int b;', '-int c;', '+int C;', ' int d;']), src(FILE), []],
  ['wrong base: the context is nowhere', diff(['@@ -2,3 +2,3 @@', ' long x;', '-long y;', '+long Y;', ' long z;']), src(FILE), ['wrong-base']],
  ['conflict: one line of the context differs', diff(['@@ -2,3 +2,3 @@', ' int b;', '-int c;', '+int C;', ' int d;']), src(FILE.replace('int d;', 'int dd;'), FILE, [1]), ['conflict']],
  ['mangled: tabs became spaces', diff(['@@ -1,2 +1,2 @@', ' int  a;', '-int b;', '+int B;']), src(FILE.replace('int a;', 'int\ta;')), ['mangled']],
  ['mangled: a re-wrapped line breaks the hunk', diff(['@@ -1,2 +1,2 @@', ' int a;', '-int b;', '+int B /* a long', 'comment */;']), src(FILE), ['mangled']],
  ['mangled: line counts that no longer match', diff(['@@ -1,5 +1,5 @@', ' int a;', '-int b;', '+int B;']), src(FILE), ['mangled']],
  ['a removed file is a conflict with the patch that removed it', diff(['@@ -1,2 +1,2 @@', ' int a;', '-int b;', '+int B;']), src(undefined, FILE, [2]), ['conflict']],
  ['a file the tree never had is a wrong base', diff(['@@ -1,2 +1,2 @@', ' int a;', '-int b;', '+int B;']), { now: () => undefined, atBase: () => undefined, touchedBy: () => [] }, ['wrong-base']],
])('%s', (_what, d, s, kinds) => {
  expect(diagnose(d, s).map((f) => f.kind)).toEqual(kinds);
});

test('a conflict names the lines that differ and the earlier patch that changed them', () => {
  const [f] = diagnose(diff(['@@ -2,3 +2,3 @@', ' int b;', '-int c;', '+int C;', ' int d;']), src(FILE.replace('int d;', 'int dd;'), FILE, [1]));
  expect(f).toMatchObject({ file: 'f.c', hunk: 1, header: '@@ -2,3 +2,3 @@', differs: [{ line: 4, expected: 'int d;', found: 'int dd;' }] });
  expect(f!.message).toMatch(/changed by patch 1 of this series/);
});

test('a conflict counts the file\'s lines that differ from the lines the hunk expects', () => {
  const [f] = diagnose(diff(['@@ -2,3 +2,3 @@', ' int b;', '-int c;', '+int C;', ' int d;']), src(FILE.replace('int c;', 'int c0;\nint c1;'), FILE));
  expect(f!.message).toBe(`hunk 1 of f.c: ${f!.differs!.length} lines differ from the 3 it expects near line 2 (changed upstream: the file differs from the one the patch was made against)`);
  expect(f!.differs!.map((d) => d.found)).toEqual(['int c0;', 'int c1;']);
});

// A change the tree took long ago and has changed around since (the OpenWrt backports of v6.9–v7.0 changes met on
// 6.12.118): neither the patch nor its reverse applies, yet what it adds stands there and what it removes is gone.
describe('already applied in substance', () => {
  const OLD = ['void f(void)', '{', '\tlock();', '\tif (x)', '\t\tset(y);', '\tunlock();', '}', ''];
  const patch = diff(['@@ -1,7 +1,6 @@', ' void f(void)', ' {', ' \tlock();', '-\tif (x)', '-\t\tset(y);', '+\tset(y);', ' \tunlock();', ' }']);
  const later = ['int g(void)', '{', '\tunlock();', '}', 'void f(void)', '{', '\tspin_lock();', '\tset(y);', '\tspin_unlock();', '}', ''].join('\n');
  const measure = (text: string | undefined) => substanceOf(patch, () => text);

  test('the change, then its context changed: applied', () => {
    expect(measure(later)).toEqual({ added: 1, addedThere: 1, removed: 1, removedGone: 1 });
    expect(appliedInSubstance(measure(later))).toBe(true);
  });
  test('the tree as the patch found it, or with its context changed only: not applied', () => {
    expect(appliedInSubstance(measure(OLD.join('\n')))).toBe(false);
    expect(appliedInSubstance(measure(OLD.join('\n').replace('lock();', 'spin_lock();')))).toBe(false);
  });
  test('a removed line living on elsewhere does not hide the change; a removed block still there does', () => {
    const p = diff(['@@ -1,4 +1,2 @@', ' a();', '-\tunlock();', '-\tputs("x");', ' b();', '@@ -9,3 +9,3 @@', ' c();', '-old();', '+new_call();', ' d();']);
    expect(appliedInSubstance(substanceOf(p, () => 'a();\nb();\n\tunlock();\nc();\nnew_call();\n'))).toBe(true);
    expect(appliedInSubstance(substanceOf(p, () => 'a();\n\tunlock();\n\tputs("x");\nb();\nold();\nnew_call();\n'))).toBe(false);
  });
  // 6.1's drivers/leds/leds-spi-byte.c: a patch that moves a line above its first use conflicts there; the line is in
  // the tree because it is the very line the patch removes, at its old place.
  test('a moved line counts where it stands: at its old place the patch is not applied, at its new one it is', () => {
    const moved = diff(['@@ -1,6 +1,6 @@', ' \tint ret;', '+\tchild = next_child(np);', ' \tcount = count_children(np);', ' \tif (count != 1)', ' \t\treturn -EINVAL;', '-\tchild = next_child(np);', ' \tled = alloc(dev);']);
    const notYet = ['\tint ret;', '\tcount = count_children(np, 0);', '\tif (count != 1)', '\t\treturn -EINVAL;', '\tchild = next_child(np);', '\tled = alloc(dev);', ''].join('\n');
    expect(substanceOf(moved, () => notYet)).toEqual({ added: 1, addedThere: 0, removed: 1, removedGone: 0 });
    expect(appliedInSubstance(substanceOf(moved, () => notYet))).toBe(false);
    const taken = ['\tint ret;', '\tchild = next_child(np);', '\tcount = count_children(np, 0);', '\tif (count != 1)', '\t\treturn -EINVAL;', '\tled = alloc(dev);', ''].join('\n');
    expect(appliedInSubstance(substanceOf(moved, () => taken))).toBe(true);
  });
  test('a patch of punctuation only, or a file the tree lacks, is never applied so', () => {
    expect(appliedInSubstance(substanceOf(diff(['@@ -1,2 +1,2 @@', ' a();', '-}', '+};']), () => 'a();\n};\n'))).toBe(false);
    expect(appliedInSubstance(measure(undefined))).toBe(false);
  });
});

test('the diff of a mail body, without its signature; every path it names', () => {
  const body = 'Message.\n---\n f.c | 2 +-\n\ndiff --git a/f.c b/g.c\nrename from f.c\nrename to g.c\n--- a/f.c\n+++ b/g.c\n@@ -1 +1 @@\n-a\n+b\n-- \n2.39.5\n';
  expect(diffPart(body)).toBe('diff --git a/f.c b/g.c\nrename from f.c\nrename to g.c\n--- a/f.c\n+++ b/g.c\n@@ -1 +1 @@\n-a\n+b\n');
  expect(pathsOf(diffPart(body)).sort()).toEqual(['f.c', 'g.c']);
});

const M: Message = {
  messageId: 'p1@x', inReplyTo: 'c@x', references: ['c@x'], subject: '[PATCH 1/2] lib: Ünïcode',
  from: { name: 'Jörg Müller', address: 'j@x.org' }, to: [{ name: 'L', address: 'list@x.org' }], cc: [{ name: '', address: 'k@x.org' }, { name: 'J', address: 'j@x.org' }],
  date: new Date(Date.UTC(2026, 11, 1)), body: '', raw: '',
};

test('a reply: Re: subject, threaded under the mail, to the author only unless reply-all', () => {
  const text = writeReply(M, 'Hi.\n', { from: { name: 'Rev', address: 'rev@x.org' }, replyAll: false, date: new Date(0) });
  expect(text).toMatch(/^To: =\?UTF-8\?B\?/m);
  expect(text).not.toMatch(/^Cc:/m);
  expect(text).toMatch(/^Subject: =\?UTF-8\?B\?/m);
  expect(text).toMatch(/^In-Reply-To: <p1@x>$/m);
  expect(text).toMatch(/^References: <c@x>\n {4}<p1@x>$/m);
  const all = writeReply(M, 'Hi.\n', { from: { name: 'Rev', address: 'k@x.org' }, replyAll: true, date: new Date(0) });
  expect(all).toMatch(/^Cc: L <list@x.org>$/m); // not the author again, not the reviewer
  expect(attribution(M)).toBe('On Tue, 01 Dec 2026 00:00:00 +0000, Jörg Müller wrote:');
});

test('text after the last hunk, a `--` signature without its space, is not part of the diff (git apply skips it)', () => {
  const body = 'msg\n---\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n--\n2.43.0\n\nSent from my phone\n';
  expect(diffPart(body)).toBe('diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n');
  const failures = diagnose(diffPart(body), { now: () => 'a\nb\n', atBase: () => 'a\nb\n', touchedBy: () => [] });
  expect(failures).toEqual([]);
});

test('two files, trailing text between hunks of one file is dropped, the next file kept', () => {
  const diff = 'diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\nnoise\ndiff --git a/g b/g\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n';
  expect(trimDiff(diff)).toBe('diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/g b/g\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n');
});

test('a conflict with one line inserted upstream inside the context shows that line only, not every line after it', () => {
  const base = ['int a;', 'int b;', 'int c;', 'int d;', 'int e;', 'int f;', ''].join('\n');
  const now = base.replace('int c;\n', 'int c;\nint upstream;\n').replace('int e;', 'int ee;');
  const d = ['--- a/f.c', '+++ b/f.c', '@@ -1,6 +1,6 @@', ' int a;', ' int b;', ' int c;', ' int d;', '-int e;', '+int E;', ' int f;', ''].join('\n');
  const [f] = diagnose(d, { now: () => now, atBase: () => base, touchedBy: () => [] });
  expect(f).toMatchObject({ kind: 'conflict', hunk: 1 });
  expect(f!.differs).toEqual([
    { line: 4, expected: '', found: 'int upstream;' },
    { line: 6, expected: 'int e;', found: 'int ee;' },
  ]);
});
