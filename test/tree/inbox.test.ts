// Issue 44, item 1 on a real archive: linux-wpan's public-inbox epoch (../shared/inbox, read in place, never
// written), a series reviewed straight from its git by the Message-Id of its patch: the thread formed from the
// archive with its replies' trailers, and the patch found already in 6.12.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import type { ReviewReport } from '../../src/review/review.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { cli, expectOneLineError, userTree } from '../helpers/tree.js';

const WPAN = path.join(REPO_ROOT, '../shared/inbox/linux-wpan.git');
/** "[PATCH] ieee802154: ca8210: Add missing check for kfifo_alloc() in ca8210_probe()", 2024-10-29, five replies. */
const CA8210 = '20241029182712.318271-1-keisuke.nishimura@inria.fr';

test('review --inbox: the thread of a Message-Id, read from the archive, reviewed as a mailbox of it would be', async () => {
  const tree = await userTree();
  const r = await cli(['--tree', tree.root, 'review', '--inbox', WPAN, CA8210, '--no-build', '--out', fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-inbox-')), '--json']);
  const report = JSON.parse(r.out) as ReviewReport;
  expect(report.series.subject).toBe('ieee802154: ca8210: Add missing check for kfifo_alloc() in ca8210_probe()');
  expect(report.series.replies).toBe(5);
  const p = report.patches[0]!;
  // 6.12 has the change: the review says so instead of failing to apply it.
  expect(p.problems.map((x) => x.kind)).toEqual(['already-applied']);
  expect(p.trailers).toEqual(expect.arrayContaining(['Reviewed-by: Simon Horman <horms@kernel.org>', 'Reviewed-by: Miquel Raynal <miquel.raynal@bootlin.com>']));
});

test('review --inbox: an unknown Message-Id, or a folder that is no archive, is one line and exit 2', async () => {
  const tree = await userTree();
  expectOneLineError(await cli(['--tree', tree.root, 'review', '--inbox', WPAN, 'nobody@example.org', '--no-build']), /^kseries: --inbox: no message <nobody@example\.org> in .*linux-wpan\.git \(4077 messages\)$/);
  expectOneLineError(await cli(['--tree', tree.root, 'review', '--inbox', tree.root, CA8210, '--no-build']), /not a public-inbox archive/);
  expectOneLineError(await cli(['--tree', tree.root, 'review', '--inbox', WPAN]), /review --inbox needs the Message-Id/);
});
