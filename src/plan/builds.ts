// The build plan: every build a run needs, decided before the first make, from what each check (and generate's
// measurement) says it needs. Needs of one folder are one build with each purpose named, so the plan shows what is
// shared (the two kprobe series' KUnit kernel, the boot kernel of measure and of the lockdep boots). Each build says
// what the cache holds of it, how many objects its configuration builds, and what it took here before.
import fs from 'node:fs';
import path from 'node:path';
import { objectsToBuild, setSymbols } from '../build/kbuild.js';
import { buildTimes, type BuildTimes } from '../build/ledger.js';
import type { KernelNeed } from '../build/need.js';
import { patchChecks, seriesChecks, type PlanContext } from '../check/plugins.js';
import { bootKernelNeed, type MeasuredKinds } from '../measure/kernel.js';

export interface PlannedBuild extends Omit<KernelNeed, 'why'> {
  /** Every purpose, in the order the run meets them. */
  why: string[];
  /** What the cache holds: a built kernel, a configured folder (and how many symbol sets beside it), or nothing. */
  holds: { state: 'built' | 'configured' | 'nothing'; folders: number };
  /** The objects its configuration builds (Kbuild's lists under its .config); a kernel's only, once configured. */
  objects?: number;
  /** What its builds took here. */
  took: BuildTimes;
}

export interface BuildPlan {
  builds: PlannedBuild[];
}

/** One series of a run: what its checks ask, and for generate the boot kernel it measures in (manifest `measure`). */
export interface PlannedSeries extends PlanContext {
  measure?: { config: string; candidates: MeasuredKinds };
}

/** The plan of a run of these series: their needs, merged by folder, in the order the run meets them. */
export async function planBuilds(series: PlannedSeries[]): Promise<BuildPlan> {
  const needs: KernelNeed[] = [];
  for (const s of series) {
    if (s.measure) needs.push(bootKernelNeed(s.tree, s.measure.config, s.measure.candidates, `${s.series}: how often each candidate's test runs, measured in the booted kernel`, s.env));
    for (const c of patchChecks()) needs.push(...((await c.kernels?.(s)) ?? []));
    for (const c of seriesChecks()) needs.push(...((await c.kernels?.(s)) ?? []));
  }
  const byDir = new Map<string, PlannedBuild>();
  for (const n of needs) {
    const known = byDir.get(n.dir);
    if (known) {
      if (!known.why.includes(n.why)) known.why.push(n.why);
      continue;
    }
    byDir.set(n.dir, { ...n, why: [n.why], holds: holdsOf(n), took: buildTimes(n.dir, series[0]?.env) });
  }
  // Whole kernels first: they are what a cold run waits for.
  const builds = [...byDir.values()].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'kernel' ? -1 : 1));
  for (const b of builds) if (b.kind === 'kernel') b.objects = (await configuredObjects(b.dir)) ?? b.took.cold?.objects ?? b.took.warm?.objects;
  return { builds };
}

/** What the cache holds of a build: for objects, its folder and the folders of its symbol sets beside it. */
function holdsOf(n: KernelNeed): PlannedBuild['holds'] {
  const has = (d: string, f: string) => fs.existsSync(path.join(d, f));
  if (n.kind === 'kernel') return { state: has(n.dir, 'vmlinux') ? 'built' : has(n.dir, '.config') ? 'configured' : 'nothing', folders: has(n.dir, '.config') ? 1 : 0 };
  const parent = path.dirname(n.dir);
  const own = fs.existsSync(parent) ? fs.readdirSync(parent).filter((d) => d === path.basename(n.dir) || d.startsWith(`${path.basename(n.dir)}+`)) : [];
  const folders = own.filter((d) => has(path.join(parent, d), '.config')).length;
  return { state: folders ? 'configured' : 'nothing', folders };
}

/** The objects a configured kernel folder builds, from the Makefiles of the source it follows (its `source` link). */
async function configuredObjects(dir: string): Promise<number | undefined> {
  const config = path.join(dir, '.config');
  if (!fs.existsSync(config) || !fs.existsSync(path.join(dir, 'source'))) return undefined;
  const read = (f: string) => fs.promises.readFile(path.join(dir, 'source', f), 'utf8').catch(() => undefined);
  return objectsToBuild(read, setSymbols(fs.readFileSync(config, 'utf8')));
}

/** The plan as text: each build, its folder and state, why it is built, and what it took here. */
export function formatPlan(plan: BuildPlan, home = ''): string[] {
  const kernels = plan.builds.filter((b) => b.kind === 'kernel').length;
  const objects = plan.builds.length - kernels;
  const out = [`build plan: ${kernels} kernel${kernels === 1 ? '' : 's'}, ${objects} object build${objects === 1 ? '' : 's'}`];
  const short = (d: string) => (home && d.startsWith(home) ? `~${d.slice(home.length)}` : d);
  for (const b of plan.builds) {
    out.push(`  ${b.name}: ${b.config}`);
    const state = b.holds.state === 'nothing' ? 'not in the cache' : b.kind === 'kernel' ? b.holds.state : `configured, ${b.holds.folders} symbol set${b.holds.folders === 1 ? '' : 's'}`;
    out.push(`    ${short(b.dir)}: ${state}${b.objects ? `; about ${b.objects} objects` : ''}`);
    for (const [what, who] of byPurpose(b.why)) out.push(`    for ${who.join(', ')}: ${what}`);
    if (b.kind === 'kernel') out.push(`    took here: ${tookText(b.took)}`);
  }
  return out;
}

/** "9m05s cold (1473 objects), 41s warm", or that it was never built here. */
export function tookText(t: BuildTimes): string {
  const parts = [t.cold && `${duration(t.cold.seconds)} cold (${t.cold.compiled} objects)`, t.warm && `${duration(t.warm.seconds)} warm (${t.warm.compiled} objects)`].filter(Boolean);
  return parts.length ? parts.join(', ') : 'never built here';
}

/** "9m05s", "41s". */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/** Purposes ("series: what") with the same words, their series together, in the order first met. */
function byPurpose(why: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const w of why) {
    const [who, what] = w.includes(': ') ? [w.slice(0, w.indexOf(': ')), w.slice(w.indexOf(': ') + 2)] : ['', w];
    out.set(what, [...(out.get(what) ?? []), who]);
  }
  return out;
}
