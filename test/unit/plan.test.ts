// Planning without a tree or git: recipe code + templates → patches whose changes build on each other.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { ApplyError, LockedError } from '../../src/errors.js';
import type { RecipeCode } from '../../src/recipes/types.js';
import { planSeries } from '../../src/series/plan.js';
import { withLock } from '../../src/tree/worktree.js';
import { readManifest } from '../../src/templates/manifest.js';

function recipe(files: Record<string, string>): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-plan-')), 'stub');
  fs.mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

const MANIFEST = {
  description: 'stub',
  series: 'stub-{{base_name}}',
  params: { base_name: { type: 'identifier', default: 'x', help: 'h' } },
  cover: { subject: 'lib: Stub {{count}} items', template: 'cover.hbs' },
  patches: [
    {
      each: 'items',
      subject: 'lib/list: Add {{name}}',
      body: 'body.hbs',
      edits: [{ kind: 'insert', file: 'lib/list.c', anchor: '^/\\* end \\*/$', regex: true, position: 'before', template: 'line.hbs' }],
    },
    { subject: 'lib/list: Tidy', body: 'body.hbs', edits: [{ kind: 'transform', file: 'lib/list.c' }] },
  ],
};

const code: RecipeCode = {
  id: 'stub',
  async prepare(_ctx, params) {
    return { items: [{ name: `${params.base_name}_a` }, { name: `${params.base_name}_b` }], count: 2, name: 'tidy' };
  },
  transform: (_ctx, _file, text) => text.replace('/* end */', '/* the end */'),
};

test('"each" makes one patch per element, and every patch builds on the ones before', async () => {
  const dir = recipe({
    'manifest.json': JSON.stringify(MANIFEST),
    'cover.hbs': 'Adds {{count}} items.\n',
    'body.hbs': 'Adds {{name}} to the list.\n',
    'line.hbs': 'int {{name}};\n',
  });
  const base = 'int first;\n/* end */\n';
  const plan = await planSeries({
    recipe: { manifest: readManifest(dir), code },
    given: { base_name: 'q' },
    tree: { root: '/nonexistent', version: '6.12' },
    readBase: async (f) => (f === 'lib/list.c' ? base : undefined),
  });
  expect(plan.name).toBe('stub-q');
  expect(plan.cover).toEqual({ subject: 'lib: Stub 2 items', body: 'Adds 2 items.' });
  expect(plan.patches.map((p) => p.subject)).toEqual(['lib/list: Add q_a', 'lib/list: Add q_b', 'lib/list: Tidy']);
  expect(plan.patches.map((p) => p.changes[0]!.after)).toEqual([
    'int first;\nint q_a;\n/* end */\n',
    'int first;\nint q_a;\nint q_b;\n/* end */\n',
    'int first;\nint q_a;\nint q_b;\n/* the end */\n',
  ]);
  expect(plan.patches[1]!.changes[0]!.before).toBe(plan.patches[0]!.changes[0]!.after);
});

test('without a cover letter: one patch plans, its subject standing in; "each" making two is refused, naming the manifest', async () => {
  const files = { 'body.hbs': 'Adds {{name}} to the list.\n', 'line.hbs': 'int {{name}};\n' };
  const { cover: _, ...noCover } = MANIFEST;
  const one = recipe({ ...files, 'manifest.json': JSON.stringify({ ...noCover, patches: [MANIFEST.patches[1]] }) });
  const input = { given: {}, tree: { root: '/nonexistent', version: '6.12' }, readBase: async (f: string) => (f === 'lib/list.c' ? '/* end */\n' : undefined) };
  const plan = await planSeries({ ...input, recipe: { manifest: readManifest(one), code } });
  expect(plan.cover).toEqual({ subject: 'lib/list: Tidy', body: '' });
  const two = recipe({ ...files, 'manifest.json': JSON.stringify({ ...noCover, patches: [MANIFEST.patches[0]] }) });
  await expect(planSeries({ ...input, recipe: { manifest: readManifest(two), code } })).rejects.toThrow(/stub: these parameters make 2 patches, and the manifest has no cover letter/);
});

test('"each" on an edit repeats it per element, and a patch sees what was measured for it', async () => {
  const dir = recipe({
    'manifest.json': JSON.stringify({
      ...MANIFEST,
      patches: [{ subject: 'lib: Add all', body: 'measured.hbs', edits: [{ ...MANIFEST.patches[0]!.edits[0], each: 'items' }] }],
    }),
    'cover.hbs': '{{#if measured}}measured{{else}}not measured{{/if}}\n',
    'measured.hbs': '{{#if measured}}{{measured.bytes}} bytes{{else}}no figures{{/if}}\n',
    'line.hbs': 'int {{name}};\n',
  });
  const input = {
    recipe: { manifest: readManifest(dir), code },
    given: {},
    tree: { root: '/nonexistent', version: '6.12' },
    readBase: async (f: string) => (f === 'lib/list.c' ? '/* end */\n' : undefined),
  };
  const plan = await planSeries(input);
  expect(plan.patches.map((p) => [p.body, p.changes[0]!.after])).toEqual([['no figures', 'int x_a;\nint x_b;\n/* end */\n']]);
  expect(plan.cover.body).toBe('not measured');
  const measured = await planSeries({ ...input, measured: [{ bytes: 2 }] });
  expect(measured.patches[0]!.body).toBe('2 bytes');
  expect(measured.cover.body).toBe('measured');
});

test('a patch that changes nothing is refused', async () => {
  const dir = recipe({
    'manifest.json': JSON.stringify({ ...MANIFEST, patches: [MANIFEST.patches[1]] }),
    'cover.hbs': 'c\n',
    'body.hbs': 'b\n',
  });
  const plan = planSeries({
    recipe: { manifest: readManifest(dir), code: { ...code, transform: (_c, _f, t) => t } },
    given: {},
    tree: { root: '/nonexistent', version: '6.12' },
    readBase: async () => 'x\n',
  });
  await expect(plan).rejects.toThrow(ApplyError);
});

test('a live holder of the lock stops a second run; a dead one is taken over', async () => {
  const gitCommonDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-lock-'));
  const tree = { root: '/nonexistent', gitCommonDir, version: '6.12' };
  fs.mkdirSync(path.join(gitCommonDir, 'kseries'));
  const lock = path.join(gitCommonDir, 'kseries', 'lock');
  fs.writeFileSync(lock, String(process.ppid));
  await expect(withLock(tree, async () => 1)).rejects.toThrow(LockedError);
  fs.writeFileSync(lock, '999999999');
  expect(await withLock(tree, async () => 2)).toBe(2);
  expect(fs.existsSync(lock)).toBe(false);
});

test('the lock is re-entrant along one call chain, and the inner release keeps the outer hold', async () => {
  const gitCommonDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-lock-'));
  const tree = { root: '/nonexistent', gitCommonDir, version: '6.12' };
  const lock = path.join(gitCommonDir, 'kseries', 'lock');
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const outer = withLock(tree, async () => {
    const inner = await withLock(tree, async () => fs.readFileSync(lock, 'utf8'));
    await held;
    return { inner, still: fs.existsSync(lock) };
  });
  // Another call chain of this process finds the lock taken, though it names our own pid.
  await expect(withLock(tree, async () => 'x')).rejects.toThrow(LockedError);
  release();
  expect(await outer).toEqual({ inner: String(process.pid), still: true });
  expect(fs.existsSync(lock)).toBe(false);
});

test("a patch's cc is checked against the tree's MAINTAINERS: an entry it has is kept, one it lacks stops the plan in one line", async () => {
  const files = { 'body.hbs': 'Tidies.\n' };
  const { cover: _, ...noCover } = MANIFEST;
  const dir = recipe({ ...files, 'manifest.json': JSON.stringify({ ...noCover, patches: [{ ...MANIFEST.patches[1], cc: ['OBJTOOL'] }] }) });
  const maintainers = (entry: string) => `${entry}\nM:\tJ Hacker <j@hacker.dev>\nF:\ttools/objtool/\n`;
  const plan = (entry: string) =>
    planSeries({ recipe: { manifest: readManifest(dir), code }, given: {}, tree: { root: '/nonexistent', version: '6.12' }, readBase: async (f) => (f === 'lib/list.c' ? '/* end */\n' : f === 'MAINTAINERS' ? maintainers(entry) : undefined) });
  expect((await plan('OBJTOOL')).patches[0]!.cc).toEqual(['OBJTOOL']);
  await expect(plan('OBJTOOLS')).rejects.toThrow(/^stub: patches\[0\]\.cc: this tree's MAINTAINERS has no entry "OBJTOOL"$/);
});

test('"shapes" tell the templates which shape the tree has: tree.<name> is true where the pattern matches a line', async () => {
  const dir = recipe({
    'manifest.json': JSON.stringify({
      description: 'stub',
      series: 'shaped',
      shapes: { twoArgs: { file: 'include/walk.h', match: '^int walk\\(const char \\*name,$' } },
      patches: [{ subject: 'lib/walk: Call walk()', body: 'body.hbs', edits: [{ kind: 'insert', file: 'lib/walk.c', anchor: '^/\\* end \\*/$', regex: true, position: 'before', template: 'call.hbs' }] }],
    }),
    'body.hbs': 'Calls walk().\n',
    'call.hbs': '{{#if tree.twoArgs}}\n\twalk(name, fn);\n{{else}}\n\twalk(fn);\n{{/if}}\n',
  });
  const call = async (header: string) => {
    const plan = await planSeries({
      recipe: { manifest: readManifest(dir), code: undefined },
      given: {},
      tree: { root: '/nonexistent', version: '6.12' },
      readBase: async (f) => (f === 'lib/walk.c' ? '/* end */\n' : f === 'include/walk.h' ? header : undefined),
    });
    return plan.patches[0]!.changes[0]!.after;
  };
  expect(await call('int walk(const char *name,\n\t int (*fn)(void));\n')).toBe('\twalk(name, fn);\n/* end */\n');
  expect(await call('int walk(int (*fn)(void));\n')).toBe('\twalk(fn);\n/* end */\n');
  expect(() => readManifest(recipe({ 'manifest.json': JSON.stringify({ ...MANIFEST, shapes: { version: { file: 'a', match: 'b' } } }) }))).toThrow(/shapes\.version: a shape is named by letters and digits, not "version"/);
});
