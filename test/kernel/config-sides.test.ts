// Issue 45 on the real tree: real patches of the shared list archives that the kernel test robot answered with an
// error or warning of one of its configurations, each reviewed as kseries reviews a posted series (its earlier
// patches first); caught when a finding stands at the robot's file and line. Applied patches the robot never
// answered stay clean of new findings. Prints the rate, each miss with its label, and which builds ran.
import { beforeAll, expect, test } from 'vitest';
import { atLabel, held, labelArchives, readLabels, reviewLabelled } from '../../src/bench/config-sides.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { proveRange } from '../../src/check/check.js';
import { readIndexed } from '../../src/mail/inbox.js';
import { amChains, git, userTree } from '../helpers/tree.js';

const labels = readLabels();
let tree: KernelTree;
let archives: Awaited<ReturnType<typeof labelArchives>>;

beforeAll(async () => {
  tree = await userTree();
  archives = await labelArchives();
});

/** The robot's configuration-dependent findings: the set the rate is of. */
const configDependent = labels.robot.filter((l) => l.kind === 'config' || l.kind === 'arch');

test(`the robot's configuration-dependent findings are reported at its file and line (${configDependent.length} labels)`, async () => {
  // The shared archives are always here; other lists' clones where KSERIES_ARCHIVES names them. The rate is of the labels
  // whose mails this machine holds, and says which it does not.
  // KSERIES_LABELS (files, comma-separated) runs only those labels again: no rate of the set then.
  const only = process.env.KSERIES_LABELS?.split(',').filter(Boolean);
  const here = configDependent.filter((l) => held(archives, [...l.series, l.patch]));
  const robot = here.filter((l) => !only || only.includes(l.file));
  const away = [...new Set(configDependent.filter((l) => !here.includes(l)).map((l) => l.list))];
  if (away.length) console.log(`${configDependent.length - here.length} labels left out: the archives of ${away.join(', ')} are not here (KSERIES_ARCHIVES)`);
  const misses: string[] = [];
  let caught = 0;
  // A patch the robot answered from several configurations (lenovo_se30 on m68k, riscv and um) is reviewed once.
  for (const patch of new Set(robot.map((l) => l.patch))) {
    const mine = robot.filter((l) => l.patch === patch);
    // A review that fails is a miss of each of its labels, with why: the rest still run.
    const reviewed = await reviewLabelled(tree, archives, [...mine[0]!.series, patch], { sides: true }).catch((e: Error) => e);
    if (reviewed instanceof Error) {
      for (const l of mine) misses.push(`${l.subject} (${l.file}:${l.line612}): the review failed: ${reviewed.message}`);
      console.log(`FAILED ${patch}: ${reviewed.message}`);
      continue;
    }
    const { report, findings } = reviewed;
    const last = report.patches[report.patches.length - 1]!;
    for (const l of mine) {
      const hit = atLabel(findings, l);
      if (hit) caught++;
      else misses.push(`${l.subject} (${l.file}:${l.line612}, ${l.config}: ${l.message}) — applied: ${last.applied}, built: ${Object.entries(last.build.builtOn ?? {}).map(([o, b]) => `${o}: ${b.join('; ')}`).join(' | ') || last.build.notBuilt.map((n) => n.reason).join('; ')}; findings: ${findings.join(' | ') || 'none'}`);
      console.log(`${hit ? 'caught' : 'MISSED'} ${l.kind} ${l.config} ${l.file}:${l.line612} ${l.symbols.join(' ')}: ${hit ?? l.message}`);
    }
  }
  const rate = robot.length ? (100 * caught) / robot.length : 0;
  console.log(`robot's findings caught at file and line: ${caught} of ${robot.length} (${rate.toFixed(0)} %)${misses.length ? `\nmissed:\n  ${misses.join('\n  ')}` : ''}`);
  if (!away.length && !only) expect(robot.length).toBeGreaterThanOrEqual(15);
  expect(rate).toBeGreaterThanOrEqual(90);
});

test(`applied patches the robot never answered stay clean of new build findings (${labels.controls.length} controls)`, async () => {
  // A few ranges of all of them (each applies alone; chained where they apply one after the other): one
  // configuration per build for a range, not one per patch.
  const controls = labels.controls.filter((c) => held(archives, [c.patch]));
  const flagged: string[] = [];
  const base = git(tree.root, 'rev-parse', 'HEAD').trim();
  const messages = await readIndexed(archives.epochs, controls.map((c) => archives.byId.get(c.patch)!));
  const others: NonNullable<Awaited<ReturnType<typeof proveRange>>['others']> = [];
  const chains = amChains(tree.root, base, messages.map((m) => m.raw));
  for (const chain of chains) {
    const built = await proveRange({ tree, base, tip: chain.tip, config: 'defconfig', distcc: false });
    others.push(...(built.others ?? []));
    for (const [k, i] of chain.mails.entries()) {
      const c = controls[i]!;
      const r = built.reports[k]!;
      const findings = [...r.errors, ...r.newWarnings];
      console.log(`${findings.length ? 'FLAGGED' : 'clean'} ${c.subject}; built: ${Object.entries(r.builtOn ?? {}).map(([o, b]) => `${o}: ${b.join('; ')}`).join(' | ')}`);
      if (findings.length) flagged.push(`${c.subject}: ${findings.join(' | ')}`);
    }
  }
  const sides = others.filter((o) => o.why);
  console.log(`the other side and other machines: ${sides.map((o) => `${o.config.base}, ${o.compiler} (${o.why!.length} reasons)`).join('; ') || 'none'}`);
  console.log(`controls flagged: ${flagged.length} of ${controls.length} (${labels.controls.length - controls.length} of other archives not here)${flagged.length ? `\n  ${flagged.join('\n  ')}` : ''}`);
  expect(chains.flatMap((c) => c.mails).length).toBe(controls.length);
  expect(flagged).toEqual([]);
});
