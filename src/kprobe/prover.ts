// A patch that adds a kprobe with only a post_handler on a function of the same file: may that probe move to the next
// instruction (a pre_handler there, no single-step, jump-optimizable)? The analyzer answers on the built object, so
// `kseries check` and `kseries review` can say so at the patch. Pure: the patch text and parsed objects in.
import type { ObjectAround, ObjectProof, Prover } from '../check/proofs/types.js';
import { ObjectAnalysis } from './analyze.js';

export interface PostOnlyProbe {
  /** The .c file the patch adds it to, and its object. */
  file: string;
  object: string;
  /** The struct kprobe's name. */
  name: string;
  symbol: string;
  offset: number;
}

/** `struct kprobe NAME = { ... }` initializers the patch adds with a .post_handler, no .pre_handler and a .symbol_name. */
export function postOnlyProbes(patch: string): PostOnlyProbe[] {
  const out: PostOnlyProbe[] = [];
  for (const part of patch.split(/^diff --git /m).slice(1)) {
    const file = /^\+\+\+ b\/(\S+\.c)$/m.exec(part)?.[1];
    if (!file) continue;
    const added = part.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++')).map((l) => l.slice(1)).join('\n');
    for (const m of added.matchAll(/struct\s+kprobe\s+(\w+)\s*=\s*\{([^}]*)\}/g)) {
      const body = m[2]!;
      const symbol = /\.symbol_name\s*=\s*"([^"]+)"/.exec(body)?.[1];
      if (!symbol || !/\.post_handler\s*=/.test(body) || /\.pre_handler\s*=/.test(body)) continue;
      const offset = /\.offset\s*=\s*(0x[0-9a-f]+|\d+)/i.exec(body)?.[1];
      out.push({ file, object: file.replace(/\.c$/, '.o'), name: m[1]!, symbol, offset: offset ? Number(offset) : 0 });
    }
  }
  return out;
}

export const kprobePostProver: Prover = {
  id: 'kprobe-post',
  // Only the probes a patch declares with a .symbol_name in the file that defines the symbol: one whose address is set
  // at run time is not judged, and the sentence says so rather than "every".
  statement: (proofs) =>
    `in the built objects (objdump), the kprobe analyzer judged the sites of the post_handler-only kprobes the patches declare with a .symbol_name of the same file (${proofs.map((p) => p.claim.split(',')[0]).join(', ')}); a probe given its address at run time is not judged`,
  contents: ['.altinstructions'],
  objectsToProve: (patch) => [...new Set(postOnlyProbes(patch).map((p) => p.object))],
  prove(patch: string, objects: Map<string, ObjectAround>): ObjectProof[] {
    const proofs: ObjectProof[] = [];
    for (const p of postOnlyProbes(patch)) {
      const code = objects.get(p.object)?.compiled;
      if (!code) continue;
      const site = `${p.symbol}+0x${p.offset.toString(16)}`;
      const v = new ObjectAnalysis(p.object, code).site(p.symbol, p.offset);
      if (v.verdict === 'error') continue; // the symbol lives in another object: nothing to say from this one
      const moves = v.verdict === 'safe';
      proofs.push({
        recipe: 'kprobe-post',
        object: p.object,
        claim: `${p.name}, a post_handler-only kprobe on ${site} (${v.insn}), ${moves ? `may move to a pre_handler on ${p.symbol}+0x${v.next_offset!.toString(16)}: no single-step, and it can be jump-optimized` : 'needs a single-step there'}`,
        ok: true,
        errors: [],
        sites: moves ? [] : v.reasons,
        summary: `${site}: ${moves ? 'may move' : `stays (${v.kinds.join(', ')})`}`,
      });
    }
    return proofs;
  },
};
