// The static-key verdicts against flags of the real 6.12 and 6.1 trees labelled by hand from the source (each label
// with its file:line evidence): the exact-match rate is printed per tree and family; an `auto` where the label says
// otherwise fails, and so does a rate under 80%.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import type { FlagCandidate, Verdict } from '../../src/recipes/static-key/scan.js';
import { provisionTree } from '../../src/tree/provision.js';
import { cli, REPO_ROOT, userTree } from '../helpers/tree.js';

interface Label {
  file: string;
  variable: string;
  line: number;
  verdict: Verdict;
  family: string;
  needs: string[];
  evidence: string[];
  why: string;
}

const DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'static-keys');
/** Debian's 6.1 sources (.ci/run installs linux-source-6.1); the 6.1 set is checked where they are. */
const TARBALL_61 = '/usr/src/linux-source-6.1.tar.xz';

function labelsOf(files: string[]): Label[] {
  const labels = files.flatMap((f) => JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8')) as Label[]);
  for (const l of labels) expect(l.evidence.length, `${l.file}:${l.variable} has no evidence`).toBeGreaterThan(0);
  return labels;
}

/** Scan `root`, compare with `labels`, print the exact-match rate per family and each miss; never a wrong auto. */
async function agree(tree: string, root: string, labels: Label[]): Promise<number> {
  // Only the labelled files are classified (callers, headers and architectures are still looked up tree-wide).
  const r = await cli(['--tree', root, 'scan', 'static-keys', ...[...new Set(labels.map((l) => l.file))].flatMap((f) => ['--path', f]), '--json']);
  expect(r.code, r.err).toBe(0);
  const found = new Map((JSON.parse(r.out).candidates as FlagCandidate[]).map((c) => [`${c.file}:${c.variable}`, c]));
  const misses: string[] = [];
  const wrongAuto: string[] = [];
  const byFamily = new Map<string, [number, number]>();
  for (const l of labels) {
    const c = found.get(`${l.file}:${l.variable}`);
    const got = c?.verdict ?? 'missing';
    const [hit, all] = byFamily.get(l.family) ?? [0, 0];
    byFamily.set(l.family, [hit + (got === l.verdict ? 1 : 0), all + 1]);
    if (got === l.verdict) continue;
    misses.push(`${l.file}:${l.line} ${l.variable}: labelled ${l.verdict}, scan says ${got}: ${c?.reasons[0] ?? ''}`);
    if (got === 'auto') wrongAuto.push(misses[misses.length - 1]!);
  }
  const exact = labels.length - misses.length;
  console.log(`static-key verdicts on ${tree}: ${exact} of ${labels.length} exact (${((100 * exact) / labels.length).toFixed(1)}%), ${wrongAuto.length} wrong auto`);
  console.log(`  by family: ${[...byFamily].map(([f, [h, a]]) => `${f} ${h}/${a}`).join(', ')}`);
  for (const m of misses) console.log(`  miss: ${m}`);
  expect(wrongAuto).toEqual([]);
  return exact / labels.length;
}

test('the scan agrees with the hand-labelled flags of 6.12: never a wrong auto, at least 80% exact', async () => {
  const labels = labelsOf(['labels.json', 'audit-labels.json', 'family-labels.json']);
  expect(labels.length).toBeGreaterThanOrEqual(40);
  const tree = await userTree();
  expect(await agree(`${tree.version}`, tree.root, labels)).toBeGreaterThanOrEqual(0.8);
});

test.skipIf(!fs.existsSync(TARBALL_61))('the scan agrees with the hand-labelled flags of 6.1: never a wrong auto, at least 80% exact', async () => {
  // Labels carried from the 6.12 set where the flag's uses and every evidence line are the same in 6.1, and cases
  // only 6.1 has; provisioned from Debian's tarball into the cache beside 6.12 (about 50 s the first time).
  const labels = labelsOf(['labels-6.1.json']);
  const p = await provisionTree({ cwd: fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-61-')), env: { ...process.env, KSERIES_LINUX_TARBALL: TARBALL_61 }, log: (l) => console.error(`[tree 6.1] ${l}`) });
  expect(p.tree.version).toMatch(/^6\.1\./);
  expect(await agree(p.tree.version, p.tree.root, labels)).toBeGreaterThanOrEqual(0.8);
});
