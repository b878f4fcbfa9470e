import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { ParamError } from '../../src/errors.js';
import { convertParam, parseSetArgs, resolveParams, type ParamSpec } from '../../src/templates/params.js';
import { checkNoSymlinkOut, checkTreePath } from '../../src/tree/paths.js';

const specs: Record<string, ParamSpec> = {
  file: { type: 'path', help: 'a file' },
  flag: { type: 'identifier', help: 'a flag' },
  count: { type: 'integer', help: 'a count', default: 3 },
  on: { type: 'boolean', help: 'a switch', default: false },
  note: { type: 'string', help: 'a note', default: '' },
};

test('values are converted to their declared types and defaults fill the rest', () => {
  expect(resolveParams('r', specs, { file: 'mm/./memcontrol.c', flag: 'x_1', count: '0x10', on: 'yes' })).toEqual({
    file: 'mm/memcontrol.c',
    flag: 'x_1',
    count: 16,
    on: true,
    note: '',
  });
  expect(convertParam('r', 'n', 'integer', '-12')).toBe(-12);
  expect(parseSetArgs(['a=1', 'b=x=y', 'c='])).toEqual({ a: '1', b: 'x=y', c: '' });
});

test.each([
  ['identifier', '9lives'],
  ['identifier', 'a-b'],
  ['integer', '1.5'],
  ['integer', 'ten'],
  ['boolean', 'maybe'],
  ['string', 'two\nlines'],
  ['path', '/etc/passwd'],
  ['path', '../x'],
  ['path', 'a/../../x'],
  ['path', '.git/config'],
  ['path', ''],
] as const)('%s rejects %j', (type, raw) => {
  expect(() => convertParam('r', 'p', type, raw)).toThrow(ParamError);
});

test('unknown and missing parameters are errors that name them', () => {
  expect(() => resolveParams('r', specs, { file: 'a', flag: 'b', colour: 'red' })).toThrow(/no parameter "colour"/);
  expect(() => resolveParams('r', specs, { file: 'a' })).toThrow(/needs parameter "flag"/);
  expect(() => parseSetArgs(['novalue'])).toThrow(ParamError);
});

test('tree paths are normalised', () => {
  expect(checkTreePath('kernel//sched/./core.c', 'p')).toBe('kernel/sched/core.c');
  expect(checkTreePath('drivers/net/', 'p')).toBe('drivers/net');
});

test('a path through a symlink that leaves the tree is refused; links inside the tree and new files are fine', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-links-'));
  fs.mkdirSync(path.join(root, 'drivers'));
  fs.symlinkSync('/etc', path.join(root, 'drivers', 'out'));
  fs.symlinkSync('../drivers', path.join(root, 'inside'));
  expect(() => checkNoSymlinkOut(root, 'drivers/out/passwd', 'patch 1')).toThrow(ParamError);
  expect(() => checkNoSymlinkOut(root, 'inside/new.c', 'patch 1')).not.toThrow();
  expect(() => checkNoSymlinkOut(root, 'drivers/new/dir/file.c', 'patch 1')).not.toThrow();
  fs.rmSync(root, { recursive: true, force: true });
});
