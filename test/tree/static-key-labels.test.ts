// The static-key verdicts against flags of the real 6.12 tree labelled by hand from the source (each label with its
// file:line evidence): the exact-match rate is printed; an `auto` where the label says otherwise fails, and so does a
// rate under 80%.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import type { FlagCandidate, Verdict } from '../../src/recipes/static-key/scan.js';
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
const SETS = ['labels.json', 'audit-labels.json'].filter((f) => fs.existsSync(path.join(DIR, f)));

test('the scan agrees with the hand-labelled flags: never a wrong auto, at least 80% exact', async () => {
  const labels = SETS.flatMap((f) => JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8')) as Label[]);
  expect(labels.length).toBeGreaterThanOrEqual(40);
  for (const l of labels) expect(l.evidence.length, `${l.file}:${l.variable} has no evidence`).toBeGreaterThan(0);
  const tree = await userTree();
  const r = await cli(['--tree', tree.root, 'scan', 'static-keys', '--json']);
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
  console.log(`static-key verdicts: ${exact} of ${labels.length} exact (${((100 * exact) / labels.length).toFixed(1)}%), ${wrongAuto.length} wrong auto`);
  console.log(`  by family: ${[...byFamily].map(([f, [h, a]]) => `${f} ${h}/${a}`).join(', ')}`);
  for (const m of misses) console.log(`  miss: ${m}`);
  expect(wrongAuto).toEqual([]);
  expect(exact / labels.length).toBeGreaterThanOrEqual(0.8);
});
