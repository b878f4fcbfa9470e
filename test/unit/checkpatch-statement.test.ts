// What the "Checked with kseries" sentence says of checkpatch: never "no warnings" while the report holds one.
import { expect, test } from 'vitest';
import { checkpatchCheck } from '../../src/check/checks/checkpatch.js';
import type { CheckReport } from '../../src/check/report.js';

const report = (findings: { type: string; level: string; fromTree?: string }[], warnings = 0) =>
  ({ patches: [{ checkpatch: { errors: 0, warnings, checks: 0, findings: findings.map((f) => ({ ...f, message: 'm', file: 'f', line: 1 })) } }] }) as unknown as CheckReport;

test('clean patches: no errors or warnings', () => {
  expect(checkpatchCheck.statement!(report([]))).toBe('checkpatch.pl reports no errors or warnings');
});

test("a warning the tree answers (a new file MAINTAINERS covers) is named, not hidden behind \"no warnings\"", () => {
  const r = report([{ type: 'FILE_PATH_CHANGES', level: 'warning', fromTree: 'MAINTAINERS covers it already' }]);
  expect(checkpatchCheck.statement!(r)).toBe("checkpatch.pl reports no errors or warnings of the patches' own (it also prints FILE_PATH_CHANGES, which the tree answers: see the report)");
});
