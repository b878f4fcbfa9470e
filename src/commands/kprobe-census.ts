// `kseries kprobe census DIR`: the census of any folder of x86-64 objects — a build folder, or a distribution's
// modules (Debian's linux-image-*-unsigned package, its .ko or .ko.xz files) — as check makes it of a test kernel:
// every instruction as a probe site, the .cold parts, and the sites the .cold fix newly refuses.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { censusLines, kernelObjects, kprobeCensus } from '../kprobe/census.js';
import { runBytes } from '../tools/run.js';
import { printJson, type GlobalOptions, type Io } from './io.js';

/** Object files by how they are stored: plain, or compressed as Debian and Fedora ship modules. */
const OBJECT = /\.(o|ko)$/;
const PACKED: Record<string, { program: string }> = { '.xz': { program: 'xz' }, '.zst': { program: 'zstd' }, '.gz': { program: 'gzip' } };

export async function kprobeCensusCommand(io: Io, g: GlobalOptions, a: { dir: string }): Promise<number> {
  const dir = path.resolve(io.cwd, a.dir);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new UsageError(`${a.dir}: no such folder`, 'give a build folder or a folder of modules (e.g. lib/modules/<release>/kernel of a linux-image package)');
  // A build folder: the objects linked into vmlinux (not the vDSO's or the 32-bit boot code's) and its modules.
  const files = fs.existsSync(path.join(dir, 'vmlinux.a')) ? [...(await kernelObjects(dir)), ...objectFiles(dir).filter((f) => !f.endsWith('.o'))] : objectFiles(dir);
  if (files.length === 0) throw new UsageError(`${a.dir}: no .o, .ko or compressed .ko files in it`, 'give a build folder or a folder of modules');
  const unpacked = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-census-'));
  try {
    // A compressed module is read from a copy unpacked beside the others, under the same relative name.
    const names: string[] = [];
    for (const f of files) {
      const ext = path.extname(f);
      const packed = PACKED[ext];
      const name = packed ? f.slice(0, -ext.length) : f;
      if (packed) {
        const r = await runBytes(packed.program, ['-dc', path.join(dir, f)], { cwd: dir });
        if (r.code !== 0) throw new UsageError(`${f}: ${packed.program} cannot unpack it`, 'give a folder of intact modules');
        fs.mkdirSync(path.dirname(path.join(unpacked, name)), { recursive: true });
        fs.writeFileSync(path.join(unpacked, name), r.stdout);
      } else {
        fs.mkdirSync(path.dirname(path.join(unpacked, name)), { recursive: true });
        fs.symlinkSync(path.join(dir, f), path.join(unpacked, name));
      }
      names.push(name);
    }
    const census = await kprobeCensus(unpacked, names.sort());
    if (g.json) printJson(io, { dir: a.dir, census });
    else io.out(`${censusLines(census, a.dir).join('\n')}\n`);
    return 0;
  } finally {
    fs.rmSync(unpacked, { recursive: true, force: true });
  }
}

/** The object files under `dir` (relative paths), without Kbuild's module glue (*.mod.o) and the vDSO's. */
function objectFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => (OBJECT.test(f) || (OBJECT.test(f.replace(/\.[a-z]+$/, '')) && path.extname(f) in PACKED)) && !/\.mod\.o$/.test(f))
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .sort();
}
