// The commit-message rules of Documentation/process/ that checkpatch does not check, the recipients of mail that was
// sent against get_maintainer.pl, and the rules of the series as a whole (cover letter, repeated subjects). The rules
// of the tree the range goes to are the `tree` check's (tree.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getHeader, splitMail } from '../../mail/headers.js';
import { runGetMaintainer } from '../../tools/kernel-scripts.js';
import type { KernelTree } from '../../tree/tree.js';
import type { PatchCheck } from '../plugins.js';
import { mailFiles } from '../tree-rules.js';
import { parseSections, type MaintainersEntry } from '../../subsystems/maintainers.js';
import { withoutKeywordOnly } from '../../subsystems/recipients.js';
import { gitTry, readAtCommit } from '../../tools/git.js';
import { addressOf, checkIdentity, checkMessage, checkRecipients, checkSeries, type Problem } from '../rules.js';

/** A review's fate of a patch (kept with its problems): its reply and b4's apply entry say it, not as something to fix. */
const FATES = new Set(['not-applied', 'already-applied']);

export const rulesCheck: PatchCheck<'problems'> = {
  id: 'rules',
  field: 'problems',
  severities: ['error', 'warning', 'note'],
  columns: [{ title: 'rules', width: 7, cell: (p) => String(p.problems.length) }],
  needsApply: false,
  live: true,
  async run(r) {
    const { opts, commits } = r;
    const useGit = opts.mails ? r.history : false;
    /** Whom get_maintainer.pl names for patches that were never addressed (format-patch without --to/--cc). */
    const unaddressed = new Set<string>();
    const out: Problem[][] = [];
    const entries = parseSections((await readAtCommit(opts.tree.root, opts.base, 'MAINTAINERS')) ?? '');
    for (const [i, c] of commits.entries()) {
      r.step(i + 1, 'rules', 'start');
      const problems = checkMessage(c);
      const mail = opts.mails?.get(i + 1);
      if (mail) {
        const headers = splitMail(mail).headers;
        const got = { to: splitAddresses(getHeader(headers, 'To')), cc: splitAddresses(getHeader(headers, 'Cc')) };
        const expected = await maintainersOf(opts.tree, entries, r.mails[i]!, useGit);
        // The author and everyone a trailer names are recipients by definition (git send-email adds them).
        const named = [`<${c.author.email}>`, ...[...c.body.matchAll(/^[A-Za-z-]+-by:.*(<[^>]+>)\s*$/gim)].map((m) => m[1]!)];
        if (got.to.length + got.cc.length === 0) for (const a of [...expected.to, ...expected.cc]) unaddressed.add(a);
        else problems.push(...checkRecipients(expected, { to: [...got.to, ...named], cc: got.cc }, await mailmapOf(opts.tree, opts.base, [...expected.to, ...expected.cc, ...got.to, ...got.cc])));
      }
      r.step(i + 1, 'rules', 'done', `${problems.length} problems`);
      out.push(problems);
      for (const w of checkIdentity(c)) r.identity.add(w);
    }
    r.seriesProblems.push(...checkSeries(commits.map((c) => c.subject), opts.cover, opts.mailed === true, opts.mailedParts));
    if (unaddressed.size) r.seriesProblems.push({ kind: 'recipients-unset', severity: 'note', message: `the patches are addressed to nobody yet (no To or Cc); get_maintainer.pl would add ${[...unaddressed].join(', ')}` });
    return out;
  },
  failed: (p) => p.problems.some((x) => x.severity === 'error'),
  findings: (p) => p.problems.length > 0,
  details: (p) => p.problems.map((x) => `  ${x.severity}: ${x.kind}: ${x.message}`),
  headline: (p) => (p.problems.length ? p.problems.map((x) => x.kind).join(', ') : undefined),
  quote: (p) => p.problems.filter((y) => !FATES.has(y.kind)).map((x) => ({ text: [`${x.severity}: ${x.message}`] })),
  b4(p) {
    // The fate is the apply entry's to say.
    const rules = p.problems.filter((x) => !FATES.has(x.kind));
    return {
      tool: 'kseries',
      status: rules.some((x) => x.severity === 'error') ? 'fail' : rules.length ? 'warn' : 'pass',
      summary: rules.length ? `commit message and recipients: ${rules.length} problem${rules.length > 1 ? 's' : ''}` : 'commit message and recipients: ok',
      details: rules.map((x) => `${x.severity}: ${x.kind}: ${x.message}`).join('\n'),
    };
  },
  statement: () => undefined,
};

/** Whom get_maintainer.pl names for a mail, without those an N: keyword alone names (as emit leaves them out). */
async function maintainersOf(tree: KernelTree, entries: MaintainersEntry[], mail: string, useGit: boolean) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-gm-')), 'patch');
  try {
    fs.writeFileSync(file, mail);
    return withoutKeywordOnly(await runGetMaintainer(tree.root, file, { useGit }), mailFiles(mail), entries);
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

/**
 * Each address as the tree's .mailmap (at `base`) names its owner's canonical one, through `git check-mailmap`; an
 * address it does not map stays as it is.
 */
async function mailmapOf(tree: KernelTree, base: string, contacts: string[]): Promise<(address: string) => string> {
  const addresses = [...new Set(contacts.map(addressOf).filter((a) => a.includes('@')))];
  const out = addresses.length ? await gitTry(tree.root, ['-c', `mailmap.blob=${base}:.mailmap`, 'check-mailmap', ...addresses.map((a) => `<${a}>`)]) : undefined;
  const lines = (out ?? '').split('\n').filter(Boolean);
  const map = new Map(lines.length === addresses.length ? addresses.map((a, i) => [a, addressOf(lines[i]!)]) : []);
  return (a) => map.get(a) ?? a;
}

function splitAddresses(header: string | undefined): string[] {
  return (header ?? '').split(/,\s*/).map((a) => a.trim()).filter(Boolean);
}
