// `kseries cache [--prune N]`: what kseries keeps in its cache, by folder, and pruning its build folders.
import os from 'node:os';
import { cacheFolders, pruneBuildFolders, type CacheFolder } from '../build/cache-folders.js';
import { cacheDir } from '../tree/paths.js';
import { printJson, type GlobalOptions, type Io } from './io.js';

export async function cache(io: Io, g: GlobalOptions, a: { prune?: number }): Promise<number> {
  let folders = await cacheFolders(io.env);
  const removed = a.prune === undefined ? [] : pruneBuildFolders(folders, a.prune);
  if (removed.length) folders = folders.filter((f) => !removed.includes(f));
  if (g.json) {
    printJson(io, { cache: cacheDir(io.env), folders, ...(a.prune === undefined ? {} : { removed }) });
    return 0;
  }
  const home = os.homedir();
  const short = (p: string) => (p.startsWith(home) ? `~${p.slice(home.length)}` : p);
  io.out(`${short(cacheDir(io.env))}: ${bytes(sum(folders))} in ${folders.length} folders`);
  for (const f of folders) io.out(`  ${bytes(f.bytes).padStart(8)}  ${f.used.slice(0, 16).replace('T', ' ')}  ${f.kind.padEnd(7)}  ${short(f.path)}`);
  if (a.prune !== undefined) io.out(`pruned ${removed.length} build folder${removed.length === 1 ? '' : 's'} (${bytes(sum(removed))}), keeping the ${a.prune} used last of each configuration`);
  return 0;
}

function sum(folders: CacheFolder[]): number {
  return folders.reduce((n, f) => n + f.bytes, 0);
}

/** "412 MB", "1.6 GB". */
function bytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} GB`;
  if (n >= 1e6) return `${Math.round(n / 1e6)} MB`;
  return `${Math.round(n / 1e3)} kB`;
}
