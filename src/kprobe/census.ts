// Every instruction of every object of a kernel build, judged as a post_handler probe site: how many could move to
// the next instruction and how many stay, by first reason; and what the series' x86 rule would do with each.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { archiveMembers, readObjectCode } from '../tools/binutils.js';
import { COLD_SUFFIX, ObjectAnalysis } from './analyze.js';
import { primaryReason, type ReasonKind } from './verdict.js';

export interface Census {
  objects: number;
  functions: number;
  /** Functions GCC split off as <function>.cold[.N]: the parts the .cold fix decodes (none in a kernel built -Os). */
  coldParts: number;
  /** Of coldParts, those written by hand: in an object assembled from a .S file (a test's), not made by the compiler. */
  coldWritten: number;
  /** Sites whose optimization the .cold fix newly refuses (ObjectAnalysis.coldRefuses, a model of can_optimize()). */
  coldRefused: number;
  /** The first of them, as object: symbol+offset `instruction`. */
  coldExample?: string;
  sites: number;
  /** Sites where the object code proves the probe may move (the analyzer's `safe`). */
  move: number;
  stay: number;
  /** Sites that stay, counted under their first reason. */
  stayBy: Partial<Record<ReasonKind, number>>;
  /** What the x86 rule of the kprobe-post series does (a model of its C code, per site). */
  x86: {
    move: number;
    /** Sites it would move that the object code says must stay, by their first reason, and the first of each. */
    disagree: number;
    disagreeBy: Partial<Record<ReasonKind, number>>;
    examples: Partial<Record<ReasonKind, string>>;
  };
  seconds: number;
}

/** The objects linked into `vmlinux` of a build directory (the members of vmlinux.a). */
export function kernelObjects(buildDir: string): Promise<string[]> {
  return archiveMembers(path.join(buildDir, 'vmlinux.a'));
}

/** Analyze `objects` (relative to `buildDir`), as many at once as there are cores. */
export async function kprobeCensus(buildDir: string, objects: string[]): Promise<Census> {
  const started = Date.now();
  const c: Census = { objects: objects.length, functions: 0, coldParts: 0, coldWritten: 0, coldRefused: 0, sites: 0, move: 0, stay: 0, stayBy: {}, x86: { move: 0, disagree: 0, disagreeBy: {}, examples: {} }, seconds: 0 };
  let next = 0;
  const worker = async () => {
    while (next < objects.length) {
      const object = objects[next++]!;
      const analysis = new ObjectAnalysis(object, await readObjectCode(path.join(buildDir, object), { contents: ['.altinstructions'], rawBytes: false }));
      // Kbuild's `source` link in the build folder leads to the tree: an object of a .S file was written by hand.
      const written = fs.existsSync(path.join(buildDir, 'source', object.replace(/\.o$/, '.S')));
      for (const fn of analysis.functions()) {
        c.functions++;
        if (COLD_SUFFIX.test(fn.name)) {
          c.coldParts++;
          if (written) c.coldWritten++;
        }
        for (const site of analysis.sitesOf(fn)) {
          c.sites++;
          if (analysis.coldRefuses(fn, site.offset)) {
            c.coldRefused++;
            c.coldExample ??= `${object}: ${site.symbol}+0x${site.offset.toString(16)} \`${site.insn}\``;
          }
          const reason = primaryReason(site);
          if (site.verdict === 'safe') c.move++;
          else {
            c.stay++;
            if (reason) c.stayBy[reason] = (c.stayBy[reason] ?? 0) + 1;
          }
          if (analysis.x86Rule(fn, site.offset) !== 'move') continue;
          c.x86.move++;
          if (site.verdict === 'safe') continue;
          c.x86.disagree++;
          if (!reason) continue;
          c.x86.disagreeBy[reason] = (c.x86.disagreeBy[reason] ?? 0) + 1;
          c.x86.examples[reason] ??= `${object}: ${site.symbol}+0x${site.offset.toString(16)} \`${site.insn}\`: ${site.reasons[0]}`;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, os.cpus().length) }, worker));
  c.seconds = Math.round((Date.now() - started) / 100) / 10;
  return c;
}
