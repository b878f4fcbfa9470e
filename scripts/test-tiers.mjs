#!/usr/bin/env node
// npm test: type-check, build, then the three test tiers in order (unit, tree, kernel), stopping at the first that
// fails; each tier's wall time and test count are printed as it ends and again together at the end.
// `node scripts/test-tiers.mjs tree kernel` runs only those tiers.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const TIERS = ['unit', 'tree', 'kernel'];
const asked = process.argv.slice(2);
for (const t of asked) if (!TIERS.includes(t)) fail(`unknown tier ${t}: give ${TIERS.join(', ')}`);
const tiers = asked.length ? TIERS.filter((t) => asked.includes(t)) : TIERS;
const root = path.resolve(import.meta.dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

const begun = Date.now();
step('type-check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
step('build', bin('tsc'), ['-p', 'tsconfig.build.json']);
const done = [];
for (const tier of tiers) {
  const json = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-tier-')), 'results.json');
  const started = Date.now();
  const r = spawnSync(bin('vitest'), ['run', '--project', tier, '--reporter=default', '--reporter=json', `--outputFile.json=${json}`], { cwd: root, stdio: 'inherit' });
  const seconds = (Date.now() - started) / 1000;
  const counts = fs.existsSync(json) ? JSON.parse(fs.readFileSync(json, 'utf8')) : {};
  const line = `tier ${tier}: ${r.status === 0 ? 'passed' : 'FAILED'}, ${counts.numPassedTests ?? '?'} of ${counts.numTotalTests ?? '?'} tests in ${counts.testResults?.length ?? '?'} files, ${minutes(seconds)} wall`;
  done.push(line);
  console.log(`\n${line}\n`);
  if (r.status !== 0) break;
}
console.log([...done, `all tiers: ${minutes((Date.now() - begun) / 1000)} wall, type-check and build included`].join('\n'));
process.exit(done.length === tiers.length && done.every((l) => l.includes(': passed,')) ? 0 : 1);

function step(what, program, args) {
  const r = spawnSync(program, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) fail(`${what} failed`);
}

function minutes(s) {
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

function fail(message) {
  console.error(`test: ${message}`);
  process.exit(1);
}
