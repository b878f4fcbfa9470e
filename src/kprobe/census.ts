// Every instruction of every object of a kernel build, judged as a post_handler probe site: how many could move to
// the next instruction and how many stay, by first reason; and what the series' x86 rule would do with each.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { archiveMembers, readObjectCode } from '../tools/binutils.js';
import { COLD_SUFFIX, ObjectAnalysis, type ColdRefusal } from './analyze.js';
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
  /** Of coldRefused, by why (ObjectAnalysis.coldRefusal): `jump` are the sites a .cold part jumps into, the crash. */
  coldRefusedBy?: Partial<Record<ColdRefusal, number>>;
  /** The first of them, as object: symbol+offset `instruction`, one the other part jumps into where there is one. */
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
        // __pfx_<fn>.cold is the padding before a .cold part (CONFIG_CALL_PADDING), not a part of its own.
        if (COLD_SUFFIX.test(fn.name) && !fn.name.startsWith('__pfx_')) {
          c.coldParts++;
          if (written) c.coldWritten++;
        }
        for (const site of analysis.sitesOf(fn)) {
          c.sites++;
          const refusal = analysis.coldRefusal(fn, site.offset);
          if (refusal) {
            c.coldRefused++;
            const by = (c.coldRefusedBy ??= {});
            by[refusal] = (by[refusal] ?? 0) + 1;
            if (refusal === 'jump' && by.jump === 1) c.coldExample = undefined;
            if (refusal === 'jump' || !by.jump) c.coldExample ??= `${object}: ${site.symbol}+0x${site.offset.toString(16)} \`${site.insn}\``;
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

/** The census as a report says it, a line each: the instructions, the .cold parts, the fix's refusals, the moves. */
export function censusLines(c: Census, of: string): string[] {
  const out = [`census of ${of}: ${c.sites} instructions in ${c.functions} functions (${c.coldParts} of them .cold parts, ${c.coldWritten ?? 0} written in assembly) of ${c.objects} objects (${c.seconds} s):`];
  const by = c.coldRefusedBy ?? {};
  const why = [by.jump ? `${by.jump} a .cold part jumps into` : '', by.indirect ? `${by.indirect} beside a part with an indirect jump` : '', by.unfound ? `${by.unfound} in a .cold part whose function it cannot find (fails closed)` : ''].filter(Boolean).join(', ');
  if (c.coldRefused) out.push(`  the .cold fix newly refuses ${c.coldRefused}${why ? ` (${why})` : ''}; the first${by.jump ? ' jumped into' : ''}: ${c.coldExample}`);
  out.push(`  a post_handler probe may move on ${c.move}, stays on ${c.stay}: ${Object.entries(c.stayBy).sort((a, b) => b[1]! - a[1]!).map(([r, n]) => `${r} ${n}`).join(', ')}`);
  out.push(`  the kprobe-post series' x86 rule moves ${c.x86.move}; of those the object code keeps ${c.x86.disagree}: ${Object.entries(c.x86.disagreeBy).map(([r, n]) => `${r} ${n}`).join(', ') || 'none'}`);
  return out;
}
