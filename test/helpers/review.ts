// The review tests' common ground: series written as mail against the real tree's lib/ files, reviewed through the CLI
// into a folder of the test's own.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { ReviewReport } from '../../src/review/review.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { AUTHOR, type SeriesSpec } from './mails.js';
import { cli } from './cli.js';

export const SOB = `Signed-off-by: ${AUTHOR}`;
export const LIB_TO = ['Andrew Morton <akpm@linux-foundation.org>', 'linux-kernel@vger.kernel.org'];
export const CALL = 'return __inline_bsearch(key, base, num, size, cmp);';

/** A series of the lib/ maintainers' against the tree's HEAD. */
export function libSpec(tree: KernelTree, s: Omit<SeriesSpec, 'root' | 'rev'>): SeriesSpec {
  return { root: tree.root, rev: 'HEAD', to: LIB_TO, ...s };
}

export interface Reviewed {
  code: number;
  report: ReviewReport;
  err: string;
  /** Where the replies are. */
  dir: string;
}

/** kseries review of `mbox` (written to `out`), its JSON report, and the folder of its replies. */
export async function reviewMbox(tree: KernelTree, out: string, name: string, mbox: string, ...args: string[]): Promise<Reviewed> {
  const file = path.join(out, `${name}.mbox`);
  fs.writeFileSync(file, mbox);
  const r = await cli(['--tree', tree.root, 'review', file, '--out', out, '--json', ...args]);
  expect(r.code === 0 || r.code === 1, r.err).toBe(true);
  const report = JSON.parse(r.out) as ReviewReport;
  const slug = fs.readdirSync(path.join(out, 'review')).find((d) => report.series.branch.includes(`/${d}/`))!;
  return { code: r.code, report, err: r.err, dir: path.join(out, 'review', slug, `v${report.series.version}`) };
}

/** Each patch's findings by kind: problems, and checkpatch's by type. */
export const findingKinds = (r: ReviewReport) => r.patches.map((p) => [...p.problems.map((x) => x.kind), ...p.checkpatch.findings.map((f) => `checkpatch:${f.type}`)].sort());

/**
 * A commit on `parent` (HEAD) that replaces `from` with `to` in `file`, made with git's plumbing in an index of its own: no
 * branch, index or file of the checkout changes. Returns its id.
 */
export function scratchCommit(root: string, file: string, from: string, to: string, subject: string, parent = 'HEAD'): string {
  return scratchCommitOf(root, [{ file, from, to }], `${subject}\n\nChange it.\n\n${SOB}`, parent);
}

/** Like scratchCommit, with several replacements (each in its file) and the whole message. */
export function scratchCommitOf(root: string, edits: { file: string; from: string; to: string }[], message: string, parent = 'HEAD'): string {
  const index = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-index-')), 'index');
  const env = { ...process.env, GIT_INDEX_FILE: index, GIT_AUTHOR_NAME: 'A U Thor', GIT_AUTHOR_EMAIL: 'author@example.org', GIT_COMMITTER_NAME: 'A U Thor', GIT_COMMITTER_EMAIL: 'author@example.org' };
  const g = (args: string[], input?: string) => execFileSync('git', args, { cwd: root, env, input, encoding: 'utf8' }).trim();
  try {
    g(['read-tree', parent]);
    const texts = new Map<string, string>();
    for (const { file, from, to } of edits) {
      const text = texts.get(file) ?? `${g(['show', `${parent}:${file}`])}\n`;
      expect(text).toContain(from);
      texts.set(file, text.replace(from, to));
    }
    for (const [file, text] of texts) g(['update-index', '--cacheinfo', `100644,${g(['hash-object', '-w', '--stdin'], text)},${file}`]);
    return g(['commit-tree', g(['write-tree']), '-p', parent, '-m', message]);
  } finally {
    fs.rmSync(path.dirname(index), { recursive: true, force: true });
  }
}
