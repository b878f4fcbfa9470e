// What a static-keys commit message may say about the writers of one converted flag, each established from the source
// and the conversion: the context each runs in at that point of boot, the static_branch_*() calls the patch puts in
// it, and the lock it holds. The templates say only what these facts say (the tests' facts: static-key describe()).
import { CFile } from '../../../c-source/functions.js';
import { sleepingLockAt } from '../contexts.js';
import { branchCalls } from '../index.js';
import type { Conversion } from '../convert.js';
import type { FlagCandidate } from '../scan.js';

/** One function that writes the flag, as the message describes it. */
export interface WriterFact {
  /** "cgroup_memory()" */
  function: string;
  /** Where it runs: a __setup() handler, an early_param() handler, or an initcall (directly or through helpers). */
  kind: 'setup' | 'early_param' | 'initcall';
  /** "dbdma_setup() <- alchemy_dbdma_init()" when it is reached through callers, else empty. */
  chain: string;
  /** The static_branch_*() calls the patch puts in it: "static_branch_enable()". */
  calls: string[];
  /** An initcall of the file runs it on every boot. */
  everyBoot: boolean;
  /** The sleeping lock it holds where it writes ("mutex_lock() at mm/x.c:12"), or false. */
  lock: string | false;
  /** For a boot-option handler: the option as its __setup()/early_param() line names it ("cgroup.memory="), or false. */
  option: string | false;
  /**
   * The call whose failure returns from the function before the write ("genl_register_family()": `rc = f(); if (rc)
   * return rc;` above it), so the flag is set only when that call succeeds; false when no such return comes first.
   */
  after: string | false;
  /**
   * For an early_param() handler: the architectures that build the file, each of which parses early parameters after
   * jump_label_init() ("x86, the only architecture that builds this file"), and where ("arch/x86/kernel/setup.c:950");
   * false otherwise.
   */
  arches: { names: string; where: string } | false;
}

/** The last `x = f(...); if (x) return` (or `if (x < 0)`) before `at` in the body text: f's name. */
export function succeededCall(body: string): string | false {
  let found: string | false = false;
  for (const m of body.matchAll(/\b(\w+)\s*=\s*(\w+)\s*\([^;]*\);\s*if\s*\(\s*\1\s*(?:<\s*0\s*)?\)\s*(?:\{\s*)?(?:[^;{}]*;\s*)?return\b/g)) found = `${m[2]!}()`;
  return found;
}

/** The option string of the __setup()/early_param() line that registers one of `functions` (a handler, or its callers). */
function optionOf(text: string, functions: string[]): string | false {
  for (const fn of functions) {
    const m = new RegExp(`\\b(?:__setup|early_param)\\(\\s*"([^"]*)"\\s*,\\s*${fn}\\s*\\)`).exec(text);
    if (m) return m[1]!;
  }
  return false;
}

/** "x86, the only architecture that builds this file" and where it parses early parameters; or every one of several. */
export function archesText(arches: { arch: string; where: string }[]): { names: string; where: string } | false {
  if (arches.length === 0) return false;
  const names = arches.map((a) => a.arch);
  const where = arches.map((a) => a.where).join('; ');
  if (names.length === 1) return { names: `${names[0]}, the only architecture that builds this file`, where };
  return { names: `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}, every architecture that builds this file`, where };
}

/** The functions of a writer's "a() <- b() (...)" chain. */
function chainFunctions(via: string): string[] {
  return [...(/^(.*? <- .*?\(\))/.exec(via)?.[1] ?? '').matchAll(/(\w+)\(\)/g)].map((m) => m[1]!);
}

/** Each function that writes the flag, merged per function. */
export function writerFacts(file: string, baseText: string, c: FlagCandidate, conv: Conversion): WriterFact[] {
  const all = branchCalls(conv.writes);
  const cf = new CFile(file, baseText);
  const byFunction = new Map<string, WriterFact>();
  // Boot-time writers only: a runtime toggle's interface is described by its own facts (static-key-toggle's).
  for (const w of c.writes.filter((x) => x.context === 'setup' || x.context === 'early_param' || x.context === 'initcall')) {
    const name = w.function ?? '';
    const def = cf.functions.get(name);
    const lock = def ? sleepingLockAt(cf, def, cf.lines.lineStart(w.line)) : undefined;
    const calls = branchCalls(conv.writes.filter((x) => x.function === name));
    const fact: WriterFact = {
      function: `${name}()`,
      kind: w.context as WriterFact['kind'],
      chain: /^(.*? <- .*?\(\)) \(/.exec(w.via)?.[1] ?? '',
      calls: calls.length ? calls : all,
      everyBoot: w.everyBoot === true,
      lock: lock ? `${lock.call}() at ${lock.where}` : false,
      option: w.context === 'initcall' ? false : optionOf(baseText, [name, ...chainFunctions(w.via)]),
      after: def ? succeededCall(baseText.slice(def.open, cf.lines.lineStart(w.line))) : false,
      arches: w.context === 'early_param' ? archesText(c.earlyParamArches ?? []) : false,
    };
    const seen = byFunction.get(name);
    // A function that writes twice is one writer: every boot if any write is, its lock if any write holds one.
    byFunction.set(name, seen ? { ...seen, everyBoot: seen.everyBoot || fact.everyBoot, lock: seen.lock || fact.lock } : fact);
  }
  return [...byFunction.values()];
}
