// Coccinelle's spatch, run read-only on a tree: a semantic patch in, the unified diff it makes out.
import fs from 'node:fs';
import path from 'node:path';
import { MissingToolError, RecipeError, ToolFailedError } from '../errors.js';
import { packageFor } from './packages.js';
import { runRaw } from './run.js';

/** What a semantic patch says of itself: its `///` description, `// Options:` and `virtual` rules. */
export interface SmplScript {
  /** The script as given ("tree:scripts/coccinelle/api/string_choices.cocci", or a file's path). */
  name: string;
  text: string;
  /** Its first paragraph of `///` lines: what the script does, in its author's words. */
  description?: string;
  /** Its `// Options:` line, split into arguments (coccicheck passes them to spatch). */
  options: string[];
  virtuals: string[];
  /** Its `// Confidence:` line (High, Moderate, Medium, Low), as its author rates the rules' results. */
  confidence?: string;
}

export function readSmpl(name: string, text: string): SmplScript {
  // The first paragraph of `///` lines: up to an empty `///` line or the first line that is not one.
  const lines = text.split('\n');
  const first = lines.findIndex((l) => /^\/\/\/\s*\S/.test(l));
  const paragraph: string[] = [];
  for (let i = first; first >= 0 && i < lines.length && /^\/\/\/\s*\S/.test(lines[i]!); i++) paragraph.push(lines[i]!.replace(/^\/\/\/\s*/, '').trim());
  const description = paragraph.join(' ') || undefined;
  const options = (/^\/\/[ \t]*Options:[ \t]*(.*)$/m.exec(text)?.[1] ?? '').split(/\s+/).filter(Boolean);
  const virtuals = [...text.matchAll(/^virtual\s+(.+)$/gm)].flatMap((m) => m[1]!.split(/[\s,]+/).filter(Boolean));
  const confidence = /^\/\/[ \t]*Confidence:[ \t]*(\w+)/m.exec(text)?.[1];
  return { name, text, ...(description ? { description } : {}), options, virtuals, ...(confidence ? { confidence } : {}) };
}

/**
 * spatch options that would write into the tree, read other files, or change where the diff's paths start: kseries
 * sets these itself (or never).
 */
const REFUSED = ['--in-place', '--out-place', '-o', '--dir', '--patch', '--sp-file', '--sp', '--tmp-dir', '--file-groups', '--iso-file', '--macro-file', '--macro-file-builtins', '--cocci-file', '--test', '--parse-cocci'];

export function checkSpatchOptions(options: readonly string[], where: string): void {
  for (const o of options) {
    const flag = o.split('=')[0]!;
    if (REFUSED.includes(flag)) throw new RecipeError(`${where}: spatch option ${o} is set by kseries or would write into the tree`, 'leave it out; kseries runs spatch with -D patch on the named paths and reads its diff');
    if (!/^-/.test(o) && !/^[\w.,=:+-]+$/.test(o)) throw new RecipeError(`${where}: ${JSON.stringify(o)} is no spatch option`, 'give options as spatch takes them, e.g. "--include-headers", "-D", "report"');
  }
}

export interface SpatchRun {
  /** The unified diff, paths relative to the tree's top (a/..., b/...). */
  diff: string;
  /** How many spatch processes ran (one per folder, one for the files named). */
  runs: number;
}

/**
 * Run `script` (a file on disk) over `paths` of the tree at `root` (folders and files, relative; none: the whole
 * tree) with `jobs` parallel jobs, and return its diff (`onDiff` sees each run's part as it ends). -D patch is given when the script has a `virtual patch` rule.
 * A script spatch refuses, or a run that fails, is a RecipeError naming the script and spatch's first error line.
 */
export async function runSpatch(root: string, script: SmplScript & { file: string }, paths: readonly string[], opts: { options?: readonly string[]; jobs: number; onDiff?: (diff: string) => void }): Promise<SpatchRun> {
  const options = [...script.options, ...(opts.options ?? [])];
  checkSpatchOptions(options, script.name);
  const base = [...(script.virtuals.includes('patch') ? ['-D', 'patch'] : []), '--sp-file', script.file, '--patch', '.', '--very-quiet', '-j', String(Math.max(1, opts.jobs)), ...options];
  const targets = paths.length ? [...paths] : ['.'];
  const dirs = targets.filter((p) => fs.statSync(path.join(root, p), { throwIfNoEntry: false })?.isDirectory());
  const files = targets.filter((p) => !dirs.includes(p));
  const runs = [...dirs.map((d) => ['--dir', d]), ...(files.length ? [files] : [])];
  const diffs: string[] = [];
  for (const args of runs) {
    const r = await runRaw('spatch', [...base, ...args], { cwd: root });
    if (r.code !== 0) throw spatchFailed(script, args, r.stderr || r.stdout);
    diffs.push(r.stdout);
    opts.onDiff?.(r.stdout);
  }
  return { diff: diffs.join(''), runs: runs.length };
}

/** spatch's own words, shortened to the line that says what is wrong and where. */
export function spatchFailed(script: SmplScript & { file: string }, args: string[], output: string): Error {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  const where = /File "([^"]+)", line (\d+)/.exec(output);
  const error = lines.find((l) => /error|not supported|does not exist|unknown|invalid/i.test(l)) ?? lines[0] ?? 'no output';
  const at = where ? ` (${where[1] === script.file ? script.name : where[1]}:${where[2]})` : '';
  if (/does not exist/.test(error)) return new RecipeError(`spatch ${script.name}: ${error.replace(/^ERROR:\s*/, '')}`, `check the paths given (${args.join(' ')})`);
  if (/No OCaml compiler found/.test(output)) return new MissingToolError(`spatch ${script.name}: its script:ocaml rules need the OCaml compiler, which is not installed`, `apt-get install ${packageFor('ocamlopt')}`);
  const line = where?.[1] === script.file ? `${script.name}:${where[2]}` : `${script.name}${at}`;
  return new ToolFailedError(`spatch failed on ${line}: ${error.replace(/^ERROR:\s*/, '')}`, `run spatch --parse-cocci ${script.file} to see the whole error`);
}
