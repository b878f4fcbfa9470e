// How a function is reached: follow its callers through its file until each path ends at a registration (an
// initcall, an interrupt handler, a work item...), a lock held at the call, or the boot sequence itself. A global
// function's callers in other files are a placeholder (`pending`) that Expander replaces, round by round, with the
// paths through the files the tree's lookup names. Pure: file models in, paths out.
import type { CFile, FunctionDef, NameUse } from '../../c-source/functions.js';
import { atomicAt, attributeMacroPlace, registrationPlace, rootPlace, type Place, type PlaceKind } from './contexts.js';

/** The tree's other files, for the callers of global functions. */
export interface CallerLookup {
  /** Files that use `name` as a word (its own file among them), or undefined when not looked up yet. */
  filesUsing(name: string): readonly string[] | undefined;
  /** The model of one of those files. */
  file(path: string): CFile | undefined;
  /** The .c file that defines the global function `name`: null when none does, undefined when not looked up yet. */
  definerOf(name: string): string | null | undefined;
}

/**
 * A placeholder the tree fills in. Without `field`: the callers of the global function `what`, defined in `where`.
 * With `field`: a function stored in `.field` of an object runs where that field is called — when `given` is set the
 * object is given to the function `what` (at `where`, a call reached as `given` says), which may call the field
 * before it returns; otherwise `what` names the object's struct type, whose users' calls of the field decide.
 */
export interface Pending {
  kind: 'pending';
  what: string;
  where: string;
  field?: string;
  struct?: string;
  given?: Reach[];
}

export interface Reach {
  /** `pending`: the callers of the global function `what`, defined in `where`, in the tree's other files. */
  place: Place | Pending;
  /** The functions from the one asked about up to the place, nearest first: ["foo_set", "foo_irq"]. */
  path: string[];
}

/** How deep callers are followed, within a file and across files. */
const MAX_DEPTH = 8;
/** A global function used in more files than this is reached from too many places to place them all. */
export const MAX_FILES = 10;
/** Paths kept per function (the worst of them decide; a report needs only a few). */
const MAX_PATHS = 12;

const RANK: Record<PlaceKind | 'pending', number> = { atomic: 0, early: 1, unknown: 2, pending: 2, runtime: 3, probe: 4, exit: 5, early_param: 6, init: 7 };

/** A walk's paths, and whether a cycle or the depth limit cut it short (then it depends on where it began: not kept). */
interface Walked {
  reaches: Reach[];
  cut?: boolean;
}

/**
 * Walks callers inside one file at a time. `stopAt`: a kind of place that settles the question asked (an atomic
 * writer rejects; one run-time reader means the flag is not read only at boot): no further use is walked once found.
 */
export class Walker {
  private readonly memo = new Map<string, Reach[]>();

  /**
   * `initCode`: an `__init` function is a place of its own (it runs only while the system boots or a module loads) —
   * true of where a test runs, not of a writer (setup_arch()'s __init callees run before jump_label_init()).
   */
  constructor(
    readonly stopAt: (kind: Reach['place']['kind']) => boolean = () => false,
    private readonly initCode = false,
  ) {}

  /** How the code at `at` inside `def` is reached: the boot sequence's place, atomic under a lock, else `def`'s callers. */
  reachAt(file: CFile, def: FunctionDef, at: number): Reach[] {
    return this.site(file, def, at, 0, new Set()).reaches;
  }

  /**
   * The paths through the uses of the global function `fn` in the file at `path` (not the one defining it); none when
   * that file has a static function of the same name (another function). The model is asked for only when needed.
   */
  usesIn(path: string, fn: string, model: () => CFile | undefined): Reach[] {
    const key = `${path}\0uses\0${fn}`;
    let known = this.memo.get(key);
    if (!known) {
      const file = model();
      const out: Reach[] = [];
      let cut = false;
      if (file && !file.functions.get(fn)?.isStatic) {
        for (const r of this.uses(file, fn, 0, new Set())) {
          out.push(...r.reaches);
          cut ||= !!r.cut;
          if (r.reaches.some((x) => this.stopAt(x.place.kind))) break;
        }
      }
      known = worstFirst(out);
      if (!cut) this.memo.set(key, known);
    }
    return known;
  }

  private walk(file: CFile, fn: string, depth: number, stack: Set<string>): Walked {
    const key = `${file.path}\0${fn}`;
    const known = this.memo.get(key);
    if (known) return { reaches: known };
    if (stack.has(key)) return { reaches: [], cut: true };
    if (depth > MAX_DEPTH) return { reaches: [unknown(`callers followed ${MAX_DEPTH} levels deep`, file.path)], cut: true };
    stack.add(key);
    const out: Reach[] = [];
    let settled = false;
    let cut = false;
    const take = (r: Walked) => {
      out.push(...r.reaches);
      cut ||= !!r.cut;
      settled ||= r.reaches.some((x) => this.stopAt(x.place.kind));
    };
    const def = file.functions.get(fn);
    const own = def && rootPlace(file, def, def.open);
    if (own && (own.kind === 'exit' || own.kind === 'runtime' || own.kind === 'atomic')) take({ reaches: [{ place: own, path: [] }] });
    if (!settled) {
      for (const r of this.uses(file, fn, depth, stack)) {
        take(r);
        if (settled) break;
      }
    }
    if (!settled && def && (!def.isStatic || file.path.endsWith('.h'))) {
      const exported = new RegExp(`\\bEXPORT_SYMBOL\\w*\\s*\\(\\s*${fn}\\s*\\)`).exec(file.masked);
      if (exported) out.push(unknown(`${fn}() is exported to modules (line ${file.lines.lineOf(exported.index)}): callers outside the tree`, file.path));
      out.push({ place: { kind: 'pending', what: fn, where: file.path }, path: [] });
    }
    if (out.length === 0) {
      const macro = attributeMacroPlace(file, fn);
      if (macro) out.push({ place: macro, path: [] });
      else if (def?.header.includes('irqreturn_t')) out.push({ place: { kind: 'atomic', what: 'hardirq (returns irqreturn_t)', where: `${file.path}:${def.line}` }, path: [] });
      else out.push(unknown(def ? `kseries found no caller of ${fn}()` : `${fn}() is not defined in ${file.path}`, file.path));
    }
    stack.delete(key);
    const reaches = worstFirst(out);
    if (!cut) this.memo.set(key, reaches);
    return { reaches, cut };
  }

  /** Every use of `fn` in `file`: its calls (through the calling function) and the registrations of its address. */
  private *uses(file: CFile, fn: string, depth: number, stack: Set<string>): Generator<Walked> {
    for (const u of file.usesOf(fn)) {
      if (u.kind === 'call') {
        yield this.site(file, u.in, u.at, depth, stack);
        continue;
      }
      // An export is no caller: walk() says what it means for a global function.
      if (u.kind === 'argument' && u.api.startsWith('EXPORT_SYMBOL')) continue;
      const place = registrationPlace(file, u);
      if (place) yield { reaches: [{ place, path: [] }] };
      else if (u.kind === 'field') yield this.storedIn(file, fn, u, depth, stack);
      else yield { reaches: [unknown(useText(fn, u), `${file.path}:${u.line}`)] };
    }
  }

  /**
   * `fn` stored in `.field` of an object this file defines: each function the object is given to may call the field
   * (the tree says whether it does, and where it is called otherwise); an object no function of the file is given
   * to is called through by the users of its struct type.
   */
  private storedIn(file: CFile, fn: string, u: Extract<NameUse, { kind: 'field' }>, depth: number, stack: Set<string>): Walked {
    const where = `${file.path}:${u.line}`;
    const object = u.initializer ? objectOf(file, u.initializer) : undefined;
    if (!object) return { reaches: [unknown(useText(fn, u), where)] };
    const out: Reach[] = [];
    let cut = false;
    for (const use of file.usesOf(object.name)) {
      // The object itself, and a tentative definition before it (`static struct x name;`).
      if (use.at === object.at || (!use.in && /^\s*;/.test(file.masked.slice(use.at + object.name.length, use.at + object.name.length + 8)))) continue;
      const member = /^\s*\.\s*(\w+)\s*(\()?/.exec(file.masked.slice(use.at + object.name.length, use.at + object.name.length + 80));
      if (member && use.in && member[1] === u.field && member[2]) {
        // `object.field(...)`: called right here.
        const here = this.site(file, use.in, use.at, depth, stack);
        out.push(...here.reaches);
        cut ||= !!here.cut;
        continue;
      }
      // Another member read or set: the object is not handed on.
      if (member && member[1] !== u.field) continue;
      if (use.kind !== 'argument' || !use.in || use.api.startsWith('EXPORT_SYMBOL')) {
        return { reaches: [unknown(`the address of ${fn}() is stored in .${u.field} of ${object.name}, used at line ${use.line} in a way kseries does not follow`, where)] };
      }
      const given = this.site(file, use.in, use.at, depth, stack);
      cut ||= !!given.cut;
      out.push({ place: { kind: 'pending', what: use.api, where: `${file.path}:${use.line}`, field: u.field, struct: object.struct, given: given.reaches }, path: [] });
    }
    if (out.length === 0 && object.isStatic) out.push(unknown(`the address of ${fn}() is stored in .${u.field} of ${object.name}, which nothing in ${file.path} uses`, where));
    if (out.length === 0) out.push({ place: { kind: 'pending', what: object.struct, where, field: u.field }, path: [] });
    return { reaches: out, cut };
  }

  private site(file: CFile, def: FunctionDef, at: number, depth: number, stack: Set<string>): Walked {
    // The boot sequence first: start_kernel() runs with interrupts off until late, and switches static keys there all
    // the same (system_state is SYSTEM_BOOTING, and text is patched with text_poke_early()).
    const root = rootPlace(file, def, at);
    if (root && root.kind !== 'exit') return { reaches: [{ place: root, path: [def.name] }] };
    if (this.initCode && def.attrs.has('__init')) return { reaches: [{ place: { kind: 'init', what: `__init ${def.name}()`, where: `${file.path}:${def.line}` }, path: [def.name] }] };
    const held = atomicAt(file, def, at);
    if (held) return { reaches: [{ place: { kind: 'atomic', what: held.what, where: held.where }, path: [def.name] }] };
    const up = this.walk(file, def.name, depth + 1, stack);
    return { reaches: up.reaches.map((r) => ({ place: r.place, path: [def.name, ...r.path] })), cut: up.cut };
  }
}

/**
 * Replaces the placeholders of global functions with the paths through the files the lookup says use them, as far as
 * the lookup knows; what it has not looked up yet stays pending (and is named, for the next round's lookup).
 */
export class Expander {
  /**
   * `memo`: expansions known to be complete (from an earlier scan of the same tree content, and those this one
   * finishes), by function name.
   */
  constructor(
    private readonly lookup: CallerLookup,
    private readonly walker: Walker,
    readonly memo = new Map<string, Reach[]>(),
  ) {}

  /** Where each struct type's field is called, once fully known. */
  private readonly fields = new Map<string, Reach[]>();

  expand(reaches: Reach[]): { reaches: Reach[]; pending: Set<string> } {
    const pending = new Set<string>();
    const out = this.expandAll(reaches, [], pending).reaches;
    return { reaches: worstFirst(out), pending };
  }

  private expandAll(reaches: Reach[], stack: string[], pending: Set<string>): Walked {
    const out: Reach[] = [];
    let cut = false;
    for (const r of reaches) {
      if (r.place.kind !== 'pending') {
        out.push(r);
        continue;
      }
      const sub = r.place.field ? this.fieldCalled(r.place, stack, pending) : this.callersOf(r.place.what, r.place.where, stack, pending);
      cut ||= !!sub.cut;
      for (const s of sub.reaches) out.push({ place: s.place, path: [...r.path, ...s.path] });
      if (out.some((x) => this.walker.stopAt(x.place.kind))) break;
    }
    return { reaches: out, cut };
  }

  /**
   * Where a function stored in `.field` of an object runs. Given to a function that calls the field (itself or through
   * a function of its file it calls): at the call that gives it, and wherever else that file calls the field. Given
   * to one that only keeps it, or not given in its own file: wherever the users of its struct type call the field.
   */
  private fieldCalled(p: Pending, stack: string[], pending: Set<string>): Walked {
    const field = p.field!;
    if (p.given) {
      const definer = this.lookup.definerOf(p.what);
      if (definer === undefined) {
        pending.add(`${p.what}()`);
        return { reaches: [{ place: p, path: [] }], cut: true };
      }
      const model = definer ? this.lookup.file(definer) : undefined;
      const api = model?.functions.get(p.what);
      if (model && api) {
        const calls = fieldCalls(model, field, p.struct);
        // The calls made before the function returns: its own, and those of the functions of its file it calls.
        const inApi = (c: { def: FunctionDef }) => c.def === api || model.usesOf(c.def.name).some((u) => u.kind === 'call' && u.in === api);
        const others = calls.filter((c) => !inApi(c));
        if (others.length < calls.length) {
          const out: Reach[] = [];
          let cut = false;
          const take = (w: Walked, via: string[]) => {
            for (const x of w.reaches) out.push({ place: x.place, path: [...via, ...x.path] });
            cut ||= !!w.cut;
          };
          take(this.expandAll(p.given, stack, pending), [p.what]);
          for (const c of others) take(this.expandAll(this.walker.reachAt(model, c.def, c.at), [...stack, p.what], pending), []);
          return { reaches: out, cut };
        }
      }
      if (!p.struct) return { reaches: [unknown(`${p.what}() is given the object, and kseries found no call of .${field} in ${definer ?? 'a .c file defining it'}`, p.where)] };
    }
    return this.structCallers(p.struct ?? p.what, field, p.where, stack, pending);
  }

  /** Where the files that use `struct name` call `.field`; none, or too many files, is unknown. */
  private structCallers(name: string, field: string, where: string, stack: string[], pending: Set<string>): Walked {
    const key = `struct ${name}.${field}`;
    const known = this.fields.get(key);
    if (known) return { reaches: known };
    if (stack.includes(key)) return { reaches: [], cut: true };
    const files = this.lookup.filesUsing(name);
    if (files === undefined) {
      pending.add(name);
      return { reaches: [{ place: { kind: 'pending', what: name, where, field }, path: [] }], cut: true };
    }
    if (files.length > MAX_FILES) return { reaches: [unknown(`.${field} of struct ${name} may be called from any of the ${files.length} files that use the struct`, where)] };
    const out: Reach[] = [];
    let cut = false;
    for (const f of files) {
      const model = this.lookup.file(f);
      for (const c of model ? fieldCalls(model, field, name) : []) {
        const sub = this.expandAll(this.walker.reachAt(model!, c.def, c.at), [...stack, key], pending);
        out.push(...sub.reaches);
        cut ||= !!sub.cut;
      }
    }
    const reaches = out.length ? worstFirst(out) : [unknown(`kseries found no call of .${field} in the files that use struct ${name}`, where)];
    if (!cut) this.fields.set(key, reaches);
    return { reaches, cut };
  }

  /** The paths into the global function `name` (defined in `home`) from the other files that use it. */
  private callersOf(name: string, home: string, stack: string[], pending: Set<string>): Walked {
    const known = this.memo.get(name);
    if (known) return { reaches: known };
    const placeholder: Reach = { place: { kind: 'pending', what: name, where: home }, path: [] };
    if (stack.includes(name)) return { reaches: [], cut: true };
    if (stack.length >= MAX_DEPTH) return { reaches: [unknown(`callers followed ${MAX_DEPTH} files deep`, home)], cut: true };
    const files = this.lookup.filesUsing(name);
    if (files === undefined) {
      pending.add(name);
      return { reaches: [placeholder], cut: true };
    }
    const others = files.filter((f) => f !== home);
    let result: Walked;
    if (others.length > MAX_FILES) result = { reaches: [unknown(`${name}() is used in ${others.length} other files`, home)] };
    else {
      const out: Reach[] = [];
      let cut = false;
      for (const f of others) {
        const sub = this.expandAll(
          this.walker.usesIn(f, name, () => this.lookup.file(f)),
          [...stack, name],
          pending,
        );
        out.push(...sub.reaches);
        cut ||= !!sub.cut;
        if (out.some((x) => this.walker.stopAt(x.place.kind))) break;
      }
      result = { reaches: out.length ? worstFirst(out) : [unknown(`kseries found no caller of ${name}() in the tree`, home)], cut };
    }
    if (!result.cut) this.memo.set(name, result.reaches);
    return result;
  }
}

function unknown(what: string, where: string): Reach {
  return { place: { kind: 'unknown', what, where }, path: [] };
}

function useText(fn: string, u: NameUse): string {
  const inside = u.in ? ` in ${u.in.name}()` : '';
  if (u.kind === 'argument') return `the address of ${fn}() is passed to ${u.api}()${inside}`;
  if (u.kind === 'field') return `the address of ${fn}() is stored in .${u.field}${inside}`;
  return `${fn} is used${inside} in a way kseries does not follow`;
}

/** Distinct paths, the worst kinds first, at most MAX_PATHS. */
export function worstFirst(reaches: Reach[]): Reach[] {
  const seen = new Map<string, Reach>();
  for (const r of reaches) {
    const id = `${r.place.kind}\0${r.place.what}\0${r.place.where}`;
    const had = seen.get(id);
    if (!had || r.path.length < had.path.length) seen.set(id, r);
  }
  return [...seen.values()].sort((a, b) => RANK[a.place.kind] - RANK[b.place.kind]).slice(0, MAX_PATHS);
}

/** "foo_set() <- foo_irq() (request_irq at drivers/x/y.c:120): hardirq"; `fn` names the start when the path is empty. */
export function describeReach(fn: string | null, r: Reach): string {
  const chain = (r.path.length ? r.path : [fn ?? 'an initializer']).map((f) => (f === 'an initializer' ? f : `${f}()`)).join(' <- ');
  if (r.place.kind === 'pending' && r.place.field) return `${chain} (${r.place.where}): stored in .${r.place.field}, and kseries has not searched the tree for where ${r.place.given ? `${r.place.what}()` : `struct ${r.place.what}`} calls it`;
  if (r.place.kind === 'pending') return `${chain} (${r.place.where}): ${r.place.what}() is global and kseries has not searched the tree for its callers`;
  return `${chain} (${r.place.where}): ${r.place.what}`;
}

/** The object whose initializer names a function: its struct type, linkage, and where its name stands. */
function objectOf(file: CFile, name: string): { name: string; struct: string; isStatic: boolean; at: number } | undefined {
  const re = new RegExp(`\\bstruct\\s+(\\w+)\\s+(?:(?:const|__\\w+)\\s+)*(${name})\\s*(?:\\[[^\\]]*\\]\\s*)?(?:__\\w+(?:\\([^)]*\\))?\\s*)*=\\s*\\{`, 'g');
  for (const m of file.masked.matchAll(re)) {
    if (!file.blocks.isTopLevel(m.index)) continue;
    const header = file.masked.slice(Math.max(file.masked.lastIndexOf(';', m.index), file.masked.lastIndexOf('}', m.index)) + 1, m.index);
    return { name, struct: m[1]!, isStatic: /\bstatic\b/.test(header), at: m.index + m[0].indexOf(name, m[0].indexOf(m[1]!) + m[1]!.length) };
  }
  return undefined;
}

/**
 * The functions of `file` that call `.field(` or `->field(`, with the offset of each first call. Given the struct
 * type, a call through a variable the function declares as another struct (`struct other *o; o->field()`) is another
 * struct's field of the same name, not this one; calls through anything else (a member chain, a global) count.
 */
export function fieldCalls(file: CFile, field: string, struct?: string): { def: FunctionDef; at: number }[] {
  const key = `${field}\0${struct ?? ''}`;
  let known = FIELD_CALLS.get(file)?.get(key);
  if (known) return known;
  const m = file.masked;
  const out = new Map<FunctionDef, number>();
  for (const call of m.matchAll(new RegExp(`(?:\\.|->)\\s*${field}\\s*\\(`, 'g'))) {
    const def = file.functionAt(call.index);
    if (!def || out.has(def)) continue;
    const before = m.slice(Math.max(def.open, call.index - 80), call.index);
    const base = /(?<![.>\w])(\w+)\s*$/.exec(before)?.[1];
    if (struct && base) {
      const declared = new RegExp(`\\bstruct\\s+(\\w+)[\\s*]*(?:const\\s+)?[\\s*]*\\b${base}\\b\\s*[,;)=\\[]`).exec(m.slice(def.at, call.index));
      if (declared && declared[1] !== struct) continue;
    }
    out.set(def, call.index);
  }
  known = [...out].map(([def, at]) => ({ def, at }));
  if (!FIELD_CALLS.has(file)) FIELD_CALLS.set(file, new Map());
  FIELD_CALLS.get(file)!.set(key, known);
  return known;
}

/** fieldCalls() per file model, by field and struct type. */
const FIELD_CALLS = new WeakMap<CFile, Map<string, { def: FunctionDef; at: number }[]>>();
