import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { RecipeError } from '../../src/errors.js';
import { BUILTIN_RECIPES, listRecipes, loadRecipe, recipeDirs } from '../../src/recipes/load.js';
import { readManifest } from '../../src/templates/manifest.js';
import { dropDebianIgnoreBlock } from '../../src/tree/provision.js';

function recipeDir(manifest: unknown): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-recipe-')), 'r');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'manifest.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
  return dir;
}

const GOOD = {
  description: 'd',
  series: 's',
  params: { a: { type: 'identifier', help: 'h' } },
  cover: { subject: 'x: y', template: 'c.hbs' },
  patches: [{ subject: 'x: y', body: 'b.hbs', edits: [{ kind: 'insert', file: 'f', anchor: 'a', template: 't.hbs' }] }],
};

test('a recipe of one patch needs no cover letter (emit writes none for one patch)', () => {
  expect(readManifest(recipeDir({ ...GOOD, cover: undefined })).cover).toBeUndefined();
});

test('a valid manifest is read, with defaults for optional fields', () => {
  const m = readManifest(recipeDir(GOOD));
  expect(m.id).toBe('r');
  expect(m.patches[0]!.edits[0]).toEqual({ kind: 'insert', file: 'f', anchor: 'a', regex: false, position: 'after', template: 't.hbs' });
});

test.each([
  ['not JSON', '{ nope', /not valid JSON/],
  ['an unknown parameter type', { ...GOOD, params: { a: { type: 'float', help: '' } } }, /params\.a\.type: unknown type "float"/],
  ['no patches', { ...GOOD, patches: [] }, /patches: must be a non-empty list/],
  ['an unknown edit kind', { ...GOOD, patches: [{ subject: 's', body: 'b', edits: [{ kind: 'sed' }] }] }, /patches\[0\]\.edits\[0\]\.kind: unknown edit kind "sed"/],
  ['a bad insert position', { ...GOOD, patches: [{ subject: 's', body: 'b', edits: [{ kind: 'insert', file: 'f', anchor: 'a', template: 't', position: 'middle' }] }] }, /position: "middle"/],
  ['a substitute over a block', { ...GOOD, patches: [{ subject: 's', body: 'b', edits: [{ kind: 'insert', file: 'f', anchor: 'a', until: 'b', template: 't', position: 'substitute' }] }] }, /"substitute" changes one line/],
  ['a move without a destination', { ...GOOD, patches: [{ subject: 's', body: 'b', edits: [{ kind: 'move', file: 'f', anchor: 'a' }] }] }, /edits\[0\]\.to: must be an object/],
  ['no cover for two patches', { ...GOOD, cover: undefined, patches: [GOOD.patches[0], GOOD.patches[0]] }, /cover: a recipe of 2 patches needs a cover letter/],
  ['a cover that is no object', { ...GOOD, cover: 'c.hbs' }, /cover: must be an object/],
  ['a patch cc that is no list of entry names', { ...GOOD, patches: [{ ...GOOD.patches[0], cc: 'OBJTOOL' }] }, /patches\[0\]\.cc: must be a list of MAINTAINERS entry names/],
])('a manifest with %s is refused, naming the field', (_what, manifest, message) => {
  const dir = recipeDir(manifest);
  expect(() => readManifest(dir)).toThrow(RecipeError);
  expect(() => readManifest(dir)).toThrow(message);
});

test("a patch's cc names MAINTAINERS entries besides get_maintainer.pl's", () => {
  expect(readManifest(recipeDir({ ...GOOD, patches: [{ ...GOOD.patches[0], cc: ['OBJTOOL'] }] })).patches[0]!.cc).toEqual(['OBJTOOL']);
});

test('a move edit is read with its destination, which shares its regex flag', () => {
  const move = { kind: 'move', file: 'f', anchor: '^a$', until: '^b$', regex: true, to: { anchor: '^c$', within: '^int g', position: 'after' } };
  const m = readManifest(recipeDir({ ...GOOD, patches: [{ subject: 'x: y', body: 'b.hbs', edits: [move] }] }));
  expect(m.patches[0]!.edits[0]).toEqual({ kind: 'move', file: 'f', anchor: '^a$', until: '^b$', regex: true, to: { anchor: '^c$', regex: true, within: '^int g', position: 'after' } });
});

test('built-in recipes are found; user folders come first; ids are checked', () => {
  expect(listRecipes(recipeDirs([], {}))).toContain('static-key');
  expect(loadRecipe('static-key', recipeDirs([], {})).code?.id).toBe('static-key');
  const user = path.dirname(recipeDir(GOOD));
  expect(loadRecipe('r', recipeDirs([user], {})).manifest.dir).toBe(path.join(user, 'r'));
  expect(loadRecipe('r', recipeDirs([], { KSERIES_RECIPES: user })).code).toBeUndefined();
  expect(() => loadRecipe('../etc', [BUILTIN_RECIPES])).toThrow(/not a recipe id/);
});

test("Debian's top-level ignore-everything block is cut from .gitignore, the rest kept", () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-gi-')), '.gitignore');
  fs.writeFileSync(file, ['*.o', '/vmlinux', '', '#', '# Debian packaging: ignore everything at the top level', '#', '/*', '!/debian/', ''].join('\n'));
  dropDebianIgnoreBlock(file);
  expect(fs.readFileSync(file, 'utf8')).toBe('*.o\n/vmlinux\n');
});

test("a recipe on top of another series names it (after), and a KUnit spec may name the fix its tests show (without)", () => {
  const m = readManifest(recipeDir({ ...GOOD, after: 'fix-first', kunit: { config: ['CONFIG_KUNIT=y'], without: 'x: Fix it' } }));
  expect(m.after).toBe('fix-first');
  expect(m.kunit).toEqual({ config: ['CONFIG_KUNIT=y'], kprobeCensus: false, show: [], without: 'x: Fix it' });
  expect(readManifest(recipeDir(GOOD)).after).toBeUndefined();
  expect(() => readManifest(recipeDir({ ...GOOD, after: 3 }))).toThrow(/manifest\.json: after/);
});
