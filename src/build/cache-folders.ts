// What kseries keeps in its cache, and how much of it: each build folder (a configuration's, and one per set of
// symbols a run asked for, `<config>+<digest>`; one per kunitconfig, `kunit.py+<digest>`), the shared source folders,
// the provisioned trees, the kept results and ccache. Build folders add up (16 symbol sets per configuration are kept,
// each with its prepared tree and objects); pruning keeps the folders used last of each configuration.
import fs from 'node:fs';
import path from 'node:path';
import { diskUsage } from '../tools/du.js';
import { cacheDir } from '../tree/paths.js';
import { CCACHE_FOLDER } from './compiler.js';

export interface CacheFolder {
  path: string;
  /** build: a build folder; source: a shared source folder; tree: a provisioned tree; results; ccache (and the compiler's answers to Kbuild). */
  kind: 'build' | 'source' | 'tree' | 'results' | 'ccache';
  /** A build folder's configuration: its name without the symbol set (`defconfig`, `kunit.py`), with its owner. */
  group?: string;
  bytes: number;
  /** When it was last used (ISO time): its newest marker file. */
  used: string;
}

/** Files whose time tells when a build folder was last used: configured, asked, prepared, built. */
const MARKERS = ['.config', '.kseries-asked', '.kseries-prepared', 'vmlinux', 'include/config/auto.conf'];

/** Every folder of the cache, build folders first, each group's used last first. */
export async function cacheFolders(env?: NodeJS.ProcessEnv): Promise<CacheFolder[]> {
  const root = cacheDir(env);
  const found: Omit<CacheFolder, 'bytes'>[] = [];
  const builds = path.join(root, 'build');
  for (const owner of subfolders(builds)) {
    for (const name of subfolders(path.join(builds, owner))) {
      const dir = path.join(builds, owner, name);
      found.push({ path: dir, kind: 'build', group: `${owner}/${name.replace(/\+[0-9a-f]+$/, '')}`, used: usedAt(dir) });
    }
  }
  for (const name of subfolders(path.join(root, 'sources'))) found.push({ path: path.join(root, 'sources', name), kind: 'source', used: usedAt(path.join(root, 'sources', name)) });
  for (const name of subfolders(root).filter((n) => n.startsWith('linux-'))) found.push({ path: path.join(root, name), kind: 'tree', used: usedAt(path.join(root, name)) });
  for (const name of ['results', 'measure', 'scan'].filter((n) => fs.existsSync(path.join(root, n)))) found.push({ path: path.join(root, name), kind: 'results', used: usedAt(path.join(root, name)) });
  const ccache = env?.CCACHE_DIR ?? path.join(root, CCACHE_FOLDER);
  if (fs.existsSync(ccache)) found.push({ path: ccache, kind: 'ccache', used: usedAt(ccache) });
  // The compiler's answers to Kbuild's questions about itself (tools/probe-cache.ts): a compiler cache too.
  const probes = path.join(root, 'kbuild-probes');
  if (fs.existsSync(probes)) found.push({ path: probes, kind: 'ccache', used: usedAt(probes) });
  const sizes = await diskUsage(found.map((f) => f.path));
  const order = ['build', 'source', 'tree', 'results', 'ccache'];
  return found
    .map((f) => ({ ...f, bytes: sizes.get(f.path) ?? 0 }))
    .sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || (a.group ?? '').localeCompare(b.group ?? '') || b.used.localeCompare(a.used));
}

/**
 * Keep the `keep` build folders of each configuration used last, remove the others (with what kseries keeps beside a
 * KUnit folder: its kunitconfig and results). A folder removed is built again when a run asks for it.
 */
export function pruneBuildFolders(folders: CacheFolder[], keep: number): CacheFolder[] {
  const removed: CacheFolder[] = [];
  const seen = new Map<string, number>();
  for (const f of folders.filter((x) => x.kind === 'build')) {
    const n = (seen.get(f.group!) ?? 0) + 1;
    seen.set(f.group!, n);
    if (n <= keep) continue;
    fs.rmSync(f.path, { recursive: true, force: true });
    const parent = path.dirname(f.path);
    for (const beside of fs.readdirSync(parent).filter((x) => x.startsWith(`${path.basename(f.path)}.`))) fs.rmSync(path.join(parent, beside), { force: true });
    removed.push(f);
  }
  return removed;
}

function subfolders(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort() : [];
}

function usedAt(dir: string): string {
  const times = [dir, ...MARKERS.map((m) => path.join(dir, m))].map((f) => fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0);
  return new Date(Math.max(...times)).toISOString();
}
