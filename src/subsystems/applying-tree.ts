// Which MAINTAINERS entry's tree applies a patch to a file. Not simply the most specific entry with a `T:`: platform
// and core entries list driver folders of other subsystems too (ARM/CORTINA SYSTEMS GEMINI lists
// drivers/net/ethernet/cortina/, Hyper-V/Azure CORE AND DRIVERS lists drivers/net/hyperv/), and those drivers go
// through the subsystem's tree. The decision order (README, "Which tree applies a patch"):
//   1. Entries that cover the file by an F: pattern, the most specific first; N:-only (keyword) matches are out.
//   2. The subsystem: the least specific of them with a git tree (NETWORKING DRIVERS for drivers/net/).
//   3. Its scope: the code folders of every MAINTAINERS entry that shares one of its repositories (netdev's trees
//      take drivers/net/ and net/ alike).
//   4. The tree of the most specific entry with a git tree whose code lies mostly within that scope, at least half of
//      its code patterns (a driver's own tree: ath, rtw, iwlwifi, can-next — which lists drivers/phy's CAN
//      transceiver too —, wpan-next, Intel's next-queue); the subsystem's when there is none.
//   5. Where that entry covers a folder above the driver's (the subsystem's, or wireless' in 6.1): the tree that
//      applies the folder the driver sits in, when the folder is a unit (an entry covers its own files) and every entry with a tree that
//      covers a subfolder of it names that one tree, two entries at least (ath.git: ath9k, ath10k, ath11k and ath12k
//      name it, ATH GENERIC UTILITIES covers ath/*, so ath5k and wcn36xx go through it too; Intel's wireless folder
//      has one, iwlwifi's, and ipw2x00 stays with wireless-next). The deepest folder with such entries decides.
//   A subsystem that covers the file only as a whole top folder (lib/, net/, Documentation/), an architecture
//   (arch/arm/) or through a wildcard across folders (arch/*/boot/dts/) is a catch-all: the most specific entry
//   with a tree takes the file (KPROBES takes lib/test_kprobes.c and Documentation/trace/kprobes.rst, a platform
//   its arch/arm/mach-* folder and its device trees).
// Pure: entries in, an entry out.
import { coverDepth, coveringPattern, gitTrees, patternCovers, repoOf, type MaintainersEntry } from './maintainers.js';

/** F: patterns that are no code of a subsystem's own: bindings, headers, docs, tools a driver entry lists too. */
const NOT_CODE = /^(Documentation|include|tools|samples|scripts|LICENSES|usr)\/|\/include\/|^MAINTAINERS$|\.(rst|txt|yaml)$/;

/** The code folders and files an entry lists. */
export function codePatterns(entry: MaintainersEntry): string[] {
  return (entry.files ?? []).filter((f) => !NOT_CODE.test(f));
}

/**
 * The entry whose tree applies patches to `file`, from its covering entries (`specific`, the most specific first,
 * THE REST and keyword matches left out) and, to find a subsystem's scope, every MAINTAINERS entry (`all`; the
 * covering entries when the caller has no MAINTAINERS at hand).
 */
export function applyingEntry(file: string, specific: MaintainersEntry[], all: MaintainersEntry[] = specific): MaintainersEntry | undefined {
  const withTree = specific.filter((e) => gitTrees(e).length > 0);
  const subsystem = withTree[withTree.length - 1];
  if (!subsystem) return undefined;
  const depth = coverDepth(subsystem, file);
  const pattern = coveringPattern(subsystem, file) ?? '';
  if (depth !== undefined && (depth <= 1 || (depth === 2 && file.startsWith('arch/')) || /(^|\/)\*(\/|$)/.test(pattern))) return withTree[0];
  const repos = new Set(gitTrees(subsystem).map(repoOf));
  const scope = all.filter((e) => gitTrees(e).some((t) => repos.has(repoOf(t)))).flatMap(codePatterns);
  const within = (p: string) => scope.some((s) => p === s || patternCovers(s, p.replace(/\/$/, '')));
  const mostlyWithin = (e: MaintainersEntry) => {
    const code = codePatterns(e);
    return code.filter(within).length * 2 >= code.length;
  };
  const chosen = withTree.find((e) => e === subsystem || mostlyWithin(e)) ?? subsystem;
  return folderApplier(file, coverDepth(chosen, file) ?? 0, all) ?? chosen;
}

/**
 * The entry whose tree applies the folder of `file` as a whole (step 5 above): of the file's folders deeper than the
 * chosen entry's pattern (`below`), the deepest that is a unit and whose subfolders' entries with a tree, two or more,
 * all name the same trees; the first of those entries.
 */
function folderApplier(file: string, below: number, all: MaintainersEntry[]): MaintainersEntry | undefined {
  const dirs = file.split('/').slice(0, -1);
  const reposOf = (e: MaintainersEntry) => [...new Set(gitTrees(e).map(repoOf))].sort().join(' ');
  for (let n = dirs.length; n > below; n--) {
    const folder = `${dirs.slice(0, n).join('/')}/`;
    const inside = all.filter((e) => gitTrees(e).length > 0 && codePatterns(e).some((p) => p.startsWith(folder) && p.length > folder.length));
    // A folder that is a unit has an entry of its own for its shared files (ATH GENERIC UTILITIES: ath/*); TI's
    // media folder, whose drivers' entries two of which name one maintainer's tree, has none.
    const unit = all.some((e) => (e.files ?? []).some((p) => p === folder || p === `${folder}*`));
    if (unit && inside.length >= 2 && new Set(inside.map(reposOf)).size === 1) return inside[0];
    if (inside.length > 0) return undefined;
  }
  return undefined;
}
