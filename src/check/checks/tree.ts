// The rules of the tree the range goes to (tree-rules.ts: its series limit, its bot's column limit, the tag its
// subjects carry), each problem quoting where its rule is written: what a maintainer's profile and bots would say
// before the patches reach them. Warnings: a tree's rule asks, it does not make the patch wrong.
import { getHeader, splitMail } from '../../mail/headers.js';
import { parseSections } from '../../subsystems/maintainers.js';
import { readAtCommit } from '../../tools/git.js';
import type { PatchCheck } from '../plugins.js';
import { rangeRules, treeRuleProblems } from '../tree-rules.js';

export const treeCheck: PatchCheck<'tree'> = {
  id: 'tree',
  field: 'tree',
  severities: ['warning'],
  columns: [{ title: 'tree', width: 6, cell: (p) => String(p.tree.length) }],
  needsApply: false,
  live: false,
  async run(r) {
    const { opts } = r;
    const read = (f: string) => readAtCommit(opts.tree.root, opts.base, f);
    // The tree the range goes to (routing runs get_maintainer.pl once for all files); none the table knows: the
    // general rules alone.
    const entries = parseSections((await read('MAINTAINERS')) ?? '');
    const found = await rangeRules(opts.tree, entries, r.mails).catch(() => undefined);
    const subjects = r.commits.map((_, i) => {
      const mailed = opts.mails?.get(i + 1);
      return mailed ? getHeader(splitMail(mailed).headers, 'Subject')?.replace(/\s+/g, ' ') : undefined;
    });
    const { patches, series } = await treeRuleProblems(read, found, r.mails, subjects);
    r.seriesProblems.push(...series);
    return patches;
  },
  failed: (p) => p.tree.some((x) => x.severity === 'error'),
  findings: (p) => p.tree.length > 0,
  details: (p) => p.tree.map((x) => `  ${x.severity}: ${x.kind}: ${x.message}`),
  headline: (p) => (p.tree.length ? [...new Set(p.tree.map((x) => x.kind))].join(', ') : undefined),
  quote: (p) => p.tree.map((x) => ({ text: [`${x.severity}: ${x.message}`] })),
  b4: (p) => ({
    tool: 'kseries',
    status: p.tree.length ? 'warn' : 'pass',
    summary: p.tree.length ? `rules of the tree it goes to: ${p.tree.length} problem${p.tree.length > 1 ? 's' : ''}` : "rules of the tree it goes to: ok",
    details: p.tree.map((x) => `${x.severity}: ${x.kind}: ${x.message}`).join('\n'),
  }),
  statement: () => undefined,
};
