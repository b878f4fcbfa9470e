// What a patch changes of an object, as emit states it below the patch's ---: sizes and the strings it holds.
import { expect, test } from 'vitest';
import { costLine } from '../../src/check/checks/build.js';
import { mergedStrings, stringChanges } from '../../src/object-code/sizes.js';

test("an object's strings are those of its mergeable string sections, each once; a patch adds and removes some", () => {
  const image = Buffer.from('\0enabled\0disabled\0enabled\0\0code', 'latin1');
  const sections = [
    { name: '.rodata.str1.1', type: 1, flags: 0x2 | 0x10 | 0x20, offset: 0, size: 26 },
    { name: '.text', type: 1, flags: 0x2 | 0x4, offset: 27, size: 4 },
  ];
  expect(mergedStrings(image, sections)).toEqual(['disabled', 'enabled']);
  expect(stringChanges(['disabled', 'enabled'], ['enabled', 'on'])).toEqual({ added: ['on'], removed: ['disabled'] });
});

test('the cost line says the sizes and whether the strings are the same', () => {
  const t = (text: number, data: number) => ({ text, data, jumpTable: 0, total: text + data });
  expect(costLine({ object: 'a.o', before: t(100, 20), after: t(100, 20), strings: { added: [], removed: [] } })).toBe('text 100 -> 100 (0), data 20 -> 20 (0), the same strings');
  expect(costLine({ object: 'a.o', before: t(100, 20), after: t(100, 20), strings: { added: [], removed: [] }, sameCode: true })).toBe('text 100 -> 100 (0), data 20 -> 20 (0), the same code bytes, the same strings');
  expect(costLine({ object: 'a.o', before: t(100, 20), after: t(96, 24), strings: { added: ['on'], removed: [] } })).toBe('text 100 -> 96 (-4), data 20 -> 24 (+4), strings added: "on"');
  expect(costLine({ object: 'debug.o', before: t(0, 32), after: t(0, 32), strings: { added: [], removed: [] }, sameCode: true })).toMatch(/^no code in this configuration/);
});
