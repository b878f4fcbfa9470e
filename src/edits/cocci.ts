// Semantic patches as edits: a script named by a recipe or by the user, and the unified diff spatch made of it, cut
// into the files it changes. Running spatch is the tree's business (series/generate.ts); this reads and cuts.
import fs from 'node:fs';
import path from 'node:path';
import { RecipeError } from '../errors.js';
import { checkTreePath } from '../tree/paths.js';
import { readSmpl, type SmplScript } from '../tools/spatch.js';

/** A script and where spatch finds it: a file on disk, or (`inTree`) a path of the tree at the series base. */
export type LocatedScript = SmplScript & { file: string; inTree: boolean };

/**
 * `tree:scripts/coccinelle/api/x.cocci` (read at the series base), an absolute path, or a path relative to `from`
 * (a recipe's folder, which it may not leave when `inside` is set).
 */
export async function locateScript(spec: string, from: string, readBase: (file: string) => Promise<string | undefined>, inside = false): Promise<LocatedScript> {
  if (spec.startsWith('tree:')) {
    const file = checkTreePath(spec.slice(5), `semantic patch ${spec}`);
    const text = await readBase(file);
    if (text === undefined) throw new RecipeError(`semantic patch ${spec}: the tree has no ${file}`, 'ls scripts/coccinelle/ in the tree for the scripts it has');
    return { ...readSmpl(spec, text), file, inTree: true };
  }
  const file = path.resolve(from, spec);
  if (inside && !path.isAbsolute(spec) && !file.startsWith(from + path.sep)) throw new RecipeError(`${spec}: script path leaves the recipe folder`, 'name a file inside the recipe, or tree:<path> for one of the tree');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new RecipeError(`semantic patch ${spec}: cannot read ${file}`, 'give tree:scripts/coccinelle/<dir>/<name>.cocci, or the path of your own .cocci file');
  }
  return { ...readSmpl(spec, text), file, inTree: false };
}

/**
 * The folders and files a cocci run covers (comma lists: "drivers/spi,drivers/gpio") and its extra spatch options
 * (space-separated), read one way wherever they come from, so the same request is the same run (generate memoises).
 */
export function cocciRequest(pathLists: string[], optionLists: string[], where: string): { paths: string[]; options: string[] } {
  return {
    paths: pathLists.flatMap((l) => l.split(',')).map((p) => p.trim()).filter(Boolean).map((p) => checkTreePath(p, where)),
    options: optionLists.flatMap((l) => l.split(/\s+/)).filter(Boolean),
  };
}

/** One file of a diff: its path, its text (headers and hunks), and how many separate changes it makes. */
export interface DiffFile {
  file: string;
  text: string;
  /** Runs of changed lines: a change that rewrites three lines in one place is one site. */
  sites: number;
}

/** A unified diff (spatch's `diff -u -p a/x b/x` blocks, or git's) cut per file, in its order. */
export function diffFiles(diff: string): DiffFile[] {
  const out: { lines: string[]; hunks: boolean }[] = [];
  const lines = diff.split('\n');
  let current: { lines: string[]; hunks: boolean } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const starts = l.startsWith('diff ') || (l.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ') && (!current || current.hunks));
    if (starts) out.push((current = { lines: [], hunks: false }));
    if (!current) continue;
    if (l.startsWith('@@')) current.hunks = true;
    current.lines.push(l);
  }
  return out.map(({ lines: ls }) => {
    const name = ls.find((l) => l.startsWith('+++ '))?.slice(4).replace(/\t.*$/, '') ?? '';
    const file = name === '/dev/null' ? (ls.find((l) => l.startsWith('--- '))?.slice(4).replace(/\t.*$/, '') ?? '') : name;
    let sites = 0;
    let inRun = false;
    for (const l of ls) {
      const changed = /^[+-]/.test(l) && !/^(\+\+\+|---) /.test(l);
      if (changed && !inRun) sites++;
      inRun = changed;
    }
    return { file: file.replace(/^[ab]\//, ''), text: `${ls.join('\n').replace(/\n*$/, '')}\n`, sites };
  });
}
