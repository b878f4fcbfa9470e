// The text review: patches after a failed one that say the same thing are one block, not one each.
import { expect, test } from 'vitest';
import { formatReview } from '../../src/review/format.js';
import type { ReviewReport } from '../../src/review/review.js';

const build = { status: 'skipped', errors: [], newWarnings: [], notBuilt: [] };
const checkpatch = { errors: 0, warnings: 0, checks: 0, findings: [] };
const patch = (index: number, applied: boolean, message?: string) => ({
  index,
  subject: `lib: Change ${index}`,
  applied,
  commit: applied ? 'c0ffee' : null,
  build,
  proofs: [],
  tree: [],
  checkpatch,
  problems: message ? [{ kind: 'not-applied', severity: 'error', message }] : [],
  trailers: [],
  failures: [],
});

test('a run of later patches with the same reason is one block; a different reason starts another', () => {
  const same = 'not applied: patch 2 before it did not apply, and it does not apply on its own either';
  const report = {
    series: { subject: 'lib: Changes', version: 1, patches: 6, announced: 6, revisions: [1], base: 'a'.repeat(40), baseFrom: 'head', rfc: false, resend: false, prefixes: [], cover: false, replies: 0, branch: 'b' },
    config: 'defconfig',
    compiler: 'none',
    sandbox: 'none',
    patches: [patch(1, true), patch(2, false, 'does not apply: hunk 1 of lib/x.c'), patch(3, false, same), patch(4, false, same), patch(5, false, same), patch(6, false, 'not applied: needs patch 2, which did not apply')],
    problems: [],
    verdict: 'findings',
  } as unknown as ReviewReport;
  const text = formatReview(report);
  expect(text).toContain('[2/6] lib: Change 2');
  expect(text).toContain('[3-5/6] 3 patches, each:');
  expect(text.split(same)).toHaveLength(2);
  expect(text).toContain('[6/6] lib: Change 6');
});
