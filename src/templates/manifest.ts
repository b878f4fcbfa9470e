// A recipe's manifest: patch-templates/<id>/manifest.json. Validated here so a user's recipe fails with a clear line.
import fs from 'node:fs';
import path from 'node:path';
import { RecipeError } from '../errors.js';
import type { InsertPosition, Place } from '../edits/apply.js';
import { ARCH_NAMES } from '../build/targets.js';
import { PARAM_TYPES, type ParamSpec } from './params.js';

export type EditSpec = (
  /** A rendered unified diff, applied with context tolerance. */
  | { kind: 'diff'; template: string }
  /**
   * A rendered fragment placed before/after the lines a Place names, replacing them, or (substitute) replacing the
   * part of the anchor line the anchor matches.
   */
  | ({ kind: 'insert'; file: string; position: InsertPosition; template: string } & Place)
  /** Lines of the tree moved, unchanged, before or after other lines of the same file. */
  | ({ kind: 'move'; file: string; to: Place & { position: 'before' | 'after' } } & Place)
  /** A rendered new file. */
  | { kind: 'new-file'; file: string; template: string }
  /** The recipe code's transform of a file. */
  | { kind: 'transform'; file: string }
  /**
   * A Coccinelle semantic patch run by spatch over `paths` of the tree at the base (`tree:<path>`, or a file of the
   * recipe); `options` are added to the script's own `// Options:`; `files` keeps only the diff of those files.
   */
  | { kind: 'cocci'; script: string; paths: string[]; options: string[]; files?: string }
) & {
  /** Name of a list variable: the edit is made once per element, the element's fields added to the variables. */
  each?: string;
};

export interface PatchSpec {
  /** Inline template of the commit subject. */
  subject: string;
  /** Template file of the commit body. */
  body: string;
  edits: EditSpec[];
  /** Name of a list variable: one patch per element, the element's fields added to the variables. */
  each?: string;
  /**
   * MAINTAINERS entries (by name) whose people and lists this patch is Cc'd to besides what get_maintainer.pl names
   * for its files: the owners of what it changes by meaning, not by path (OBJTOOL for how GCC splits a function).
   */
  cc?: string[];
  /**
   * MAINTAINERS entries (by name) whose maintainers apply this patch although get_maintainer.pl does not name them
   * first (KPROBES for arch/x86/kernel/kprobes/, which the x86 entry covers): its M: people in To, its lists in Cc.
   */
  to?: string[];
}

export interface Manifest {
  id: string;
  dir: string;
  description: string;
  /** Inline template of the series name (branch kseries/<series>/v<N>, out/<series>/). */
  series: string;
  /** Id of built-in recipe code to use; defaults to the recipe id when such code exists. */
  code?: string;
  params: Record<string, ParamSpec>;
  /**
   * The cover letter; optional for a recipe of one patch (emit writes none for a single patch). `remarks`: what a
   * series of one patch says below its `---` instead (notes for the reviewer that git am drops).
   */
  cover?: { subject: string; template: string; remarks?: string };
  patches: PatchSpec[];
  /** The series is a request for comments: emitted as [RFC PATCH ...] unless emit says otherwise. */
  rfc: boolean;
  /**
   * Every patch goes to everyone any patch of the series goes to (get_maintainer.pl of each patch, united), for a
   * series whose patches its reviewers must read together (a core change and the architecture code it calls).
   */
  ccAll: boolean;
  /** KUnit tests `kseries check` runs on the base and on the series (and generate on its draft). */
  kunit?: KunitSpec;
  /** The machines `kseries check` builds the series' files for besides x86-64 (Kbuild ARCH names: i386, arm64, riscv). */
  arches: string[];
  /** generate boots the tree first (kseries measure) and gives the recipe each flag's hits (context.runtime). */
  measure: boolean;
  /**
   * Name of a list variable: one independent series per element (its fields added to the variables), e.g. one per
   * maintainer tree. An element's `subjectTag` goes into its subjects ("[PATCH net-next]").
   */
  split?: string;
  /** Shapes of code the recipe was not written for: a tree where `match` matches a line of `file` is refused. */
  unfit: { file: string; match: string; why: string }[];
  /**
   * Shapes of code the recipe's templates tell apart (what differs between kernels it fits): the template variable
   * `tree.<name>` is true where `match` matches a line of `file` in the tree.
   */
  shapes: Record<string, { file: string; match: string }>;
  /**
   * The series this one applies on top of (its name): generate bases it on that series' newest version, made on the
   * same base, and emit names that series' patches as prerequisites (a fix sent on its own before an RFC that needs it).
   */
  after?: string;
}

export interface KunitSpec {
  /** Lines of the .kunitconfig (`CONFIG_X=y`). */
  config: string[];
  /** Also count, over every object of the series' KUnit kernel, the sites where a post_handler probe would move. */
  kprobeCensus: boolean;
  /** Symbols whose values in the test kernels' .config the report states (a message names the config it ran on). */
  show: string[];
  /**
   * The subject of the series' fix: its tests run once more on the series without that patch, where one of the tests
   * the series adds must fail (the test shows the bug it fixes).
   */
  without?: string;
}

export function readManifest(dir: string): Manifest {
  const file = path.join(dir, 'manifest.json');
  const where = (field: string) => `${file}: ${field}`;
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    const why = e instanceof SyntaxError ? `not valid JSON (${e.message})` : 'cannot be read';
    throw new RecipeError(`${file}: ${why}`, 'a recipe folder needs a manifest.json; see README "Writing a recipe"');
  }
  const m = object(raw, where('top level'));
  const params: Record<string, ParamSpec> = {};
  for (const [name, spec] of Object.entries(object(m.params ?? {}, where('params')))) {
    const p = object(spec, where(`params.${name}`));
    const type = str(p.type, where(`params.${name}.type`));
    if (!PARAM_TYPES.includes(type as ParamSpec['type'])) {
      throw new RecipeError(`${where(`params.${name}.type`)}: unknown type "${type}"`, `use one of ${PARAM_TYPES.join(', ')}`);
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new RecipeError(`${where(`params.${name}`)}: not a valid name`, 'use letters, digits and _');
    const def = p.default;
    if (def !== undefined && !['string', 'number', 'boolean'].includes(typeof def)) {
      throw new RecipeError(`${where(`params.${name}.default`)}: must be a string, number or boolean`, 'fix the manifest');
    }
    params[name] = { type: type as ParamSpec['type'], help: str(p.help ?? '', where(`params.${name}.help`)), default: def as ParamSpec['default'] };
  }
  const patchList = m.patches;
  if (!Array.isArray(patchList) || patchList.length === 0) throw new RecipeError(`${where('patches')}: must be a non-empty list`, 'declare at least one patch');
  const cover = m.cover === undefined ? undefined : object(m.cover, where('cover'));
  if (!cover && patchList.length > 1) throw new RecipeError(`${where('cover')}: a recipe of ${patchList.length} patches needs a cover letter`, 'add "cover": { "subject": "...", "template": "cover-letter.hbs" }');
  return {
    id: path.basename(dir),
    dir,
    description: str(m.description, where('description')),
    series: str(m.series, where('series')),
    code: m.code === undefined ? undefined : str(m.code, where('code')),
    params,
    ...(cover ? { cover: { subject: str(cover.subject, where('cover.subject')), template: str(cover.template, where('cover.template')), ...(cover.remarks === undefined ? {} : { remarks: str(cover.remarks, where('cover.remarks')) }) } } : {}),
    patches: patchList.map((p, i) => readPatch(p, where(`patches[${i}]`))),
    rfc: m.rfc === true,
    ccAll: m.ccAll === true,
    kunit: m.kunit === undefined ? undefined : readKunit(m.kunit, where('kunit')),
    arches: list(m.arches, where('arches')).map((a, i) => {
      const name = str(a, where(`arches[${i}]`));
      if (!ARCH_NAMES.includes(name)) throw new RecipeError(`${where(`arches[${i}]`)}: unknown architecture "${name}"`, `use Kbuild's ARCH names: ${ARCH_NAMES.join(', ')}`);
      return name;
    }),
    measure: m.measure === true,
    split: m.split === undefined ? undefined : str(m.split, where('split')),
    ...(m.after === undefined ? {} : { after: str(m.after, where('after')) }),
    shapes: readShapes(m.shapes, where('shapes')),
    unfit: list(m.unfit, where('unfit')).map((u, i) => {
      const o = object(u, where(`unfit[${i}]`));
      return { file: str(o.file, where(`unfit[${i}].file`)), match: str(o.match, where(`unfit[${i}].match`)), why: str(o.why, where(`unfit[${i}].why`)) };
    }),
  };
}

function readKunit(raw: unknown, where: string): KunitSpec {
  const k = object(raw, where);
  if (!Array.isArray(k.config) || k.config.length === 0 || !k.config.every((c) => typeof c === 'string' && /^CONFIG_\w+=\S+$/.test(c))) {
    throw new RecipeError(`${where}.config: must be a non-empty list of CONFIG_X=value lines`, 'e.g. ["CONFIG_KUNIT=y", "CONFIG_KPROBES=y"]');
  }
  const show = k.show ?? [];
  if (!Array.isArray(show) || !show.every((c) => typeof c === 'string' && /^CONFIG_\w+$/.test(c))) {
    throw new RecipeError(`${where}.show: must be a list of CONFIG_X names`, 'e.g. ["CONFIG_PREEMPT", "CONFIG_OPTPROBES"]');
  }
  const without = k.without === undefined ? {} : { without: str(k.without, `${where}.without`) };
  return { config: k.config as string[], kprobeCensus: k.kprobeCensus === true, show: show as string[], ...without };
}

function entryNames(raw: unknown, where: string): string[] {
  if (!Array.isArray(raw) || raw.length === 0 || !raw.every((x) => typeof x === 'string' && x.trim() !== '')) {
    throw new RecipeError(`${where}: must be a list of MAINTAINERS entry names`, 'e.g. ["OBJTOOL"], as the entry\'s first line spells it');
  }
  return raw as string[];
}

function readShapes(raw: unknown, where: string): Manifest['shapes'] {
  if (raw === undefined) return {};
  const out: Manifest['shapes'] = {};
  for (const [name, value] of Object.entries(object(raw, where))) {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name) || name === 'version') throw new RecipeError(`${where}.${name}: a shape is named by letters and digits, not "version"`, 'e.g. "moduleNameWalk"');
    const o = object(value, `${where}.${name}`);
    const match = str(o.match, `${where}.${name}.match`);
    try {
      new RegExp(match);
    } catch {
      throw new RecipeError(`${where}.${name}.match: not a regular expression: ${match}`, 'write a JavaScript regular expression');
    }
    out[name] = { file: str(o.file, `${where}.${name}.file`), match };
  }
  return out;
}

function readPatch(raw: unknown, where: string): PatchSpec {
  const p = object(raw, where);
  if (!Array.isArray(p.edits) || p.edits.length === 0) throw new RecipeError(`${where}.edits: must be a non-empty list`, 'a patch needs at least one edit');
  return {
    subject: str(p.subject, `${where}.subject`),
    body: str(p.body, `${where}.body`),
    each: p.each === undefined ? undefined : str(p.each, `${where}.each`),
    edits: p.edits.map((e, i) => readEdit(e, `${where}.edits[${i}]`)),
    ...(p.cc === undefined ? {} : { cc: entryNames(p.cc, `${where}.cc`) }),
    ...(p.to === undefined ? {} : { to: entryNames(p.to, `${where}.to`) }),
  };
}

function readEdit(raw: unknown, where: string): EditSpec {
  const e = object(raw, where);
  const each = e.each === undefined ? {} : { each: str(e.each, `${where}.each`) };
  return { ...readEditKind(e, where), ...each };
}

function readEditKind(e: Record<string, unknown>, where: string): EditSpec {
  const kind = str(e.kind, `${where}.kind`);
  switch (kind) {
    case 'diff':
      return { kind, template: str(e.template, `${where}.template`) };
    case 'new-file':
      return { kind, file: str(e.file, `${where}.file`), template: str(e.template, `${where}.template`) };
    case 'transform':
      return { kind, file: str(e.file, `${where}.file`) };
    case 'cocci': {
      const strings = (v: unknown, name: string) => (v === undefined ? [] : typeof v === 'string' ? [v] : list(v, `${where}.${name}`).map((x, i) => str(x, `${where}.${name}[${i}]`)));
      return { kind, script: str(e.script, `${where}.script`), paths: strings(e.paths, 'paths'), options: strings(e.options, 'options'), ...(e.files === undefined ? {} : { files: str(e.files, `${where}.files`) }) };
    }
    case 'insert': {
      const position = str(e.position ?? 'after', `${where}.position`);
      // A position may come from a variable ("{{position}}"); it is checked once rendered.
      if (!position.includes('{{') && !['before', 'after', 'replace', 'substitute'].includes(position)) {
        throw new RecipeError(`${where}.position: "${position}" is not before, after, replace or substitute`, 'fix the manifest');
      }
      const place = readPlace(e, where);
      if (position === 'substitute' && place.anchor === undefined) throw new RecipeError(`${where}: "substitute" replaces what its anchor matches and needs an "anchor"`, 'add the anchor, or use "replace"');
      if (position === 'substitute' && place.until !== undefined) {
        throw new RecipeError(`${where}: "substitute" changes one line and takes no "until"`, 'use "replace" for a block');
      }
      return { kind, file: str(e.file, `${where}.file`), position: position as InsertPosition, template: str(e.template, `${where}.template`), ...place };
    }
    case 'move': {
      const to = object(e.to, `${where}.to`);
      const position = str(to.position ?? 'before', `${where}.to.position`);
      if (position !== 'before' && position !== 'after') throw new RecipeError(`${where}.to.position: "${position}" is not before or after`, 'fix the manifest');
      const regex = e.regex === true;
      return { kind, file: str(e.file, `${where}.file`), ...readPlace(e, where), to: { ...readPlace({ ...to, regex }, `${where}.to`), position } };
    }
    default:
      throw new RecipeError(`${where}.kind: unknown edit kind "${kind}"`, 'use diff, insert, move, new-file, transform or cocci');
  }
}

function readPlace(e: Record<string, unknown>, where: string): Place {
  const optional = (name: 'anchor' | 'until' | 'within' | 'function' | 'struct') => (e[name] === undefined ? {} : { [name]: str(e[name], `${where}.${name}`) });
  if (e.function !== undefined && e.struct !== undefined) throw new RecipeError(`${where}: names both a function and a struct`, 'name one definition; an anchor narrows it');
  if (e.anchor === undefined && e.function === undefined && e.struct === undefined) throw new RecipeError(`${where}.anchor: must be a string`, 'give "anchor" (a line), or "function"/"struct" (a definition by name)');
  if ((e.function !== undefined || e.struct !== undefined) && e.within !== undefined) throw new RecipeError(`${where}: "within" and a definition by name both narrow the anchor`, 'keep one');
  return { regex: e.regex === true, ...optional('anchor'), ...optional('until'), ...optional('within'), ...optional('function'), ...optional('struct') };
}

function list(v: unknown, where: string): unknown[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new RecipeError(`${where}: must be a list`, 'fix the manifest');
  return v;
}

function object(v: unknown, where: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new RecipeError(`${where}: must be an object`, 'fix the manifest');
  return v as Record<string, unknown>;
}

function str(v: unknown, where: string): string {
  if (typeof v !== 'string') throw new RecipeError(`${where}: must be a string`, 'fix the manifest');
  return v;
}
