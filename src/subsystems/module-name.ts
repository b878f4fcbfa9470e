// The driver a source file belongs to, as Kbuild makes it: the module (or built-in object) whose Makefile line lists
// the file's object. drivers/net/can/spi/mcp251xfd/mcp251xfd-core.c is part of `mcp251xfd-objs`, so of the
// mcp251xfd driver; drivers/net/ethernet/realtek/r8169_main.c of `r8169-y`. A driver is one patch of a tree-wide
// change, and its name is what a subject without history names.

export type ReadFile = (file: string) => Promise<string | undefined>;

export interface Driver {
  /** The module's name ("mcp251xfd", "mlx5_core"), or the file's folder for a header no Makefile line names. */
  name: string;
  /** The folder whose Makefile builds it: the driver's identity with the name ("drivers/net/can/spi/mcp251xfd"). */
  dir: string;
}

/** How many folders up a Makefile may list a file ("en/rx.o" in mlx5/core/Makefile). */
const MAKEFILE_LEVELS = 3;

/** Makefile lines with their continuations joined. */
function logicalLines(text: string): string[] {
  return text.replace(/\\\n/g, ' ').split('\n');
}

/**
 * The object a Makefile puts `object` (relative to the Makefile's folder, "core.o") into: the composite whose `-y`,
 * `-objs` or `-$(CONFIG_...)` list names it, else the object itself where an `obj-` line names it; undefined when
 * the Makefile does not name it.
 */
export function moduleOf(makefile: string, object: string): string | undefined {
  const lines = logicalLines(makefile).map((l) => l.replace(/#.*$/, ''));
  const listed = (l: string) => l.split(/[\s=]+/).includes(object);
  for (const l of lines) {
    const m = /^\s*([A-Za-z0-9_-]+)-(?:y|objs|\$\([A-Z0-9_]+\))\s*[:+]?=/.exec(l);
    if (m && m[1] !== 'obj' && m[1] !== 'ccflags' && m[1] !== 'subdir' && listed(l.slice(m[0].length))) {
      // A composite inside a composite (foo-y += bar.o, bar-y += baz.o), or a list another takes in
      // (proc-$(CONFIG_PROC_FS) += bond_procfs.o, bonding-objs += $(proc-y)), is the outer one's part.
      const outer = lines.find((o) => o.includes(`$(${m[1]}-y)`) && /^\s*[A-Za-z0-9_-]+-(?:y|objs)\s*[:+]?=/.test(o));
      const named = outer ? /^\s*([A-Za-z0-9_-]+)-/.exec(outer)![1]! : undefined;
      return moduleOf(makefile, `${named ?? m[1]}.o`) ?? named ?? m[1];
    }
  }
  return lines.some((l) => /^\s*obj-/.test(l) && listed(l.replace(/^[^=]*=/, ''))) ? object.replace(/\.o$/, '').split('/').pop() : undefined;
}

/** The driver of `file`: the module its object goes into, from the Makefiles of its folder and up to two above. */
export async function driverOf(file: string, read: ReadFile): Promise<Driver> {
  const parts = file.split('/');
  const dir = parts.slice(0, -1).join('/');
  if (/\.c$|\.S$/.test(file)) {
    for (let up = 1; up <= MAKEFILE_LEVELS && parts.length - up > 0; up++) {
      const at = parts.slice(0, -up).join('/');
      const makefile = (await read(`${at}/Makefile`)) ?? (await read(`${at}/Kbuild`));
      if (makefile === undefined) continue;
      const name = moduleOf(makefile, `${parts.slice(-up).join('/').replace(/\.[cS]$/, '')}.o`);
      if (name) return { name: ownFolderName(makefile, at) ?? name, dir: at };
    }
  } else if (/\.h$/.test(file)) {
    // A driver's private header: the one module its folder's Makefile builds, if there is just one.
    const makefile = (await read(`${dir}/Makefile`)) ?? '';
    const modules = modulesBuilt(makefile);
    const own = ownFolderName(makefile, dir);
    if (own) return { name: own, dir };
    if (modules.length === 1) return { name: modules[0]!, dir };
  }
  // No Makefile line names it: a .c file is a driver of its own, a header its folder's.
  return { name: /\.[cS]$/.test(file) ? parts[parts.length - 1]!.replace(/\.[cS]$/, '') : (parts[parts.length - 2] ?? file), dir };
}

/** The modules an `obj-` line of a Makefile builds. */
function modulesBuilt(makefile: string): string[] {
  return [...new Set(logicalLines(makefile).flatMap((l) => {
    const m = /^\s*obj-[^=]*=\s*(.*)$/.exec(l.replace(/#.*$/, ''));
    return m ? m[1]!.split(/\s+/).filter((o) => o.endsWith('.o')).map((o) => o.replace(/\.o$/, '')) : [];
  }))];
}

/** What a module's name says after its driver's: a bus glue or a part of one driver (wilc1000-sdio, ath10k_core). */
const PART_WORDS = /^(core|common|lib|hw|platform|sdio|spi|usb|pci|pcie|i2c|snoc|ahb|acpi|of|htc|debug)$/;

/**
 * A folder that is one driver's, whatever modules it splits into (rtw89_core, rtw89_pci, rtw89_8852b... in rtw89/;
 * ath9k, ath9k_hw, ath9k_htc in ath9k/; wilc1000-sdio and wilc1000-spi in wilc1000/): every module its Makefile
 * builds starts with the folder's name, and one is the driver itself or a part of it (rcar_can and rcar_canfd are
 * two drivers). A subsystem's own folder (drivers/gpio, drivers/spi: gpio-*.o, spi-*.o) is many drivers, and sits
 * higher up.
 */
function ownFolderName(makefile: string, dir: string): string | undefined {
  if (dir.split('/').length < 4) return undefined;
  const name = dir.split('/').pop()!;
  const built = modulesBuilt(makefile);
  const rest = built.map((m) => (m.startsWith(name) ? m.slice(name.length).replace(/^[-_]/, '') : undefined));
  if (built.length === 0 || rest.some((r) => r === undefined)) return undefined;
  return rest.some((r) => r === '' || PART_WORDS.test(r!)) ? name : undefined;
}

/** The other objects the Makefile of `file`'s folder builds ("paravirt" beside tsc.c in arch/x86/kernel/): names a subject may give that are not this file's. */
export async function siblingObjects(file: string, read: ReadFile): Promise<string[]> {
  const dir = file.split('/').slice(0, -1).join('/');
  const own = file.split('/').pop()!.replace(/\.[a-zA-Z]+$/, '');
  const makefile = (await read(`${dir}/Makefile`)) ?? (await read(`${dir}/Kbuild`)) ?? '';
  return [...new Set([...makefile.matchAll(/([A-Za-z0-9_-]+)\.o\b/g)].map((m) => m[1]!))].filter((o) => o !== own);
}
