// What an object-code proof is to `kseries check`: the objects it needs around a patch, and what it proves.
import type { ObjectCode } from '../../object-code/parse.js';

/** One object file around a patch: its code before the patch and after it, as compiled and as it will run. */
export interface ObjectAround {
  before?: ObjectCode;
  compiled?: ObjectCode;
  /** After the build's own post-processing (objtool's jump-label pass), for provers that ask for it. */
  final?: ObjectCode;
  /** Why the object was not built after the patch. */
  notBuilt?: string;
}

/** What a prover establishes in the object code of one patch. */
export interface ObjectProof {
  /** The prover's id. */
  recipe: string;
  object: string;
  /** What is proven, in a few words. */
  claim: string;
  ok: boolean;
  /** Why the proof fails; empty when ok. */
  errors: string[];
  /** One line per site, with its figures before → after. */
  sites: string[];
  /** The figures in one line (for a cover letter). */
  summary: string;
  /** What the proof is about, for a message to find it by (a static key proof: the flag). */
  subject?: string;
  /** Counts a message may state as they are (a static key proof: `tests` before, `labels` after). */
  figures?: Record<string, number>;
  /** The functions that hold the proven sites in the object code ("mem_cgroup_css_alloc()"). */
  functions?: string[];
}

/** An object-code proof that `kseries check` runs on every patch it builds. Pure: parsed objects in, proofs out. */
export interface Prover {
  id: string;
  /** Objects (dir/file.o) whose code the proof of this patch needs; none when there is nothing to prove. */
  objectsToProve(patch: string): string[];
  /** Also read each object as it will run (`final`: a copy after objtool's jump-label pass). */
  readsFinal?: boolean;
  /** Bytes of these sections too (e.g. `.altinstructions`), in every object read for a proof. */
  contents?: string[];
  prove(patch: string, objects: Map<string, ObjectAround>): ObjectProof[];
  /** What a cover letter states of this prover's proofs when all of them hold, or nothing. */
  statement?(proofs: ObjectProof[]): string | undefined;
}
