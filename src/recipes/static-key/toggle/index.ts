// Recipe static-key-toggle: one runtime toggle (a bool module parameter, a 0/1 sysctl, a debugfs bool) made a static
// key with a setter, in one patch. The flag must be one the scan calls manual only because of that interface.
import { staticKeyServices } from '../services.js';
import { ParamError } from '../../../errors.js';
import type { TemplateVars } from '../../../templates/render.js';
import { describe, fragments } from '../index.js';
import { subjectPrefix } from '../../../subsystems/groups.js';
import type { FlagCandidate } from '../scan.js';
import { staticKeyVerifier } from '../verify.js';
import { rateVars } from '../tree-wide/rates.js';
import type { RecipeCode, RecipeContext } from '../../types.js';
import { convertToggle, type ToggleConversion, type ToggleFragments } from './convert.js';

/** What the scan asks of a runtime toggle, and all this recipe does. */
export const TOGGLE_NEEDS = ['a param setter', 'a sysctl handler', 'a debugfs file with its own fops'];

export const staticKeyToggle: RecipeCode = {
  id: 'static-key-toggle',
  services: staticKeyServices,

  async prepare(ctx, params) {
    const only = String(params.only);
    const [file, name] = only.includes(':') ? (only.split(':', 2) as [string, string]) : [undefined, only];
    const found = (await ctx.flagCandidates(file ? [file] : [])).filter((c) => c.variable === name && (file === undefined || c.file === file));
    if (found.length === 0) throw new ParamError(`--only ${only}: no flag candidate of that name`, 'kseries scan static-keys lists them; use file:flag to pick one file');
    if (found.length > 1) throw new ParamError(`--only ${only}: ${found.length} files declare it (${found.map((c) => c.file).join(', ')})`, `write it as file:flag, e.g. --only ${found[0]!.file}:${name}`);
    const c = found[0]!;
    const why = notAToggle(c);
    if (why) throw new ParamError(`--only ${only}: ${why}`, 'static-key-toggle converts a flag the scan calls manual only for its module parameter, sysctl or debugfs file');
    const key = String(params.key) || `${c.variable}_key`;
    const conv = convertToggle(c.file, (await ctx.readFile(c.file))!, c.variable, key, toggleFragments(ctx));
    return { ...toggleVars(conv), ...rateVars(ctx.runtime, c), flag: c.variable, key, file: c.file, prefix: subjectPrefix(c.file) };
  },

  transform(ctx, file, text, vars) {
    return convertToggle(file, text, String(vars.flag), String(vars.key), toggleFragments(ctx)).text;
  },

  verify: staticKeyVerifier,
};

/** Why a candidate is not a runtime toggle this recipe converts; undefined when it is one. */
export function notAToggle(c: FlagCandidate): string | undefined {
  if (c.verdict !== 'manual') return `the scan says ${c.verdict}: ${c.reasons.join('; ')}`;
  const other = c.needs.filter((n) => !TOGGLE_NEEDS.includes(n));
  if (c.needs.length === 0 || other.length > 0) return `it needs more than a setter: ${other.join('; ') || c.reasons.join('; ')}`;
  return undefined;
}

/** What the templates say about a toggle conversion. */
export function toggleVars(conv: ToggleConversion): TemplateVars {
  const t = conv.toggle;
  const interfaceText =
    t.kind === 'param'
      ? `the module parameter ${t.name} (${t.macro}(), permissions ${t.perm})`
      : t.kind === 'sysctl'
        ? `the sysctl ${t.path ? `${t.path}.` : ''}${t.procname} (${t.handler}() on ${t.table})`
        : `the debugfs file ${t.name} (mode ${t.mode})`;
  const keeps =
    t.kind === 'param'
      ? `The parameter keeps its name and permissions (${t.perm}); its set operation parses the value as param_set_bool() does and its get operation prints Y or N as param_get_bool() does.`
      : t.kind === 'sysctl'
        ? `The sysctl keeps its name, mode and limits: its handler runs ${t.handler}() on the key's value, so it takes the same input and reads back the same value.`
        : 'The file keeps its name and mode, reads back Y or N and takes what kstrtobool() takes, as the file debugfs_create_bool() made did.';
  return { ...describe(conv), toggle: { ...t }, interfaceText, keeps };
}

export function toggleFragments(ctx: RecipeContext): ToggleFragments {
  const one = (template: string, vars: TemplateVars) => ctx.render(template, vars).replace(/\n+$/, '');
  return {
    ...fragments(ctx),
    param: (v) => one('code/param.hbs', v),
    sysctl: (v) => one('code/sysctl.hbs', v),
    debugfs: (v) => one('code/debugfs.hbs', v),
  };
}
