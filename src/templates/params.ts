// Declared recipe parameters: types, defaults, and the checks of values given with --set.
import { checkTreePath } from '../tree/paths.js';
import { ParamError } from '../errors.js';

export type ParamType = 'identifier' | 'string' | 'integer' | 'path' | 'boolean';
export const PARAM_TYPES: readonly ParamType[] = ['identifier', 'string', 'integer', 'path', 'boolean'];

export interface ParamSpec {
  type: ParamType;
  help: string;
  /** Absent: the parameter is required. An empty string means "the recipe works it out". */
  default?: string | number | boolean;
}

export type ParamValue = string | number | boolean;
export type Params = Record<string, ParamValue>;

/** Parse `key=value` pairs from --set. */
export function parseSetArgs(sets: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of sets) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new ParamError(`--set ${s}: expected key=value`, 'e.g. --set flag=my_flag');
    out[s.slice(0, eq)] = s.slice(eq + 1);
  }
  return out;
}

/** Check every given value against its declaration and fill in defaults. */
export function resolveParams(recipe: string, specs: Record<string, ParamSpec>, given: Record<string, string>): Params {
  for (const key of Object.keys(given)) {
    if (!(key in specs)) {
      throw new ParamError(
        `recipe ${recipe} has no parameter "${key}"`,
        `its parameters: ${Object.keys(specs).join(', ') || '(none)'}; see kseries recipes ${recipe}`,
      );
    }
  }
  const out: Params = {};
  for (const [key, spec] of Object.entries(specs)) {
    const raw = given[key];
    if (raw === undefined) {
      if (spec.default === undefined) {
        throw new ParamError(`recipe ${recipe} needs parameter "${key}" (${spec.type}): ${spec.help}`, `add --set ${key}=...`);
      }
      out[key] = spec.default;
      continue;
    }
    out[key] = convertParam(recipe, key, spec.type, raw);
  }
  return out;
}

export function convertParam(recipe: string, key: string, type: ParamType, raw: string): ParamValue {
  const bad = (what: string, hint: string) =>
    new ParamError(`parameter "${key}" of recipe ${recipe}: ${JSON.stringify(raw)} is not ${what}`, hint);
  switch (type) {
    case 'identifier':
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(raw)) throw bad('a C identifier', 'letters, digits and _, not starting with a digit');
      return raw;
    case 'string':
      if (/[\n\r]/.test(raw)) throw bad('a one-line string', 'remove the line breaks');
      return raw;
    case 'integer': {
      if (!/^-?(0x[0-9a-fA-F]+|\d+)$/.test(raw)) throw bad('an integer', 'decimal, or hex with 0x');
      const negative = raw.startsWith('-');
      const n = Number(negative ? raw.slice(1) : raw);
      return negative ? -n : n;
    }
    case 'boolean':
      if (/^(true|yes|1|on)$/i.test(raw)) return true;
      if (/^(false|no|0|off)$/i.test(raw)) return false;
      throw bad('a boolean', 'true or false');
    case 'path':
      return checkTreePath(raw, `parameter "${key}" of recipe ${recipe}`);
  }
}

