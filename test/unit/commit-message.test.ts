// The commit message a recipe's patch becomes: its trailers and the author's Signed-off-by are one block.
import { expect, test } from 'vitest';
import { commitMessage } from '../../src/series/generate.js';

const AUTHOR = 'K Tester <k@tester.dev>';

test("a body that ends in trailers (Fixes:, Link:) gets the Signed-off-by right below them, as git interpret-trailers reads one block", () => {
  const body = 'Decode the other part too.\n\nFixes: c0f7ac3a9edd ("kprobes/x86: Support kprobes jump optimization on x86")';
  expect(commitMessage({ subject: 'x86/kprobes: Check the .cold part', body }, AUTHOR)).toBe(`x86/kprobes: Check the .cold part\n\n${body}\nSigned-off-by: ${AUTHOR}\n`);
});

test('a body that ends in prose, or none, gets the Signed-off-by after a blank line', () => {
  expect(commitMessage({ subject: 's', body: 'Note: this is prose.' }, AUTHOR)).toBe(`s\n\nNote: this is prose.\n\nSigned-off-by: ${AUTHOR}\n`);
  expect(commitMessage({ subject: 's', body: '' }, AUTHOR)).toBe(`s\n\nSigned-off-by: ${AUTHOR}\n`);
});
