// du: the bytes each folder takes on disk, counted by the program that counts them.
import { runRaw } from './run.js';

/** `du -s -B1` of each path, in bytes (a hard link counted once); a path du cannot read is left out. */
export async function diskUsage(paths: string[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  if (paths.length === 0) return sizes;
  const res = await runRaw('du', ['-s', '-B1', '--', ...paths], { cwd: '/' });
  for (const line of res.stdout.split('\n')) {
    const m = /^(\d+)\t(.+)$/.exec(line);
    if (m) sizes.set(m[2]!, Number(m[1]));
  }
  return sizes;
}
