import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { TemplateError } from '../../src/errors.js';
import { compileTemplate, loadTemplate, wrapParagraphs } from '../../src/templates/render.js';

test('renders without HTML escaping', () => {
  expect(compileTemplate('if (a < b && {{x}})', 't')({ x: '&key' })).toBe('if (a < b && &key)');
});

test('a missing variable is an error naming the template, line and variable', () => {
  const r = compileTemplate('one\ntwo {{missing}}', 'dir/t.hbs');
  expect(() => r({ present: 1 })).toThrow(TemplateError);
  expect(() => r({ present: 1 })).toThrow(/^dir\/t\.hbs:2: unknown variable "missing"$/);
});

test('a variable read only by a condition must exist too', () => {
  const r = compileTemplate('a\n{{#if flag}}x{{/if}}', 't.hbs');
  expect(() => r({})).toThrow(/t\.hbs:2: unknown variable "flag"/);
  expect(r({ flag: false })).toBe('a\n');
  const each = compileTemplate('{{#each list}}{{#if this.on}}{{name}}{{/if}}{{/each}}', 'e.hbs');
  expect(each({ list: [{ on: true, name: 'n' }] })).toBe('n');
});

test('syntax errors are reported when the template is loaded, with the line', () => {
  expect(() => compileTemplate('a\nb {{#if x}}\nc', 't.hbs')).toThrow(/t\.hbs:3: template syntax error: a block is not closed/);
  expect(() => compileTemplate('{{foo', 'u.hbs')).toThrow(/u\.hbs:1: template syntax error/);
});

test('a missing template file is named', () => {
  expect(() => loadTemplate(path.join(os.tmpdir(), 'no-such.hbs'), 'no-such.hbs')).toThrow(/no-such\.hbs: template file is missing/);
});

test('leading variable comments are stripped with their newline', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-hbs-'));
  fs.writeFileSync(path.join(dir, 'a.hbs'), '{{!-- vars: x --~}}\nvalue {{x}}\n');
  expect(loadTemplate(path.join(dir, 'a.hbs'))({ x: 1 })).toBe('value 1\n');
});

test('helpers: plural, join, eq, wrap', () => {
  expect(compileTemplate('{{plural n "branch"}} {{plural m "place"}}', 'p')({ n: 2, m: 1 })).toBe('2 branches 1 place');
  expect(compileTemplate('{{join l ", "}}', 'j')({ l: ['a', 'b'] })).toBe('a, b');
  expect(compileTemplate('{{#if (eq a "x")}}yes{{/if}}', 'e')({ a: 'x' })).toBe('yes');
  expect(compileTemplate('[{{pad n 6}}]', 'p')({ n: 42 })).toBe('[    42]');
});

test('wrap re-flows a one-line "- item" under its text, and leaves a list of several lines alone', () => {
  const item = `- ${Array.from({ length: 20 }, (_, i) => `word${i}`).join(' ')}`;
  const out = wrapParagraphs(item, 40);
  expect(out.split('\n')).toEqual(['- word0 word1 word2 word3 word4 word5', '  word6 word7 word8 word9 word10 word11', '  word12 word13 word14 word15 word16', '  word17 word18 word19']);
  expect(wrapParagraphs('- one\n- two', 40)).toBe('- one\n- two');
});

test('wrap re-flows prose to 72 columns and leaves lists and indented text alone', () => {
  const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
  const out = wrapParagraphs(`${long}\n\n- a list item that stays\n\n    indented code stays`, 72);
  for (const line of out.split('\n')) expect(line.length).toBeLessThanOrEqual(72);
  expect(out).toContain('\n\n- a list item that stays\n\n    indented code stays');
  expect(out.split('\n\n')[0]!.replace(/\n/g, ' ')).toBe(long);
});
