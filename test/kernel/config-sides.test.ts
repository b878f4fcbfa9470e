// Issue 45 on the real tree: real patches of the shared list archives that the kernel test robot answered with an
// error or warning of one of its configurations, each reviewed as kseries reviews a posted series (its earlier
// patches first); caught when a finding stands at the robot's file and line. Applied patches the robot never
// answered stay clean of new findings. Prints the rate, each miss with its label, and which builds ran.
import { beforeAll, expect, test } from 'vitest';
import { atLabel, held, labelArchives, readLabels, reviewLabelled } from '../../src/bench/config-sides.js';
import type { KernelTree } from '../../src/tree/tree.js';
import { userTree } from '../helpers/tree.js';

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
  const robot = configDependent.filter((l) => held(archives, [...l.series, l.patch]));
  const away = [...new Set(configDependent.filter((l) => !robot.includes(l)).map((l) => l.list))];
  if (away.length) console.log(`${configDependent.length - robot.length} labels left out: the archives of ${away.join(', ')} are not here (KSERIES_ARCHIVES)`);
  const misses: string[] = [];
  let caught = 0;
  for (const l of robot) {
    const { report, findings } = await reviewLabelled(tree, archives, [...l.series, l.patch], { sides: true });
    const hit = atLabel(findings, l);
    const last = report.patches[report.patches.length - 1]!;
    if (hit) caught++;
    else misses.push(`${l.subject} (${l.file}:${l.line612}, ${l.config}: ${l.message}) — applied: ${last.applied}, built: ${Object.values(last.build.builtOn ?? {}).flat().join('; ') || last.build.notBuilt.map((n) => n.reason).join('; ')}; findings: ${findings.join(' | ') || 'none'}`);
    console.log(`${hit ? 'caught' : 'MISSED'} ${l.kind} ${l.file}:${l.line612} ${l.symbols.join(' ')}: ${hit ?? l.message}`);
  }
  const rate = robot.length ? (100 * caught) / robot.length : 0;
  console.log(`robot's findings caught at file and line: ${caught} of ${robot.length} (${rate.toFixed(0)} %)${misses.length ? `\nmissed:\n  ${misses.join('\n  ')}` : ''}`);
  if (!away.length) expect(robot.length).toBeGreaterThanOrEqual(15);
  expect(rate).toBeGreaterThanOrEqual(90);
});

test(`applied patches the robot never answered stay clean of new build findings (${labels.controls.length} controls)`, async () => {
  const flagged: string[] = [];
  const controls = labels.controls.filter((c) => held(archives, [c.patch]));
  for (const c of controls) {
    const { report, findings } = await reviewLabelled(tree, archives, [c.patch], { sides: true });
    const p = report.patches[0]!;
    expect(p.applied, c.subject).toBe(true);
    const sides = (report.otherBuilds ?? []).filter((o) => o.why?.length).map((o) => `${o.config.base}, ${o.compiler}`);
    console.log(`${findings.length ? 'FLAGGED' : 'clean'} ${c.subject}; extra builds: ${sides.join('; ') || 'none'}`);
    if (findings.length) flagged.push(`${c.subject}: ${findings.join(' | ')}`);
  }
  console.log(`controls flagged: ${flagged.length} of ${controls.length} (${labels.controls.length - controls.length} of other archives not here)${flagged.length ? `\n  ${flagged.join('\n  ')}` : ''}`);
  expect(flagged).toEqual([]);
});
