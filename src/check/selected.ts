// The objects a patch brings into the build without touching them: a `select HWMON_FP` it adds to a Kconfig entry makes
// hwmon-fp.c compile for the first time, though an earlier patch of the series wrote it. Under a promptless symbol
// nothing selected until then, that file never built before this patch; this patch is the first whose build shows its
// errors (the robot's `__udivdi3` in hwmon-fp.c answered the `select`, not the file's own patch).
import path from 'node:path';
import { gitRaw } from '../tools/git.js';

/** An object a patch's new select brings in, with the lines the range changed in its source until this patch. */
export interface BroughtIn {
  object: string;
  source: string;
  /** The symbol selected and the Kconfig file of the select. */
  symbol: string;
  kconfig: string;
}

/** The symbols a commit's Kconfig changes newly select, each with its Kconfig file. */
export function addedSelects(diff: string): { symbol: string; kconfig: string }[] {
  const out: { symbol: string; kconfig: string }[] = [];
  let file = '';
  for (const line of diff.split('\n')) {
    const to = /^\+\+\+ b\/(.+)$/.exec(line);
    if (to) file = to[1]!;
    const m = /^\+\s*select\s+([A-Za-z0-9_]+)(?:\s|$)/.exec(line);
    if (m && /(^|\/)Kconfig[^/]*$/.test(file) && !out.some((s) => s.symbol === m[1])) out.push({ symbol: m[1]!, kconfig: file });
  }
  return out;
}

/** The objects a Makefile line builds under `CONFIG_<symbol>` (`obj-$(CONFIG_X) += a.o b/`): its .o files, in its folder. */
export function objectsUnder(makefile: string, text: string, symbol: string): string[] {
  const dir = path.posix.dirname(makefile);
  const out: string[] = [];
  const joined = text.replace(/\\\n/g, ' ');
  const line = new RegExp(`^obj-\\$\\(CONFIG_${symbol}\\)\\s*[+:]?=(.*)$`, 'gm');
  for (const m of joined.matchAll(line)) for (const word of m[1]!.split(/\s+/)) if (word.endsWith('.o')) out.push(path.posix.join(dir, word));
  return out;
}

/**
 * The objects a commit's new selects bring into the build whose source the range (from `base`) adds or changes up to
 * this commit: the series' own code entering the build here. Code the series never touched (a `select REGMAP_I2C`'s
 * regmap-i2c.c) built before wherever its symbol was set; it is not this patch's to answer for.
 */
export async function broughtIn(root: string, base: string, sha: string): Promise<BroughtIn[]> {
  const diff = await gitRaw(root, ['diff', '--no-color', `${sha}^`, sha, '--', '*Kconfig*']).catch(() => '');
  const selects = addedSelects(diff);
  if (!selects.length) return [];
  const changed = new Set((await gitRaw(root, ['diff', '--name-only', '--diff-filter=AM', base, sha]).catch(() => '')).split('\n').filter(Boolean));
  const out: BroughtIn[] = [];
  for (const { symbol, kconfig } of selects) {
    const hits = await gitRaw(root, ['grep', '-l', '-F', `$(CONFIG_${symbol})`, sha, '--', '*Makefile', '*Kbuild']).catch(() => '');
    for (const makefile of hits.split('\n').filter(Boolean).map((l) => l.slice(sha.length + 1))) {
      const text = await gitRaw(root, ['show', `${sha}:${makefile}`]).catch(() => '');
      for (const object of objectsUnder(makefile, text, symbol)) {
        const source = [object.replace(/\.o$/, '.c'), object.replace(/\.o$/, '.S')].find((s) => changed.has(s));
        if (source) out.push({ object, source, symbol, kconfig });
      }
    }
  }
  return out;
}
