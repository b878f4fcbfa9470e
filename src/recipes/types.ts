// What recipe code sees and returns. Recipe code is pure: it reads the tree through the context, never spawns.
import type { Hits } from './static-key/measure.js';
import type { BuildOptions } from '../build/builder.js';
import type { MeasuredKinds } from '../measure/kernel.js';
import type { KernelTree } from '../tree/tree.js';
import type { Prover } from '../check/proofs/types.js';
import type { Route } from '../subsystems/route.js';
import type { TemplateVars } from '../templates/render.js';
import type { Params } from '../templates/params.js';
import type { FlagCandidate } from './static-key/scan.js';
import type { LocatedScript } from '../edits/cocci.js';

import type { OurPatch, PostedMatch } from '../mail/posted.js';

export interface RecipeContext {
  tree: { root: string; version: string };
  /** A file's text at the series base, or undefined when it does not exist. */
  readFile(file: string): Promise<string | undefined>;
  /** Render one of the recipe's own template files (path relative to its folder). */
  render(template: string, vars: TemplateVars): string;
  /** The static-key candidates under `paths` (the whole tree when empty), as `kseries scan static-keys` decides them. */
  flagCandidates(paths: readonly string[]): Promise<FlagCandidate[]>;
  /** The maintainers get_maintainer.pl names for a file of the tree. */
  maintainersOf(file: string): Promise<string[]>;
  /** Where a patch to a file goes: its tree, subject tag and MAINTAINERS entry (get_maintainer.pl --sections). */
  routeOf?(file: string): Promise<Route>;
  /** The files under Documentation/ that name `word` as a word, at the series base. */
  docsNaming?(word: string): Promise<string[]>;
  /** The .c and .h files that name `word` as a word, at the series base (a shared flag's other users). */
  sourcesNaming?(word: string): Promise<string[]>;
  /** A file's recent authors and committers (get_maintainer.pl --git); none in a tree without history. */
  authorsOf?(file: string): Promise<string[]>;
  /**
   * Which of these patches the list archives given (generate --inbox) hold already (mail/posted.ts); absent without
   * archives.
   */
  posted?(patches: OurPatch[]): Promise<PostedMatch[]>;
  /**
   * Where the tree has no history and list archives stand in for it (generate --inbox): the newest archived patch to
   * `file` (else to its folder) whose subject starts with `prefix`, for the report to cite the prefix by.
   */
  archivedPrefix?(file: string, prefix: string): Promise<{ subject: string; messageId: string } | undefined>;
  /** Subjects of the latest commits that changed a file, newest first; none in a tree without history. */
  subjectsOf?(file: string): Promise<string[]>;
  /** A folder's latest commits, newest first, with the files each changed; none in a tree without history. */
  folderLog?(folder: string): Promise<{ subject: string; files: string[] }[]>;
  /**
   * The diff a semantic patch makes over `paths` of the tree at the base (none: the whole tree), spatch run with
   * `options` besides the script's own; the same question twice is answered once.
   */
  spatch?(script: LocatedScript, paths: readonly string[], options: readonly string[]): Promise<string>;
  /**
   * For each name, the header under include/ (not uapi, not asm-generic) that defines or declares a function or
   * function-like macro of that name, as an #include names it ("linux/string_choices.h"); names none or more than
   * one header defines are left out. One search for all of them.
   */
  headersOf?(names: readonly string[]): Promise<Map<string, string>>;
  /** How often each flag's tests ran in a booted kernel (kseries measure), for a recipe whose manifest asks. */
  runtime?: RuntimeEvidence;
}

export type FlagHits = Pick<Hits, 'perSecond' | 'boot' | 'perEvent' | 'path'>;

/** Hits per flag from one boot of the tree: config, workload and accelerator as the messages name them. */
export interface RuntimeEvidence {
  config: string;
  workload: string;
  accel: 'kvm' | 'tcg';
  /** Undefined when the flag is no candidate of the measurement. */
  of(file: string, variable: string): FlagHits | { notMeasured: string } | undefined;
}

/** How generate asks for a boot's evidence: the kernel, the workload, the candidates measured. */
export interface RuntimeRequest {
  config: string;
  workload: string;
  candidates: MeasuredKinds;
}

/**
 * What a recipe asks of the tree beyond what every recipe gets (files, MAINTAINERS, history, spatch): the series
 * layer calls these when it plans that recipe, and imports no recipe to do so.
 */
export interface RecipeServices {
  flagCandidates?(tree: KernelTree, base: string): RecipeContext['flagCandidates'];
  runtime?(args: { tree: KernelTree; base: string; how: RuntimeRequest; build: BuildOptions; log?: (line: string) => void }): Promise<RuntimeEvidence>;
}

export interface RecipeCode {
  id: string;
  /** The tree services this recipe needs that not every recipe gets. */
  services?: RecipeServices;
  /** Template variables worked out from the tree and the parameters (defaults, counts, evidence). */
  prepare?(ctx: RecipeContext, params: Params): Promise<TemplateVars>;
  /** Rewrite one file for an edit of kind "transform"; throw TransformError to refuse. */
  transform?(ctx: RecipeContext, file: string, text: string, vars: TemplateVars): string;
  /** Proof in the built objects that a patch does what it says; registered with check's provers. */
  verify?: Prover;
}
