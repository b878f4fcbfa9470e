// What 0-day's random configurations find at link time and a build of single objects never sees: a function a
// patch's lines call that is defined only in a file built under a symbol the driver's Kconfig entry neither depends
// on nor selects (devm_clk_hw_register and CONFIG_COMMON_CLK, __wmi_driver_register and CONFIG_ACPI_WMI), with no
// stub in its header for the other side. With that symbol off, the kernel does not link ("undefined reference").
import { configSymbolsFor, hasPrompt, type ReadText } from '../build/kbuild.js';
import type { KconfigIndex } from '../build/kconfig.js';
import { gitRaw } from '../tools/git.js';

/** A call a file's changed lines make (config-sides.ts `calls`): the name, its line, the symbols the line is under. */
export interface LineCall {
  name: string;
  line: number;
  guards: string[];
}

/**
 * The warnings of the calls each file's changed lines make: each one's exporter, the symbols that build it, and those
 * the file's own build way does not imply, as a finding at the calling line; one search of the tree's exports for all
 * the files (a range's), each file's warnings in order.
 */
export async function linkWarnings(root: string, tip: string, uses: { file: string; calls: LineCall[] }[], index: KconfigIndex, read: ReadText): Promise<string[][]> {
  const exporters = await exportersOf(root, tip, uses.flatMap((u) => u.calls.map((c) => c.name)));
  const out: string[][] = [];
  for (const { file, calls } of uses) out.push(await fileWarnings(root, tip, file, calls, exporters, index, read));
  return out;
}

async function fileWarnings(root: string, tip: string, file: string, calls: LineCall[], exporters: Map<string, string>, index: KconfigIndex, read: ReadText): Promise<string[]> {
  if (!calls.length) return [];
  const way = (await configSymbolsFor(file, read)) ?? [];
  if (!way.length) return [];
  const implied = new Set(way.flatMap((s) => [...index.implied(s)]));
  const out: string[] = [];
  for (const c of calls) {
    const from = exporters.get(c.name);
    if (!from || from === file) continue;
    const needs = (await configSymbolsFor(from, read)) ?? [];
    const unmet: string[] = [];
    // A call compiled only with the symbol on (`#ifdef CONFIG_I3C` around it) never meets it off.
    for (const r of needs) if (!implied.has(r) && !c.guards.includes(r) && (await changeable(root, tip, r, read))) unmet.push(r);
    if (!unmet.length) continue;
    const names = unmet.map((r) => `CONFIG_${r}`).join(' and ');
    out.push(`${file}:${c.line}: warning: ${c.name}() is defined in ${from}, built only with ${names}, which CONFIG_${way[0]} neither depends on nor selects: with ${unmet.map((r) => `CONFIG_${r}=n`).join(' ')} the kernel does not link (undefined reference to \`${c.name}') [Kconfig]`);
  }
  return out;
}

/**
 * The file that exports each name (`EXPORT_SYMBOL*(name)`), at `commit`: one pass over the tree's exports, all of them
 * (quicker than a pattern of the names: 2 s against 4 s per 200 names on 6.12).
 */
async function exportersOf(root: string, commit: string, names: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const wanted = new Set(names);
  if (!wanted.size) return out;
  // "<commit>:<file>:EXPORT_SYMBOL_GPL(name" per export.
  const hits = await gitRaw(root, ['grep', '-o', '-E', '^EXPORT_SYMBOL[A-Z_]*\\([A-Za-z_][A-Za-z0-9_]*', commit, '--', '*.c']).catch(() => '');
  for (const m of hits.matchAll(/^[^:\n]+:([^:\n]+):EXPORT_SYMBOL[A-Z_]*\(([A-Za-z_]\w*)$/gm)) if (wanted.has(m[2]!) && !out.has(m[2]!)) out.set(m[2]!, m[1]!);
  return out;
}

/** Whether a user's configuration can set `symbol` off: it has a prompt (`tristate "HID bus core support"`). */
async function changeable(root: string, commit: string, symbol: string, read: ReadText): Promise<boolean> {
  const hits = await gitRaw(root, ['grep', '-l', '-E', `^\\s*(menu)?config ${symbol}\\s*$`, commit, '--', '*Kconfig*']).catch(() => '');
  for (const h of hits.split('\n').filter(Boolean)) if (hasPrompt((await read(h.slice(commit.length + 1))) ?? '', symbol)) return true;
  return false;
}
