// Series versions: a branch kseries/<name>/v<N> per version, and a record of what made it (base, cover letter).
import fs from 'node:fs';
import path from 'node:path';
import { SeriesError } from '../errors.js';
import { gitRaw } from '../tools/git.js';
import type { KernelTree } from '../tree/tree.js';
import type { Params } from '../templates/params.js';
import { kseriesDir } from '../tree/worktree.js';

export interface SeriesRecord {
  name: string;
  version: number;
  recipe: string;
  params: Params;
  base: string;
  tip: string;
  cover: { subject: string; body: string };
  /** What a series of one patch says below its `---` (the recipe's remarks for the reviewer). */
  remarks?: string;
  createdAt: string;
  /** What changed since the previous version (from emit --notes), one line per change. */
  notes?: string[];
  /** The recipe asks for [RFC PATCH ...] subjects. */
  rfc?: boolean;
  /** The tree's tag in the subjects: [PATCH <tag> ...] (net-next). */
  subjectTag?: string;
  /** Every patch goes to everyone any patch of the series goes to (the recipe's ccAll). */
  ccAll?: boolean;
  /** Per patch subject, the MAINTAINERS entries it is Cc'd to besides get_maintainer.pl's (the recipe's cc). */
  patchCc?: Record<string, string[]>;
  /** Per patch subject, the MAINTAINERS entries whose maintainers apply it, in To (the recipe's to). */
  patchTo?: Record<string, string[]>;
  /**
   * The series this one applies on top of (the recipe's after): `base` is that version's tip, and `after.base` the
   * tree commit both stand on, which emit names as base-commit with the other series' patches as prerequisites.
   */
  after?: { name: string; version: number; base: string };
}

/** The commit of the tree a series stands on: its base, or for a series on top of another, that one's. */
export function treeBase(rec: Pick<SeriesRecord, 'base' | 'after'>): string {
  return rec.after?.base ?? rec.base;
}

export function branchName(name: string, version: number): string {
  return `kseries/${name}/v${version}`;
}

function recordFile(tree: KernelTree, name: string, version: number): string {
  return path.join(kseriesDir(tree), 'series', name, `v${version}.json`);
}

export function saveRecord(tree: KernelTree, rec: SeriesRecord): void {
  const file = recordFile(tree, rec.name, rec.version);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(rec, null, 2)}\n`);
  fs.renameSync(`${file}.tmp`, file);
}

/** Versions of a series that have a branch, ascending. */
export async function seriesVersions(tree: KernelTree, name: string): Promise<number[]> {
  const refs = await gitRaw(tree.root, ['for-each-ref', '--format=%(refname:strip=2)', `refs/heads/kseries/${name}/`]);
  return refs
    .split('\n')
    .map((r) => new RegExp(`^kseries/${name.replace(/[.]/g, '\\.')}/v(\\d+)$`).exec(r)?.[1])
    .filter((v): v is string => v !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** All series names with at least one branch, the most recently generated first. */
export async function listSeries(tree: KernelTree): Promise<string[]> {
  const refs = await gitRaw(tree.root, ['for-each-ref', '--sort=-committerdate', '--format=%(refname:strip=2)', 'refs/heads/kseries/']);
  const names = refs.split('\n').map((r) => /^kseries\/(.+)\/v\d+$/.exec(r)?.[1]).filter((n): n is string => n !== undefined);
  return [...new Set(names)];
}

/** The record of one version (the newest when none is named), with the branch's current tip. */
export async function loadSeries(tree: KernelTree, name?: string, version?: number): Promise<SeriesRecord> {
  const series = name ?? (await listSeries(tree))[0];
  if (!series) throw new SeriesError('no series has been generated in this tree', 'run `kseries generate <recipe> --set ...` first');
  const versions = await seriesVersions(tree, series);
  const v = version ?? versions[versions.length - 1];
  if (v === undefined || !versions.includes(v)) {
    const known = versions.length ? `it has ${versions.map((x) => `v${x}`).join(', ')}` : 'see `kseries series`';
    throw new SeriesError(`no series ${series}${version ? ` v${version}` : ''} in this tree`, known);
  }
  const file = recordFile(tree, series, v);
  if (!fs.existsSync(file)) throw new SeriesError(`${branchName(series, v)} was not made by kseries generate`, 'generate the series again');
  const rec = JSON.parse(fs.readFileSync(file, 'utf8')) as SeriesRecord;
  rec.tip = (await gitRaw(tree.root, ['rev-parse', `${branchName(series, v)}^{commit}`])).trim();
  return rec;
}
