// What recipe code sees and returns. Recipe code is pure: it reads the tree through the context, never spawns.
import type { ObjectCode } from '../object-code/parse.js';
import type { TemplateVars } from '../templates/render.js';
import type { Params } from '../templates/params.js';

export interface RecipeContext {
  tree: { root: string; version: string };
  /** A file's text at the series base, or undefined when it does not exist. */
  readFile(file: string): Promise<string | undefined>;
  /** Render one of the recipe's own template files (path relative to its folder). */
  render(template: string, vars: TemplateVars): string;
  /** Every .c file under `paths` (the whole tree when empty) whose text matches a Perl-compatible regex, with its text. */
  filesMatching(pattern: string, paths: readonly string[]): AsyncIterable<[string, string]>;
  /** The maintainers get_maintainer.pl names for a file of the tree. */
  maintainersOf(file: string): Promise<string[]>;
}

export interface RecipeCode {
  id: string;
  /** Template variables worked out from the tree and the parameters (defaults, counts, evidence). */
  prepare?(ctx: RecipeContext, params: Params): Promise<TemplateVars>;
  /** Rewrite one file for an edit of kind "transform"; throw TransformError to refuse. */
  transform?(ctx: RecipeContext, file: string, text: string, vars: TemplateVars): string;
  /** Proof in the built objects that a patch does what it says. */
  verify?: RecipeVerifier;
}

/** One object file around a patch: its code before the patch and after it, as compiled and as it will run. */
export interface ObjectAround {
  before?: ObjectCode;
  compiled?: ObjectCode;
  /** After the build's own post-processing (objtool's jump-label pass). */
  final?: ObjectCode;
  /** Why the object was not built after the patch. */
  notBuilt?: string;
}

/** What a recipe proves in the object code of one patch. */
export interface ObjectProof {
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
}

/** A recipe's object-code proof, which `kseries check` runs on every patch it builds. */
export interface RecipeVerifier {
  /** Objects (dir/file.o) whose code the proof of this patch needs; none when there is nothing to prove. */
  objectsToProve(patch: string): string[];
  prove(patch: string, objects: Map<string, ObjectAround>): ObjectProof[];
}
