// Series in a test clone: forget one (its branches and kseries' record, so the next generate makes v1), and a change to split.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { patchHasFindings } from '../../src/check/plugins.js';
import type { CheckReport } from '../../src/check/report.js';
import { scratchCommitOf } from './review.js';

/** Forget `name`, or every series when no name is given. */
export function forgetSeries(root: string, name?: string): void {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  const prefix = name ? `refs/heads/kseries/${name}/` : 'refs/heads/kseries/';
  for (const ref of git('for-each-ref', '--format=%(refname)', prefix).split('\n').filter(Boolean)) git('update-ref', '-d', ref);
  const gitDir = path.resolve(root, git('rev-parse', '--git-common-dir').trim());
  fs.rmSync(path.join(gitDir, 'kseries', 'series', ...(name ? [name] : [])), { recursive: true, force: true });
}

/**
 * A commit of ours on the tree's HEAD touching files of three maintainer trees (spi, andi.shyti/linux,
 * andy/linux-gpio-intel): string_choices helpers and their include, as one "treewide:" change for kseries split.
 */
export function stringChoicesCommit(root: string): string {
  const inc = (after: string) => ({ from: `#include <linux/${after}>\n`, to: `#include <linux/${after}>\n#include <linux/string_choices.h>\n` });
  return scratchCommitOf(
    root,
    [
      { file: 'drivers/spi/spi-stm32.c', from: '(spi->cur_usedma) ? "enabled" : "disabled");', to: 'str_enabled_disabled(spi->cur_usedma));' },
      { file: 'drivers/spi/spi-stm32.c', ...inc('reset.h') },
      { file: 'drivers/i2c/busses/i2c-tiny-usb.c', from: 'pmsg->flags & I2C_M_RD ? "read" : "write",', to: 'str_read_write(pmsg->flags & I2C_M_RD),' },
      { file: 'drivers/i2c/busses/i2c-tiny-usb.c', ...inc('slab.h') },
      { file: 'drivers/gpio/gpio-wcove.c', from: 'ctli & 0x1 ? "hi" : "lo",', to: 'str_hi_lo(ctli & 0x1),' },
      { file: 'drivers/gpio/gpio-wcove.c', ...inc('seq_file.h') },
    ],
    'treewide: Use string_choices helpers\n\nThe helpers of linux/string_choices.h say the same in fewer words.\n\nSigned-off-by: A U Thor <author@example.org>\n',
  );
}

/**
 * A check report's verdict but for the identity the tests commit as (test.author@example.org, a reserved domain): the
 * report says findings for it (its `identity` warnings), and nothing else may make it so.
 */
export function verdictBesidesIdentity(report: CheckReport): CheckReport['verdict'] {
  expect(report.verdict).toBe(report.identity?.length ? 'findings' : 'clean');
  return report.patches.some(patchHasFindings) || report.problems.length > 0 || report.failed ? 'findings' : 'clean';
}
