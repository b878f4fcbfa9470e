// Bench case: emitting a 30-patch series, beside `git format-patch` plus one get_maintainer.pl run per patch.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyPlan, resolveCommit } from '../series/generate.js';
import { emitSeries } from '../series/emit.js';
import { kseriesDir } from '../tree/worktree.js';
import type { SeriesPlan } from '../series/plan.js';
import { gitRaw, gitRun, readAtCommit } from '../tools/git.js';
import { run } from '../tools/run.js';
import type { KernelTree } from '../tree/tree.js';
import { timed, type BenchResult } from './measure.js';

const SERIES = 'bench-emit-30';
const PATCHES = 30;

/** 30 one-line comment fixes, each in a file of a different driver directory, so get_maintainer has real work. */
async function benchPlan(tree: KernelTree, base: string): Promise<SeriesPlan> {
  const files = (await gitRaw(tree.root, ['ls-files', 'drivers/*/*.c'])).trim().split('\n');
  const oneDir = new Map<string, string>();
  for (const f of files) if (!oneDir.has(path.dirname(f))) oneDir.set(path.dirname(f), f);
  const picked = [...oneDir.values()].slice(0, PATCHES);
  const patches = [];
  for (const file of picked) {
    const before = (await readAtCommit(tree.root, base, file))!;
    const after = `${before.replace(/\n*$/, '\n')}\n/* kseries bench: ${path.basename(file)} */\n`;
    patches.push({
      subject: `${path.basename(path.dirname(file))}: Add a bench comment to ${path.basename(file)}`,
      body: `Bench patch for kseries: appends one comment line to ${file}.`,
      changes: [{ file, before, after }],
    });
  }
  return {
    recipe: 'bench',
    name: SERIES,
    params: {},
    cover: { subject: 'drivers: Bench series', body: 'A series of 30 one-line patches that kseries bench emits.' },
    patches,
  };
}

export async function benchEmit30(tree: KernelTree): Promise<BenchResult> {
  const base = await resolveCommit(tree, 'HEAD');
  for (const ref of (await gitRaw(tree.root, ['for-each-ref', '--format=%(refname)', `refs/heads/kseries/${SERIES}/`])).split('\n').filter(Boolean)) {
    await gitRaw(tree.root, ['update-ref', '-d', ref]);
  }
  fs.rmSync(path.join(kseriesDir(tree), 'series', SERIES), { recursive: true, force: true });
  const gen = await applyPlan({ tree, plan: await benchPlan(tree, base), base, author: 'kseries bench <bench@example.org>' });
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-bench-'));
  const peerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-bench-peer-'));
  try {
    const ours = await timed(() => emitSeries({ tree, name: SERIES, version: gen.version, out }));
    const peer = await timed(async () => {
      await gitRun(tree.root, ['format-patch', '-q', '-o', peerDir, '--cover-letter', `--base=${base}`, `${base}..${gen.branch}`]);
      for (const f of fs.readdirSync(peerDir).filter((n) => !n.startsWith('0000-')).sort()) {
        await run('perl', ['scripts/get_maintainer.pl', '--nogit', '--nogit-fallback', path.join(peerDir, f)], { cwd: tree.root });
      }
    });
    return {
      name: `emit a ${PATCHES}-patch series`,
      ours: ours.seconds,
      peerName: `git format-patch + ${PATCHES}× get_maintainer.pl`,
      peer: peer.seconds,
      target: '≤ 1.2×',
      ok: ours.seconds <= 1.2 * peer.seconds,
    };
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
    fs.rmSync(peerDir, { recursive: true, force: true });
  }
}
