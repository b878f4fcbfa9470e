// Planning a series: parameters, recipe code and templates in; subjects, bodies and file changes out. Touches no files.
import path from 'node:path';
import { ApplyError, NoChangeError, RecipeError, TemplateError } from '../errors.js';
import { cocciRequest, diffFiles, locateScript } from '../edits/cocci.js';
import { applyEdit, type InsertPosition, type RenderedEdit } from '../edits/apply.js';
import { FileOverlay, type FileChange, type ReadBase } from '../edits/overlay.js';
import type { LoadedRecipe } from '../recipes/load.js';
import { parseSections } from '../subsystems/maintainers.js';
import type { RecipeContext } from '../recipes/types.js';
import type { EditSpec } from '../templates/manifest.js';
import { resolveParams, type Params } from '../templates/params.js';
import { compileTemplate, loadTemplate, type Render, type TemplateVars } from '../templates/render.js';

export interface PlannedPatch {
  subject: string;
  body: string;
  changes: FileChange[];
  /** MAINTAINERS entries Cc'd besides get_maintainer.pl's (the recipe's cc). */
  cc?: string[];
  /** MAINTAINERS entries whose maintainers apply the patch: To (the recipe's to). */
  to?: string[];
}

export interface SeriesPlan {
  recipe: string;
  name: string;
  params: Params;
  cover: { subject: string; body: string };
  /** For a series of one patch: what it says below its `---` (the manifest's cover.remarks), if anything. */
  remarks?: string;
  patches: PlannedPatch[];
  /** What the recipe code's prepare() gave (plans made by hand, as the benches do, have none). */
  prepared?: TemplateVars;
  /** Emitted as [RFC PATCH ...] by default. */
  rfc?: boolean;
  /** Every patch goes to everyone any patch of the series goes to. */
  ccAll?: boolean;
  /** The tree's tag in the subjects: [PATCH <tag>] (from the variable `subjectTag`). */
  subjectTag?: string;
}

/** What a recipe may ask of the tree beyond reading files: tree-wide searches and maintainers. */
export type TreeServices = Partial<Pick<RecipeContext, 'flagCandidates'>> & Pick<RecipeContext, 'maintainersOf' | 'routeOf' | 'authorsOf' | 'docsNaming' | 'sourcesNaming' | 'subjectsOf' | 'folderLog' | 'runtime' | 'spatch' | 'headersOf' | 'posted' | 'archivedPrefix'>;

export interface PlanInput {
  recipe: LoadedRecipe;
  given: Record<string, string>;
  tree: { root: string; version: string };
  readBase: ReadBase;
  services?: TreeServices;
  /**
   * Per patch (in series order), what was measured on a first build of this series: the template variable
   * `measured` (false when nothing was measured yet).
   */
  measured?: (TemplateVars | false)[];
  /** For the cover letter: what the measured objects cost in all, before and after (`measuredTotal`). */
  measuredTotal?: TemplateVars | false;
  /** What the recipe code's prepare() gave on an earlier plan of the same input (a second plan need not scan again). */
  prepared?: TemplateVars;
  /** KUnit on a draft of this series (the template variable `kunit`; false when it did not run). */
  kunit?: TemplateVars | false;
}

/** A recipe that scans for flags without declaring the service (RecipeCode.services), or a plan made by hand. */
function noFlagScan(): never {
  throw new RecipeError('this recipe scans the tree, which is not available here', 'run it through kseries generate');
}

const NO_SERVICES: TreeServices = {
  flagCandidates: noFlagScan,
  maintainersOf() {
    throw new RecipeError('this recipe asks get_maintainer.pl, which is not available here', 'run it through kseries generate');
  },
};

/**
 * The cover letter the manifest's templates give; without one (a recipe of one patch), the patch's own subject and no
 * body, which emit never sends: it writes no cover letter for a single patch. A manifest patch with `each` that
 * makes more than one patch needs a cover letter.
 */
function coverOf(manifest: LoadedRecipe['manifest'], patches: PlannedPatch[], render: () => SeriesPlan['cover']): SeriesPlan['cover'] {
  if (manifest.cover) return render();
  if (patches.length > 1) throw new RecipeError(`${manifest.id}: these parameters make ${patches.length} patches, and the manifest has no cover letter`, 'add "cover": { "subject": "...", "template": "cover-letter.hbs" } to the manifest');
  return { subject: patches[0]?.subject ?? manifest.id, body: '' };
}

export async function planSeries(input: PlanInput): Promise<SeriesPlan> {
  const { recipe, given, tree, readBase, services = NO_SERVICES, measured = [] } = input;
  const { manifest, code } = recipe;
  const params = resolveParams(manifest.id, manifest.params, given);
  const templates = new TemplateCache(manifest.dir);
  const inline = (text: string, field: string) => templates.inline(text, field);
  const ctx: RecipeContext = { tree, readFile: readBase, render: (t, vars) => templates.file(t)(vars), ...services, flagCandidates: services.flagCandidates ?? noFlagScan };
  const prepared = input.prepared ?? (await code?.prepare?.(ctx, params)) ?? {};
  const vars: TemplateVars = { ...params, tree: { version: tree.version, ...(await treeShapes(manifest, readBase)) }, ...prepared, kunit: input.kunit ?? false };

  const name = oneLine(inline(manifest.series, 'series')(vars), `${manifest.id}: series name`);
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes('..')) {
    throw new RecipeError(`${manifest.id}: series name "${name}" cannot name a branch`, 'the series template must give letters, digits, . _ -');
  }

  await refuseUnfit(manifest, readBase);
  const patches: PlannedPatch[] = [];
  let files = new FileOverlay(readBase);
  for (const [index, spec] of manifest.patches.entries()) {
    for (const each of expand(spec.each, vars, `${manifest.id}: patches[${index}]`)) {
      const patchVars = { ...each, measured: measured[patches.length] ?? false };
      const where = `patches[${index}]`;
      for (const [i, edit] of spec.edits.entries()) {
        for (const editVars of expand(edit.each, patchVars, `${manifest.id}: ${where}.edits[${i}]`)) {
          await applyEdit(files, await renderEdit(edit, editVars, `${where}.edits[${i}]`, templates, files, ctx, recipe));
        }
      }
      const subject = oneLine(inline(spec.subject, `${where}.subject`)(patchVars), `${manifest.id}: ${where}.subject`);
      const changes = files.changes();
      if (changes.length === 0) throw new ApplyError(`${manifest.id}: patch "${subject}" changes nothing`, 'check its edits');
      const named = async (list: string[] | undefined, field: 'cc' | 'to') => (list ? { [field]: await knownEntries(list, readBase, `${manifest.id}: ${where}.${field}`) } : {});
      patches.push({ subject, body: templates.file(spec.body)(patchVars).trim(), changes, ...(await named(spec.cc, 'cc')), ...(await named(spec.to, 'to')) });
      const previous = files;
      files = new FileOverlay((f) => previous.read(f));
    }
  }
  return {
    recipe: manifest.id,
    name,
    params,
    cover: coverOf(manifest, patches, () => ({
      subject: oneLine(inline(manifest.cover!.subject, 'cover.subject')(vars), `${manifest.id}: cover.subject`),
      body: templates.file(manifest.cover!.template)({ ...vars, measured: measured.some(Boolean) ? measured : false, measuredTotal: input.measuredTotal ?? false }).trim(),
    })),
    patches,
    ...(manifest.cover?.remarks && patches.length === 1 ? { remarks: templates.file(manifest.cover.remarks)(vars).trim() } : {}),
    prepared,
    rfc: manifest.rfc || vars.rfc === true,
    ...(manifest.ccAll ? { ccAll: true } : {}),
    ...(typeof vars.subjectTag === 'string' && vars.subjectTag ? { subjectTag: vars.subjectTag } : {}),
  };
}

/** The entry names, each checked against the tree's MAINTAINERS: a name it lacks stops the plan in one line. */
async function knownEntries(names: string[], readBase: ReadBase, where: string): Promise<string[]> {
  const present = new Set(parseSections((await readBase('MAINTAINERS')) ?? '').map((e) => e.name));
  const missing = names.find((n) => !present.has(n));
  if (missing) throw new RecipeError(`${where}: this tree's MAINTAINERS has no entry "${missing}"`, "name an entry as its first line in MAINTAINERS spells it");
  return names;
}

/** The shapes the manifest tells apart, each true where its pattern matches a line of its file in the tree. */
async function treeShapes(manifest: LoadedRecipe['manifest'], readBase: ReadBase): Promise<Record<string, boolean>> {
  const entries = Object.entries(manifest.shapes);
  return Object.fromEntries(await Promise.all(entries.map(async ([name, s]) => [name, (await lineMatching(readBase, s.file, s.match)) >= 0])));
}

/** The index of the first line of `file` that `match` matches, -1 where none does (or the tree lacks the file). */
async function lineMatching(readBase: ReadBase, file: string, match: string): Promise<number> {
  const re = new RegExp(match);
  return ((await readBase(file)) ?? '').split('\n').findIndex((l) => re.test(l));
}

/** One line for a tree of a shape the recipe says it was not written for, before any edit is tried. */
async function refuseUnfit(manifest: LoadedRecipe['manifest'], readBase: ReadBase): Promise<void> {
  for (const u of manifest.unfit) {
    const line = await lineMatching(readBase, u.file, u.match);
    if (line >= 0) {
      throw new RecipeError(`${manifest.id} does not fit this tree: ${u.file}:${line + 1}: ${u.why}`, 'generate it on a tree of the shape it was written for, or adapt the recipe');
    }
  }
}

/**
 * The plans of a split recipe: one per element of its `split` list, each from the variables `prepared` gave with
 * the element's added, and the measured figures of the patches it holds (matched by the files they change).
 */
export async function planSplit(input: PlanInput & { prepared: TemplateVars }, whole: SeriesPlan, total: (measured: (TemplateVars | false)[]) => TemplateVars | false): Promise<SeriesPlan[]> {
  const split = input.recipe.manifest.split;
  if (!split) return [whole];
  const parts = input.prepared[split];
  if (!Array.isArray(parts)) throw new RecipeError(`${input.recipe.manifest.id}: split: "${split}" is not a list variable`, 'name a list the recipe provides');
  const byFiles = new Map(whole.patches.map((p, i) => [filesOf(p), input.measured?.[i] ?? false]));
  const plans: SeriesPlan[] = [];
  for (const part of parts as TemplateVars[]) {
    const prepared = { ...input.prepared, ...part };
    const first = await planSeries({ ...input, prepared, measured: [], measuredTotal: false });
    const measured = first.patches.map((p) => byFiles.get(filesOf(p)) ?? false);
    plans.push(input.measured ? await planSeries({ ...input, prepared, measured, measuredTotal: total(measured) }) : first);
  }
  // Two trees whose slugs agree would otherwise make two versions of one series.
  const names = distinctNames(plans.map((p) => p.name));
  return plans.map((p, i) => ({ ...p, name: names[i]! }));
}

/** Names made unique by a number after a repeated one: two trees may share a slug, never a series. */
export function distinctNames(names: string[]): string[] {
  return names.map((n, i) => {
    const before = names.slice(0, i).filter((m) => m === n).length;
    return before === 0 ? n : `${n}-${before + 1}`;
  });
}

function filesOf(p: PlannedPatch): string {
  return p.changes.map((c) => c.file).sort().join('\n');
}

/** One set of variables per element of the list `each` names (just `vars` without `each`). */
function expand(each: string | undefined, vars: TemplateVars, where: string): TemplateVars[] {
  if (each === undefined) return [vars];
  const list = vars[each];
  if (!Array.isArray(list)) throw new RecipeError(`${where}.each: "${each}" is not a list variable`, 'name a list the recipe provides');
  return list.map((item) => ({ ...vars, ...(item as TemplateVars) }));
}

async function renderEdit(
  edit: EditSpec,
  vars: TemplateVars,
  where: string,
  templates: TemplateCache,
  files: FileOverlay,
  ctx: RecipeContext,
  recipe: LoadedRecipe,
): Promise<RenderedEdit> {
  const source = `${recipe.manifest.id}: ${where}`;
  const field = (text: string, name: string) => templates.inline(text, `${where}.${name}`)(vars).trim();
  switch (edit.kind) {
    case 'diff':
      return { kind: 'diff', source: `${source} (${edit.template})`, diff: templates.file(edit.template)(vars) };
    case 'new-file':
      return { kind: 'new-file', source, file: field(edit.file, 'file'), text: templates.file(edit.template)(vars) };
    case 'insert': {
      const { template, each: _each, ...place } = edit;
      // A definition's name may come from a parameter ("function": "{{fn}}").
      const named = { ...(place.function !== undefined ? { function: field(place.function, 'function') } : {}), ...(place.struct !== undefined ? { struct: field(place.struct, 'struct') } : {}) };
      // So may an anchor and a position (a recipe that works out where a line goes): rendered when they hold {{.
      const templated = (text: string | undefined, name: string) => (text?.includes('{{') ? { [name]: field(text, name) } : {});
      const position = field(place.position, 'position');
      if (!['before', 'after', 'replace', 'substitute'].includes(position)) throw new RecipeError(`${source}: position "${position}" is not before, after, replace or substitute`, 'fix the manifest or the variable it names');
      return { ...place, ...named, ...templated(place.anchor, 'anchor'), position: position as InsertPosition, source, file: field(edit.file, 'file'), text: templates.file(template)(vars) };
    }
    case 'move': {
      const { each: _each, ...move } = edit;
      return { ...move, source, file: field(edit.file, 'file') };
    }
    case 'transform': {
      const transform = recipe.code?.transform;
      if (!transform) throw new RecipeError(`${source}: a transform edit needs recipe code`, 'this recipe has no code; use diff, insert or new-file');
      const file = field(edit.file, 'file');
      const text = await files.read(file);
      if (text === undefined) throw new ApplyError(`${source}: ${file} does not exist in the tree`, 'check the file parameter');
      return { kind: 'replace-file', source, file, text: transform(ctx, file, text, vars) };
    }
    case 'cocci':
      return { kind: 'diff', source, diff: await cocciDiff(edit, field, source, ctx, recipe.manifest.dir) };
  }
}

/**
 * The diff of a cocci edit: its script over its paths (comma-separated after rendering; none: the whole tree), kept
 * to `files` when it names some. A script that changes nothing there is a result, not a failure: exit 1.
 */
async function cocciDiff(edit: Extract<EditSpec, { kind: 'cocci' }>, field: (text: string, name: string) => string, source: string, ctx: RecipeContext, dir: string): Promise<string> {
  if (!ctx.spatch) throw new RecipeError(`${source}: a cocci edit runs spatch on the tree, which is not available here`, 'run it through kseries generate');
  const script = await locateScript(field(edit.script, 'script'), dir, ctx.readFile, true);
  const rendered = (texts: string[], name: string) => texts.map((t, i) => field(t, `${name}[${i}]`));
  const { paths, options } = cocciRequest(rendered(edit.paths, 'paths'), rendered(edit.options, 'options'), `${source}: paths`);
  const only = edit.files === undefined ? undefined : new Set(rendered([edit.files], 'files').flatMap((l) => l.split(',')).map((f) => f.trim()).filter(Boolean));
  const files = diffFiles(await ctx.spatch(script, paths, options)).filter((f) => !only || only.has(f.file));
  if (files.length === 0) {
    throw new NoChangeError(`${source}: spatch ${script.name} changes nothing in ${only ? [...only].join(', ') : paths.join(', ') || 'the tree'}`, 'the script matches no code there; try another --path, or check it with spatch by hand');
  }
  return files.map((f) => f.text).join('');
}

class TemplateCache {
  private readonly cache = new Map<string, Render>();
  constructor(private readonly dir: string) {}

  file(relative: string): Render {
    const full = path.resolve(this.dir, relative);
    if (!full.startsWith(this.dir + path.sep)) throw new TemplateError(`${relative}: template path leaves the recipe folder`, 'name a file inside the recipe');
    let r = this.cache.get(full);
    if (!r) this.cache.set(full, (r = loadTemplate(full, path.relative(process.cwd(), full) || full)));
    return r;
  }

  inline(text: string, field: string): Render {
    const k = `inline:${field}:${text}`;
    let r = this.cache.get(k);
    if (!r) this.cache.set(k, (r = compileTemplate(text, `${path.join(this.dir, 'manifest.json')} (${field})`)));
    return r;
  }
}

function oneLine(text: string, what: string): string {
  const t = text.trim();
  if (!t || t.includes('\n')) throw new TemplateError(`${what}: must render to one non-empty line, got ${JSON.stringify(t)}`, 'fix the template');
  return t;
}
