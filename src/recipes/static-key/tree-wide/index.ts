// Recipe static-keys (tree-wide form): scan for flags, convert every `auto` one (or those chosen), one patch per
// maintainer group. The per-flag conversion and the object-code proof are the static-key recipe's.
import { staticKeyServices } from '../services.js';
import { ParamError, RecipeError, TransformError } from '../../../errors.js';
import type { Params } from '../../../templates/params.js';
import type { TemplateVars } from '../../../templates/render.js';
import { convertFlag } from '../convert.js';
import { describe, fragments } from '../index.js';
import { byTree, groupByMaintainers, routeFor } from '../../../subsystems/groups.js';
import { carriable, carriedOnRequest, type FlagCandidate } from '../scan.js';
import { checklist, defineOptions, otherUsers, useOptions } from './carried.js';
import { staticKeyVerifier } from '../verify.js';
import type { Route } from '../../../subsystems/route.js';
import type { FlagHits, RecipeCode, RecipeContext, RuntimeEvidence } from '../../types.js';
import { byHotness, formatHotness } from '../../../measure/hotness.js';
import { writerFacts, type WriterFact } from './facts.js';
import { rateVars } from './rates.js';
import { convertToggle } from '../toggle/convert.js';
import { notAToggle, toggleFragments, toggleVars } from '../toggle/index.js';

interface FlagVars extends TemplateVars {
  flag: string;
  key: string;
  file: string;
  line: number;
  /** The value the flag holds once the system has booted. */
  usualValue: boolean;
  /** A runtime toggle, converted with a setter for its interface. */
  toggle: boolean;
  /** The key is defined _RO (the flag was __ro_after_init, or only boot-time code writes it). */
  readOnly: boolean;
  /** A manual flag carried as an RFC (carriable(), or named with --only: carriedOnRequest()): its value reads become static_key_enabled(). */
  rfc: boolean;
  /** The key starts enabled (DEFINE_STATIC_KEY_TRUE). */
  initiallyTrue: boolean;
  /** A shared flag: the definition's file is converted as such, and its other users (`usedIn`) in the same patch. */
  shared: boolean;
  usedIn: string[];
  /** Set in another file's entry of the patch: that file uses the flag the definition's file converts. */
  use?: true;
  /** Hits per second of the measured workload (null: not measured, or the boot workload). */
  perSecond: number | null;
  /** One sentence on how often the tests ran, or why they were not measured. */
  rateText: string;
  /** "1234 per second, 56 at boot", or "not measured". */
  rateShort: string;
}

export const staticKeys: RecipeCode = {
  id: 'static-keys',
  services: staticKeyServices,

  async prepare(ctx, params) {
    const paths = listParam(params.paths);
    const found = await ctx.flagCandidates(paths);
    const toggles = params.toggles === true;
    const chosen = select(found, listParam(params.only), paths, ctx.runtime, { minRate: Number(params.minRate ?? -1), top: Number(params.top ?? 0), toggles });

    const skipped: { file: string; flag: string; reason: string }[] = [];
    const files: { file: string; flags: FlagVars[] }[] = [];
    for (const [file, flags] of byFile(chosen)) {
      const baseText = (await ctx.readFile(file))!;
      let text = baseText;
      const converted: FlagVars[] = [];
      for (const c of flags) {
        const key = `${c.variable}_key`;
        const usualValue = valueAfterBoot(c);
        try {
          // A runtime toggle gets a setter for its interface (static-key-toggle's conversion); a boot-time flag does not;
          // a manual flag kseries can carry (value reads, a shared flag's header, a writer to ask about) is an RFC.
          const rfc = carriedOnRequest(c);
          const toggle = c.verdict === 'manual' && !rfc;
          const shared = rfc && !!c.shared;
          const tc = toggle ? convertToggle(file, text, c.variable, key, toggleFragments(ctx)) : undefined;
          const conv = tc ?? convertFlag(file, text, c.variable, key, fragments(ctx), usualValue, defineOptions(bootOnly(c), rfc, shared));
          const users = shared ? await otherUsers(ctx, c, key, fragments(ctx), conv.initiallyTrue, usualValue) : [];
          if (shared && conv.reads.length + users.reduce((n, u) => n + u.conv.reads.length, 0) === 0) {
            throw new TransformError(`${c.variable} is never tested in a branch, in ${[file, ...users.map((u) => u.file)].join(', ')}`, 'a static key only pays off where a branch tests it');
          }
          text = conv.text;
          const facts = tc ? { ...toggleVars(tc), toggle: true } : { ...describe(conv), toggle: false };
          // Documentation that names the flag describes it, not the key: reported, for the author to judge.
          const docs = (await ctx.docsNaming?.(c.variable)) ?? [];
          const writers = writerFacts(file, baseText, c, conv);
          // Set only by boot options: the key's NOP is the path of a command line without them.
          const options = writers.length > 0 && writers.every((w) => w.option) ? [...new Set(writers.map((w) => w.option as string))] : [];
          const items = rfc ? checklist(c, key, conv, users) : [];
          const settled = c.writes.every((w) => BOOT_CONTEXTS.has(w.context));
          converted.push({ ...facts, rfc, checklist: items, questions: items.filter((i) => i.ask), valueLines: conv.values.map((v) => v.line), manualWhy: rfc ? unasked(c.reasons, items) : [], useTests: users.flatMap((u) => [...new Set(u.conv.reads.map((r) => `${r.function ?? 'file scope'}() (${u.file})`))]), docs, writerFacts: writers, options, ...rateVars(ctx.runtime, c), flag: c.variable, key, file, line: c.line, setBy: setBy(c), settled, usualValue: usualValue ?? conv.initiallyTrue, initiallyTrue: conv.initiallyTrue, shared, usedIn: users.map((u) => u.file), header: users.find((u) => u.conv.declarations.length)?.file ?? false, flipsAtBoot: usualValue !== undefined && usualValue !== conv.initiallyTrue, setWhen: writers.map((w) => w.after).find(Boolean) || false, readOnly: conv.readOnlyAfterInit, readOnlyNew: !toggle && conv.readOnlyAfterInit && !conv.readOnlyDeclared ? `DEFINE_STATIC_KEY_${conv.initiallyTrue ? 'TRUE' : 'FALSE'}_RO()` : false, siblings: siblingsOf(c, found, chosen) });
        } catch (e) {
          if (!(e instanceof TransformError) || listParam(params.only).length > 0) throw e;
          skipped.push({ file, flag: c.variable, reason: e.message });
        }
      }
      if (converted.length) files.push({ file, flags: converted });
    }
    if (files.length === 0) throw new RecipeError(`static-keys: none of the ${chosen.length} chosen flags could be converted`, skipped[0]?.reason ?? 'see kseries scan static-keys');

    const groups = await groupFlags(ctx, files);
    const scope = paths.map((p) => p.replace(/[^A-Za-z0-9._-]+/g, '-')).join('-');
    // One independent series per tree that applies the patches: a tree sees only its own.
    // A group with a flag carried as an RFC goes in an RFC series of its own for that tree.
    const routes = await Promise.all(skipped.map((x) => routeFor(ctx, x.file)));
    const notices: string[] = [];
    for (const x of files.flatMap((f) => f.flags)) {
      const docs = x.docs as string[];
      if (docs.length) notices.push(`${docs.join(', ')} still name${docs.length === 1 ? 's' : ''} ${x.flag}: see whether ${docs.length === 1 ? 'it needs' : 'they need'} a word on ${x.key}`);
    }
    for (const g of groups) {
      const route = g.route as Route;
      if (route.entry) continue;
      for (const { file } of g.files as { file: string }[]) {
        const authors = (await ctx.authorsOf?.(file)) ?? [];
        notices.push(`no maintainer for ${file}: only ${route.lists.join(', ') || 'a list'}${authors.length ? `; its recent authors and committers (get_maintainer.pl --git), to Cc: ${authors.join(', ')}` : ''}`);
      }
    }
    return {
      notices,
      ...seriesVars(groups, skipped),
      runtime: ctx.runtime ? { config: ctx.runtime.config, workload: ctx.runtime.workload, accel: ctx.runtime.accel.toUpperCase() } : false,
      scope,
      // The whole set (generate's draft): the split below gives each tree's series its own name, tree and tag.
      suffix: scope,
      treeName: '',
      subjectTag: '',
      rfc: false,
      trees: byTree(groups as (TemplateVars & { route: Route })[], (g) => String(g.rfc === true)).map((gs) => {
        const route = gs[0]!.route as Route;
        const tree = route.tree;
        const rfc = gs[0]!.rfc === true;
        return {
          ...seriesVars(
            gs,
            rfc ? [] : skipped.filter((_, i) => routes[i]!.tree === tree),
          ),
          treeName: tree,
          suffix: [...new Set([scope, route.slug, rfc ? 'rfc' : ''].filter(Boolean))].join('-'),
          subjectTag: route.tag ?? '',
          rfc,
        };
      }),
    };
  },

  transform(ctx, file, text, vars) {
    let out = text;
    for (const f of vars.flags as FlagVars[]) {
      if (f.toggle) out = convertToggle(file, out, f.flag, f.key, toggleFragments(ctx)).text;
      else if (f.use) out = convertFlag(file, out, f.flag, f.key, fragments(ctx), f.usualValue, useOptions(f.type as 'bool' | 'int', f.initiallyTrue)).text;
      else out = convertFlag(file, out, f.flag, f.key, fragments(ctx), f.usualValue, defineOptions(f.readOnly, f.rfc, f.shared)).text;
    }
    return out;
  },

  verify: staticKeyVerifier,
};

/**
 * Without --only: the `auto` candidates on a hot path of the measured boot (minRate < 0, the default: hotness.ts), or
 * those whose tests ran at least `minRate` times per second (0: all of them, unmeasured ones included), the hottest
 * first, at most `top` of them; with --only, exactly the flags it names (each must be `auto`; `file:flag` when a name
 * repeats).
 */
function select(found: FlagCandidate[], only: string[], paths: string[], runtime: RuntimeEvidence | undefined, limits: { minRate: number; top: number; toggles: boolean }): FlagCandidate[] {
  const where = paths.length ? ` under ${paths.join(', ')}` : '';
  const convertible = (c: FlagCandidate) => c.verdict === 'auto' || carriable(c) || (limits.toggles && notAToggle(c) === undefined);
  if (only.length === 0) {
    const auto = found.filter(convertible);
    if (auto.length === 0) throw new ParamError(`static-keys: no flag${where} can be converted automatically`, `kseries scan static-keys${paths.map((p) => ` --path ${p}`).join('')} shows the candidates and why`);
    const cap = (xs: FlagCandidate[]) => (limits.top > 0 ? xs.slice(0, limits.top) : xs);
    if (!runtime) {
      if (limits.minRate !== 0) throw new ParamError(`static-keys: nothing was measured, so no flag${where} is known to be on a hot path`, 'let generate boot the tree (no --no-build), name flags with --only, or give --min-rate 0 to propose every auto flag unmeasured');
      return cap(auto);
    }
    const hits = (c: FlagCandidate) => {
      const h = runtime.of(c.file, c.variable);
      return h && 'perSecond' in h ? h : undefined;
    };
    const ranked = [...auto].sort((a, b) => byHotness(hits(a), hits(b)));
    // --min-rate 0 sets no threshold: every auto flag, measured or not (its message says which), the hottest first.
    const chosen = ranked.filter((c) => (limits.minRate < 0 ? hits(c)?.path === 'hot' : limits.minRate === 0 || (hits(c)?.perSecond ?? -1) >= limits.minRate));
    if (chosen.length === 0) {
      const measured = auto.filter((c) => hits(c)).length;
      const threshold = limits.minRate < 0 ? 'on a hot path of' : `tested ${limits.minRate} times per second in`;
      const hottest = [...found].filter((c) => hits(c)).sort((a, b) => byHotness(hits(a), hits(b))).slice(0, 3);
      throw new ParamError(
        `static-keys: no auto flag${where} is ${threshold} the ${runtime.workload} workload (${measured} of ${auto.length} measured); the hottest candidates: ${hottest.map((c) => describeHot(c, hits(c)!)).join('; ') || 'none tested'}`,
        'kseries measure lists every candidate\'s path and rates; --min-rate N chooses by tests per second (0: every auto flag), or name flags with --only',
      );
    }
    return cap(chosen);
  }
  const named = (c: FlagCandidate) => convertible(c) || carriedOnRequest(c);
  return only.map((o) => {
    const [file, name] = o.includes(':') ? o.split(':', 2) : [undefined, o];
    const matches = found.filter((c) => c.variable === name && (file === undefined || c.file === file));
    if (matches.length === 0) throw new ParamError(`--only ${o}: no flag candidate of that name${where}`, 'kseries scan static-keys lists them; use file:flag to pick one file');
    if (matches.length > 1) throw new ParamError(`--only ${o}: ${matches.length} files declare it (${matches.map((m) => m.file).join(', ')})`, `write it as file:flag, e.g. --only ${matches[0]!.file}:${name}`);
    const c = matches[0]!;
    if (!named(c)) {
      const toggle = notAToggle(c) === undefined;
      throw new ParamError(
        `--only ${o}: the scan says ${c.verdict}: ${c.reasons.join('; ')}`,
        toggle ? 'it is a runtime toggle: add --toggles to convert it with a setter' : 'after checking it yourself, convert it with the static-key recipe (--set file=... --set flag=...)',
      );
    }
    return c;
  });
}

/**
 * The flags the same functions write that this series leaves as they are (cgroup.memory= sets nosocket, nobpf and
 * nokmem): each with why, so the message explains the difference instead of leaving a maintainer to ask.
 */
function siblingsOf(c: FlagCandidate, found: FlagCandidate[], chosen: FlagCandidate[]): { flag: string; why: string }[] {
  const writers = new Set(c.writes.map((w) => w.function).filter(Boolean));
  return found
    .filter((o) => o.file === c.file && o.variable !== c.variable && !chosen.includes(o) && o.writes.some((w) => w.function && writers.has(w.function)))
    .map((o) => ({ flag: o.variable, why: o.verdict === 'auto' ? 'it is not converted in this series (kseries measure says how hot its tests are)' : `the scan marks it ${o.verdict}: ${o.reasons[0] ?? 'see kseries scan static-keys'}` }));
}

/** The scan's reasons the checklist's questions do not already state, each once. */
function unasked(reasons: string[], items: { ask?: string }[]): string[] {
  const asked = items.map((i) => i.ask ?? '').join('\n');
  return [...new Set(reasons.map((r) => r.replace(/ \(line \d+\)$/, '')))].filter((r) => !asked.includes(r));
}

/** Every write of the flag runs before mark_readonly(): from a boot-option handler or an initcall. */
function bootOnly(c: FlagCandidate): boolean {
  return c.writes.length > 0 && c.writes.every((w) => ['setup', 'early_param', 'initcall'].includes(w.context));
}

/**
 * One statement per fact: a writer that sets two flags of the patch (cgroup_memory() sets nosocket and nobpf) is
 * described at the first one; at the next, `said` tells the template it was.
 */
function saidOnce<F extends TemplateVars & { writerFacts?: WriterFact[] }>(flags: F[]): F[] {
  const seen = new Set<string>();
  return flags.map((f) => ({
    ...f,
    writerFacts: (f.writerFacts ?? []).map((w) => {
      const said = seen.has(w.function);
      seen.add(w.function);
      return { ...w, said };
    }),
  }));
}

/** "family_registered (auto; hot path, 1 per task exit, 23.6/s)", with a manual one's needs. */
export function describeHot(c: Pick<FlagCandidate, 'variable' | 'verdict' | 'needs'>, h: FlagHits): string {
  const needs = c.verdict === 'manual' && c.needs.length ? `, needs ${c.needs.join(', ')}${carriedOnRequest(c) && !carriable(c) ? '; --only carries it as an RFC' : ''}` : '';
  return `${c.variable} (${c.verdict}${needs}; ${formatHotness(h)})`;
}

function byFile(chosen: FlagCandidate[]): Map<string, FlagCandidate[]> {
  const out = new Map<string, FlagCandidate[]>();
  for (const c of [...chosen].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)) {
    if (!out.has(c.file)) out.set(c.file, []);
    out.get(c.file)!.push(c);
  }
  return out;
}

/**
 * The value an initcall stores on every boot (a statement of its own body), which is then the flag's usual value;
 * undefined when only __setup() handlers write it (they run only when their option is given), when the initcall
 * writes it only on some boots (inside an `if`) or through a helper, or when the initcalls disagree.
 */
function valueAfterBoot(c: FlagCandidate): boolean | undefined {
  const values = new Set(c.writes.filter((w) => w.everyBoot).map((w) => w.value));
  return values.size === 1 ? [...values][0] : undefined;
}

/** The boot-time writers' kinds as messages name them, in boot order. */
const WRITER_KINDS: [WriterFact['kind'], string][] = [
  ['early_param', 'early_param() handler'],
  ['setup', '__setup() handler'],
  ['initcall', 'initcall'],
];

/** The write contexts that end with boot (or a module's init): the flag keeps its value afterwards. */
const BOOT_CONTEXTS = new Set(WRITER_KINDS.map(([k]) => k as string));

/**
 * "the __setup() handler foo()", "the early_param() handler baz()", "the initcall bar()"; a writer that runs later
 * or from where kseries could not tell: "qux() (at run time)", "quux() (called where kseries could not place every
 * caller)".
 */
function setBy(c: FlagCandidate): string[] {
  const kind = new Map<string, string>(WRITER_KINDS);
  const later = (w: FlagCandidate['writes'][number]) => (['runtime', 'probe', 'exit'].includes(w.context) ? 'at run time' : 'called where kseries could not place every caller');
  return [...new Set(c.writes.map((w) => (kind.has(w.context) ? `the ${kind.get(w.context)} ${w.function}()` : `${w.function ? `${w.function}()` : 'an initializer'} (${later(w)})`)))];
}

/** "__setup() handlers and initcalls": the kinds of writer the converted flags have, in boot order. */
function writerKinds(flags: FlagVars[]): string[] {
  const kinds = new Set(flags.flatMap((f) => (f.writerFacts as WriterFact[]).map((w) => w.kind)));
  return WRITER_KINDS.filter(([k]) => kinds.has(k)).map(([, n]) => `${n}s`);
}

/** What a series' cover letter counts, for the groups it holds. */
function seriesVars(groups: TemplateVars[], skipped: { file: string; flag: string; reason: string }[]): TemplateVars {
  const files = groups.flatMap((g) => g.files as { file: string; flags: FlagVars[] }[]);
  const flags = files.flatMap((f) => f.flags);
  return {
    byRate: groups.flatMap((g) => (g.flags as FlagVars[]).map((f) => ({ ...f, prefix: g.prefix }))).sort((a, b) => (b.perSecond ?? -1) - (a.perSecond ?? -1) || a.file.localeCompare(b.file)),
    groups,
    groupCount: groups.length,
    flagCount: flags.length,
    fileCount: files.length,
    skipped,
    writerKinds: writerKinds(flags.filter((x) => !x.toggle)),
    bootCount: flags.filter((x) => !x.toggle).length,
    toggleCount: flags.filter((x) => x.toggle).length,
    flagNoun: flags.some((x) => x.toggle) ? 'flag' : 'boot-time flag',
    // No MAINTAINERS entry but THE REST covers these: get_maintainer.pl names only the lists.
    unmaintained: groups.filter((g) => !(g.route as Route).entry || (g.maintainers as string[]).length === 0).flatMap((g) => (g.files as { file: string }[]).map((f) => f.file)),
  };
}

/**
 * One patch per tree and set of maintainers (series/groups.ts), an RFC flag's group apart; the title in the case of
 * the files' history.
 */
async function groupFlags(ctx: RecipeContext, files: { file: string; flags: FlagVars[] }[]): Promise<TemplateVars[]> {
  const groups = await groupByMaintainers(ctx, files, (f) => String(f.flags.some((x) => x.rfc)));
  return groups.map((g) => {
    const flags = saidOnce(g.files.flatMap((f) => f.flags));
    const convert = g.lower ? 'convert' : 'Convert';
    return {
      prefix: g.prefix,
      tree: g.tree,
      route: g.route,
      rfc: g.files.some((f) => f.flags.some((x) => x.rfc)),
      title: flags.length === 1 ? `${convert} ${flags[0]!.flag} to a static key` : `${convert} ${flags.length} ${flags.some((f) => f.toggle) ? 'flags' : 'boot-time flags'} to static keys`,
      maintainers: g.maintainers,
      files: g.files,
      uses: usesOf(flags),
      flags,
      flagCount: flags.length,
    };
  });
}

/** The other files of the group's shared flags, each with the flags it uses (converted by transform() as `use`). */
function usesOf(flags: FlagVars[]): { file: string; flags: FlagVars[] }[] {
  const out = new Map<string, FlagVars[]>();
  for (const f of flags) for (const file of f.usedIn) out.set(file, [...(out.get(file) ?? []), { ...f, use: true }]);
  return [...out].sort(([a], [b]) => a.localeCompare(b)).map(([file, fs]) => ({ file, flags: fs }));
}

function listParam(v: Params[string] | undefined): string[] {
  return String(v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
