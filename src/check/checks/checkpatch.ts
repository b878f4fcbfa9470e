// checkpatch.pl of the tree on each patch as git format-patch mails it. Findings the tree causes rather than the patch
// (a commit id checkpatch cannot look up in a tree without history, a new file MAINTAINERS already covers) are
// labelled so and never mailed to the author.
import fs from 'node:fs';
import path from 'node:path';
import { runCheckpatch, withCoveredPaths, withoutHistory, type CheckpatchResult } from '../../tools/kernel-scripts.js';
import type { PatchCheck } from '../plugins.js';

/**
 * checkpatch.pl on one mail; on a tree without history, what it cannot look up is labelled the tree's, not counted,
 * and so is "does MAINTAINERS need updating?" for new files MAINTAINERS already covers.
 */
export async function checkpatchMail(treeRoot: string, mail: string, opts: { strict?: boolean; history: boolean }): Promise<CheckpatchResult> {
  const found = await runCheckpatch(treeRoot, mail, { strict: opts.strict });
  const maintainers = fs.readFileSync(path.join(treeRoot, 'MAINTAINERS'), 'utf8');
  return withCoveredPaths(opts.history ? found : withoutHistory(found), mail, maintainers);
}

export const checkpatchCheck: PatchCheck<'checkpatch'> = {
  id: 'checkpatch',
  field: 'checkpatch',
  severities: ['error', 'warning', 'check'],
  columns: [{ title: 'checkpatch', width: 12, cell: (p) => `${p.checkpatch.errors}E ${p.checkpatch.warnings}W ${p.checkpatch.checks}C` }],
  needsApply: false,
  live: true,
  run(r) {
    return Promise.all(
      r.mails.map(async (mail, i) => {
        r.step(i + 1, 'checkpatch', 'start');
        const found = await checkpatchMail(r.opts.tree.root, mail, { strict: r.opts.strict, history: r.history });
        r.step(i + 1, 'checkpatch', 'done', `${found.errors} errors, ${found.warnings} warnings, ${found.checks} checks`);
        return found;
      }),
    );
  },
  failed: (p) => p.checkpatch.errors > 0,
  // A check of checkpatch's that could not run is said, not passed over.
  findings: (p) => p.checkpatch.errors + p.checkpatch.warnings + p.checkpatch.checks > 0 || (p.checkpatch.notRun?.length ?? 0) > 0,
  details: (p) => [
    ...p.checkpatch.findings.map((f) => `  checkpatch ${f.level.toUpperCase()}:${f.type}: ${f.file ? `${f.file}:${f.line}: ` : ''}${f.message}${f.fromTree ? ` (from the tree, not the patch: ${f.fromTree})` : ''}`),
    ...(p.checkpatch.notRun ?? []).map((n) => `  checkpatch: ${n}`),
  ],
  headline(p) {
    const cp = p.checkpatch;
    return cp.errors + cp.warnings + cp.checks ? `checkpatch ${cp.errors}E ${cp.warnings}W ${cp.checks}C` : undefined;
  },
  quote: (p) => p.checkpatch.findings.filter((x) => !x.fromTree).map((f) => ({ file: f.file, line: f.file ? f.line : undefined, text: [`checkpatch.pl ${f.level.toUpperCase()}:${f.type}: ${f.message}`] })),
  b4(p) {
    const cp = p.checkpatch;
    return {
      tool: 'kseries',
      status: cp.errors ? 'fail' : cp.warnings + cp.checks ? 'warn' : 'pass',
      summary: `checkpatch.pl: ${cp.errors} errors, ${cp.warnings} warnings, ${cp.checks} checks`,
      details: cp.findings.map((f) => `${f.level.toUpperCase()}:${f.type}: ${f.file ? `${f.file}:${f.line}: ` : ''}${f.message}`).join('\n'),
    };
  },
  statement(r) {
    const errors = r.patches.reduce((n, p) => n + p.checkpatch.errors, 0);
    const warnings = r.patches.reduce((n, p) => n + p.checkpatch.warnings, 0);
    if (errors) return undefined;
    // What checkpatch printed that the tree answers (a new file MAINTAINERS covers, a commit a tree without history
    // cannot look up) is said too: the report holds it, so "no warnings" alone would not be true.
    const answered = [...new Set(r.patches.flatMap((p) => p.checkpatch.findings.filter((f) => f.fromTree).map((f) => f.type)))];
    const besides = answered.length ? ` of the patches' own (it also prints ${answered.join(', ')}, which the tree answers: see the report)` : '';
    return warnings === 0 ? `checkpatch.pl reports no errors or warnings${besides}` : `checkpatch.pl reports no errors${besides}`;
  },
};
