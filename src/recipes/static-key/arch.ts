// What the architectures decide for a static key, read from the tree: which ones have jump labels at all
// (`select HAVE_ARCH_JUMP_LABEL` in arch/<a>/Kconfig), and which ones parse early parameters only after
// jump_label_init() (every parse_early_param() call of arch/<a>/ stands in a function that calls jump_label_init()
// before it; an architecture that never calls it leaves it to start_kernel(), which does). Pure: texts in.
import { CFile } from '../../c-source/functions.js';
import type { Arches } from '../../build/kconfig.js';

export interface ArchFacts {
  all: string[];
  jumpLabel: string[];
  earlyParamsAfterJumpLabel: string[];
  /** file:line of each parse_early_param() call that runs before jump_label_init(), by architecture. */
  earlyBefore: Record<string, string[]>;
  /** file:line of each parse_early_param() call of arch/<a>/ that runs after jump_label_init(), by architecture. */
  earlyAfter?: Record<string, string[]>;
}

/** The architectures as one view: the facts, and which architectures a file is built for. */
export interface ArchView {
  all: string[];
  jumpLabel(arch: string): boolean;
  earlyParamsAfterJumpLabel(arch: string): boolean;
  /** Where an architecture that parses early parameters after jump_label_init() does it: "arch/x86/kernel/setup.c:950". */
  earlyParamSite(arch: string): string;
  /** `arch/<a>/` files are built for <a>; others for what their Kconfig symbols allow ('any' when nothing narrows it). */
  archesOf(file: string): Arches;
}

export function archView(facts: ArchFacts, kconfigArches?: (file: string) => Arches | undefined): ArchView {
  return {
    all: facts.all,
    jumpLabel: (a) => facts.jumpLabel.includes(a),
    earlyParamsAfterJumpLabel: (a) => facts.earlyParamsAfterJumpLabel.includes(a),
    earlyParamSite: (a) => facts.earlyAfter?.[a]?.[0] ?? 'start_kernel() in init/main.c',
    archesOf: (file) => {
      const own = /^arch\/([^/]+)\//.exec(file);
      if (own) return [own[1]!];
      return kconfigArches?.(file) ?? 'any';
    },
  };
}

/**
 * Without the tree's facts (a file scanned on its own): every architecture has jump labels, and none is known to parse
 * early parameters after jump_label_init(), so an early_param() writer always needs a person.
 */
export function anyArch(): ArchView {
  return archView({ all: [SOME_ARCHES], jumpLabel: [SOME_ARCHES], earlyParamsAfterJumpLabel: [], earlyBefore: {} });
}

/** The architecture list of anyArch(), as the reasons say it. */
export const SOME_ARCHES = 'some architectures';

/**
 * `kconfigs`: arch/<a>/Kconfig by architecture; `calls`: the arch/ files that call parse_early_param(), by path.
 */
export function readArchFacts(kconfigs: ReadonlyMap<string, string>, calls: ReadonlyMap<string, string>): ArchFacts {
  const all = [...kconfigs.keys()].sort();
  const jumpLabel = all.filter((a) => /^\s*select\s+HAVE_ARCH_JUMP_LABEL\b/m.test(kconfigs.get(a)!.replace(/#.*$/gm, '')));
  const earlyBefore: Record<string, string[]> = {};
  const earlyAfter: Record<string, string[]> = {};
  for (const [file, text] of calls) {
    const arch = /^arch\/([^/]+)\//.exec(file)?.[1];
    if (!arch) continue;
    const cf = new CFile(file, text);
    for (const m of cf.masked.matchAll(/\bparse_early_param\s*\(\s*\)\s*;/g)) {
      const def = cf.functionAt(m.index!);
      if (!def) continue;
      const before = cf.masked.slice(def.open, m.index!);
      const where = `${file}:${cf.lines.lineOf(m.index!)}`;
      if (!/\bjump_label_init\s*\(\s*\)\s*;/.test(before)) (earlyBefore[arch] ??= []).push(where);
      else (earlyAfter[arch] ??= []).push(where);
    }
  }
  return { all, jumpLabel, earlyParamsAfterJumpLabel: all.filter((a) => !earlyBefore[a]), earlyBefore, earlyAfter };
}
