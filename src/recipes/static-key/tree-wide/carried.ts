// A manual flag carried as an RFC: the other files of a shared flag, converted with it in one patch (the header's
// extern becomes DECLARE_STATIC_KEY_*(), their tests jump labels), and the checklist its cover letter and message give
// — each need with where the patch meets it, or the question it leaves to a reviewer.
import { readC, findIdentifier } from '../../../c-source/text.js';
import type { RecipeContext } from '../../types.js';
import { branchCalls } from '../index.js';
import { convertFlag, isMemberAccess, type Conversion, type ConvertOptions, type KeyFragments } from '../convert.js';
import { needKind, outsideKernel, type FlagCandidate } from '../scan.js';

/** Another file that names a shared flag, and what its conversion did there. */
export interface UseFile {
  file: string;
  conv: Conversion;
}

/** How the file that defines a flag is converted: value reads kept as static_key_enabled() in an RFC, not static when shared. */
export function defineOptions(bootOnly: boolean, rfc: boolean, shared: boolean): ConvertOptions {
  return { bootOnly, values: rfc, ...(shared ? { shared: { role: 'define' as const } } : {}) };
}

/** How another file of a shared flag is converted: its extern, tests, value reads and writes, as the definition's key's. */
export function useOptions(type: 'bool' | 'int', initiallyTrue: boolean): ConvertOptions {
  return { values: true, shared: { role: 'use', type, initiallyTrue } };
}

/**
 * The files other than the definition's that use a shared flag, each converted: git grep names the candidates; a
 * file outside the kernel proper, one whose code never names the flag (only comments), and one that declares a
 * variable of its own with that name (a static of another file, a local, a parameter) are left out.
 */
export async function otherUsers(ctx: RecipeContext, c: FlagCandidate, key: string, fragments: KeyFragments, initiallyTrue: boolean, usualValue: boolean | undefined): Promise<UseFile[]> {
  const named = ((await ctx.sourcesNaming?.(c.variable)) ?? []).filter((f) => f !== c.file && !outsideKernel(f));
  const out: UseFile[] = [];
  for (const file of named) {
    const text = await ctx.readFile(file);
    if (text === undefined || !usesTheGlobal(text, c.variable)) continue;
    const conv = convertFlag(file, text, c.variable, key, fragments, usualValue, useOptions(c.type, initiallyTrue));
    out.push({ file, conv });
  }
  return out;
}

/** The file's code names `flag` outside member accesses, and declares no variable of its own by that name. */
function usesTheGlobal(text: string, flag: string): boolean {
  const { masked } = readC(text);
  const uses = findIdentifier(masked, flag).filter((at) => !isMemberAccess(masked, at));
  if (uses.length === 0) return false;
  const own = new RegExp(`(?<!extern[\\w\\s]*)\\b(?:bool|int|char|long|unsigned|u8|u16|u32|u64|atomic_t|struct\\s+\\w+\\s*\\*?)\\s+(?:__\\w+\\s+)*${flag}\\s*(?:[;=,)\\[]|__)`);
  return !masked.split('\n').some((line) => !/^\s*extern\b/.test(line) && own.test(line));
}

export interface CheckItem {
  need: string;
  /** Where the patch meets it ([x]); undefined when it is a question. */
  done?: string;
  /** The question left to a reviewer ([ ]). */
  ask?: string;
}

/** Which of the scan's reasons a writer need stands for. */
const WRITER_REASONS: Record<string, RegExp> = {
  'a person to judge the run-time writer': /^written at run time/,
  'a writer context kseries can establish': /^written in /,
  'a boot-time writer on every architecture': /parses? early parameters before jump_label_init\(\)/,
};

/** Each need of a carried flag: done by the patch, or asked; and a question per write in another file. */
export function checklist(c: FlagCandidate, key: string, conv: Conversion, users: UseFile[]): CheckItem[] {
  const items = c.needs.map((need): CheckItem => {
    if (needKind(need) === 'ask') {
      const calls = branchCalls(conv.writes);
      return { need, ask: `${calls.length > 1 ? 'are' : 'is'} ${calls.join(' and ') || 'switching the key'} right there? ${linesMerged(c.reasons.filter((r) => WRITER_REASONS[need]?.test(r))) || 'see kseries scan static-keys'}` };
    }
    const line = /value read at line (\d+)/.exec(need)?.[1];
    if (line) return { need, done: `line ${line} reads static_key_enabled(&${key})` };
    const header = users.find((u) => u.conv.declarations.length > 0);
    const tests = users.filter((u) => u.conv.reads.length > 0).map((u) => u.file);
    return { need, done: `${header ? `${header.file} declares the key` : 'no header declares it extern: nothing to declare'}${tests.length ? `; the tests in ${tests.join(', ')} are jump labels too` : ''}` };
  });
  for (const u of users) {
    for (const w of u.conv.writes) items.push({ need: `the write in ${u.file}:${w.line}`, ask: `${w.function ?? 'file scope'}() writes ${c.variable} outside the file that defines it; kseries did not follow that writer: is ${w.enable ? 'static_branch_enable()' : 'static_branch_disable()'} right there?` });
  }
  return items;
}

/** Reasons that differ only in their "(line N)": one, with the lines ("... (lines 5618, 5620)"). */
function linesMerged(reasons: string[]): string {
  const lines = new Map<string, string[]>();
  for (const r of reasons) {
    const m = / \(line (\d+)\)$/.exec(r);
    const text = m ? r.slice(0, m.index) : r;
    lines.set(text, [...(lines.get(text) ?? []), ...(m ? [m[1]!] : [])]);
  }
  return [...lines].map(([text, ls]) => (ls.length === 0 ? text : `${text} (line${ls.length > 1 ? 's' : ''} ${ls.join(', ')})`)).join('; ');
}
