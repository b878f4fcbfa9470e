// Recipe static-key (explicit form): convert one file-scope flag of one file into a static key, in one patch.
import { ParamError } from '../../errors.js';
import type { TemplateVars } from '../../templates/render.js';
import type { RecipeCode, RecipeContext } from '../types.js';
import { convertFlag, type Conversion, type KeyFragments } from './convert.js';
import { staticKeyVerifier } from './verify.js';
import { historyPrefix, subjectPrefix } from '../../subsystems/groups.js';

export const staticKey: RecipeCode = {
  id: 'static-key',

  async prepare(ctx, params) {
    const file = String(params.file);
    const flag = String(params.flag);
    const key = String(params.key) || `${flag}_key`;
    const text = await ctx.readFile(file);
    if (text === undefined) throw new ParamError(`parameter "file": ${file} does not exist in the tree`, 'give a path relative to the tree top');
    const c = convertFlag(file, text, flag, key, fragments(ctx));
    return {
      key,
      prefix: String(params.prefix) || historyPrefix((await ctx.subjectsOf?.(file)) ?? []) || subjectPrefix(file),
      ...describe(c),
    };
  },

  transform(ctx, file, text, vars) {
    return convertFlag(file, text, String(vars.flag), String(vars.key), fragments(ctx)).text;
  },

  verify: staticKeyVerifier,
};

/**
 * What the templates say about a conversion: its sites, the hints its tests had and got (`hintsKept` tests had
 * likely()/unlikely() and keep it, `hintsAdded` had none and got `addedHint`), and the static_branch_*() calls it adds.
 */
export function describe(c: Conversion): TemplateVars {
  const functions = (sites: Conversion['reads']) => [...new Set(sites.map((s) => (s.function ? `${s.function}()` : 'file scope')))];
  const hints = c.reads.flatMap((r) => (r.hint ? [r.hint] : []));
  const added = [...new Set(hints.filter((h) => h.before === undefined).map((h) => h.after))];
  return {
    sourceTests: c.reads.length,
    hintsKept: hints.filter((h) => h.before !== undefined).length,
    hintsAdded: hints.filter((h) => h.before === undefined).length,
    addedHint: added.length === 1 ? added[0]! : added.length ? 'likely or unlikely' : '',
    calls: branchCalls(c.writes),
    type: c.type,
    initiallyTrue: c.initiallyTrue,
    readOnlyAfterInit: c.readOnlyAfterInit,
    defineMacro: c.declaration ? (/DEFINE_STATIC_KEY\w*/.exec(c.declaration.after)?.[0] ?? c.declaration.after) : '',
    reads: c.reads,
    writes: c.writes,
    readCount: c.reads.length,
    writeCount: c.writes.length,
    readers: functions(c.reads),
    writers: functions(c.writes),
    includeAdded: c.includeAdded,
    commentsUpdated: c.commentsUpdated.length,
    commentsKept: c.commentsKept,
  };
}

export function fragments(ctx: RecipeContext): KeyFragments {
  const one = (template: string, vars: TemplateVars) => ctx.render(template, vars).replace(/\n+$/, '');
  return {
    define: (v) => one('code/define.hbs', v),
    declare: (v) => one('code/declare.hbs', v),
    read: (v) => one('code/read.hbs', v),
    write: (v) => one('code/write.hbs', v),
    include: () => one('code/include.hbs', {}),
    value: (v) => one('code/value.hbs', v),
  };
}

/** The static_branch_*() calls these writes became, once each: "static_branch_disable()", "static_branch_enable()". */
export function branchCalls(writes: Conversion['writes']): string[] {
  return [...new Set(writes.map((w) => (w.enable ? 'static_branch_enable()' : 'static_branch_disable()')))].sort();
}
