import { expect, test } from 'vitest';
import { dropHeader, getHeader, joinMail, setHeaders, splitMail } from '../../src/mail/headers.js';
import { parseCheckpatch, parseGetMaintainer, patchLineMap, spdxFailure } from '../../src/tools/kernel-scripts.js';

const MAIL = ['From abc Mon Sep 17 00:00:00 2001', 'From: A <a@x.org>', 'Subject: [PATCH] x: A long', ' folded subject', '', 'body', ''].join('\n');

test('headers are read with folding, replaced and added', () => {
  const m = splitMail(MAIL);
  expect(getHeader(m.headers, 'subject')).toBe('[PATCH] x: A long folded subject');
  expect(dropHeader(m.headers, 'Subject')).toBe('From abc Mon Sep 17 00:00:00 2001\nFrom: A <a@x.org>');
  const h = setHeaders(m.headers, [
    ['Message-Id', '<1@x>'],
    ['In-Reply-To', ''],
    ['To', ['B <b@x.org>', 'c@x.org']],
    ['Cc', []],
  ]);
  expect(h.split('\n').slice(-3)).toEqual(['Message-Id: <1@x>', 'To: B <b@x.org>,', '    c@x.org']);
  expect(getHeader(h, 'To')).toBe('B <b@x.org>, c@x.org');
  expect(joinMail({ headers: h, body: m.body })).toContain('\n\nbody\n');
});

test('get_maintainer output: maintainers To, reviewers and lists Cc', () => {
  const out = [
    'Johannes Weiner <hannes@cmpxchg.org> (maintainer:CONTROL GROUP - MEMORY RESOURCE CONTROLLER (MEMCG))',
    'Muchun Song <muchun.song@linux.dev> (reviewer:CONTROL GROUP - MEMORY RESOURCE CONTROLLER (MEMCG))',
    'Andrew Morton <akpm@linux-foundation.org> (maintainer:MEMORY MANAGEMENT)',
    'cgroups@vger.kernel.org (open list:CONTROL GROUP - MEMORY RESOURCE CONTROLLER (MEMCG))',
    'linux-kernel@vger.kernel.org (open list)',
    'Someone <s@x.org> (supporter:SOME DRIVER)',
  ].join('\n');
  expect(parseGetMaintainer(out)).toMatchObject({
    to: ['Johannes Weiner <hannes@cmpxchg.org>', 'Andrew Morton <akpm@linux-foundation.org>', 'Someone <s@x.org>'],
    cc: ['Muchun Song <muchun.song@linux.dev>', 'cgroups@vger.kernel.org', 'linux-kernel@vger.kernel.org'],
  });
});

const PATCH = [
  'Subject: [PATCH] x: y', // 1
  '', // 2
  'body', // 3
  '---', // 4
  'diff --git a/lib/a.c b/lib/a.c', // 5
  '--- a/lib/a.c', // 6
  '+++ b/lib/a.c', // 7
  '@@ -10,3 +10,4 @@ int f(void)', // 8
  ' context', // 9
  '-old', // 10
  '+new', // 11
  '+new2', // 12
  ' tail', // 13
  '',
].join('\n');

test('patch lines map to source file lines', () => {
  const map = patchLineMap(PATCH);
  expect(map.get(9)).toEqual({ file: 'lib/a.c', line: 10 });
  expect(map.get(11)).toEqual({ file: 'lib/a.c', line: 11 });
  expect(map.get(12)).toEqual({ file: 'lib/a.c', line: 12 });
  expect(map.get(13)).toEqual({ file: 'lib/a.c', line: 13 });
  expect(map.get(3)).toBeUndefined();
});

test('checkpatch --terse --show-types findings are parsed with level, type, file and line', () => {
  const out = [
    '-:12: WARNING:LONG_LINE: line length of 104 exceeds 100 columns',
    '-:3: ERROR:MISSING_SIGN_OFF: Missing Signed-off-by: line(s)',
    '-:11: CHECK:PARENTHESIS_ALIGNMENT: Alignment should match open parenthesis',
    'total: 1 errors',
  ].join('\n');
  expect(parseCheckpatch(out, PATCH)).toEqual({
    errors: 1,
    warnings: 1,
    checks: 1,
    findings: [
      { level: 'warning', type: 'LONG_LINE', file: 'lib/a.c', line: 12, message: 'line length of 104 exceeds 100 columns' },
      { level: 'error', type: 'MISSING_SIGN_OFF', file: undefined, line: 3, message: 'Missing Signed-off-by: line(s)' },
      { level: 'check', type: 'PARENTHESIS_ALIGNMENT', file: 'lib/a.c', line: 11, message: 'Alignment should match open parenthesis' },
    ],
  });
});

test("checkpatch's SPDX check that died for want of python3 modules is said, with the packages that bring them", () => {
  const stderr = [
    'Traceback (most recent call last):',
    '  File "/src/linux/scripts/spdxcheck.py", line 6, in <module>',
    '    from ply import lex, yacc',
    "ModuleNotFoundError: No module named 'ply'",
  ].join('\n');
  expect(spdxFailure(stderr)).toBe("SPDX license check (scripts/spdxcheck.py) did not run: python3 has no module ply (apt-get install python3-ply python3-git)");
  expect(spdxFailure('')).toBeUndefined();
  expect(spdxFailure('Use of uninitialized value in concatenation at scripts/checkpatch.pl line 7')).toBeUndefined();
});
