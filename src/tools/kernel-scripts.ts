// The tree's own scripts/checkpatch.pl and scripts/get_maintainer.pl, run from the tree top.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keptResult } from '../kept.js';
import { coveringEntries, pathChanges } from '../mail/covered.js';
import { entriesPerFile, parseSections, type MaintainersEntry } from '../subsystems/route.js';
import { cacheDir } from '../tree/paths.js';
import { run, runRaw, type RunOptions, type RunResult } from './run.js';
import { gitTry } from './git.js';
import { onPath } from './which.js';

/**
 * The one place checkpatch's flags are defined. Not `--mailback`: 6.12's checkpatch.pl exits on it before the
 * Signed-off-by check, so a patch whose only fault is a missing sign-off would read as clean.
 */
export const CHECKPATCH_FLAGS = ['--terse', '--show-types', '--no-summary', '--color=never'] as const;

export type Level = 'error' | 'warning' | 'check';

export interface CheckpatchFinding {
  level: Level;
  type: string;
  /** Source file the finding is about, when the patch line belongs to a file's hunk. */
  file: string | undefined;
  /** Line in that source file (after the patch), or in the patch when no file applies. */
  line: number;
  message: string;
  /** Why the finding is about the tree checkpatch ran in, not the patch (never mailed to the author). */
  fromTree?: string;
}

export interface CheckpatchResult {
  errors: number;
  warnings: number;
  checks: number;
  findings: CheckpatchFinding[];
  /** Checks of checkpatch's that did not run on this patch, with why (its SPDX check without its Python modules). */
  notRun?: string[];
}

/** Run checkpatch on one patch (mail text on stdin). Exit code 1 means "found something", not failure. */
export async function runCheckpatch(treeRoot: string, patch: string, opts: { strict?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<CheckpatchResult> {
  const args = [...CHECKPATCH_FLAGS, ...(opts.strict ? ['--strict'] : []), '-'];
  const res = await runTreeScript(treeRoot, 'scripts/checkpatch.pl', args, { input: patch, okCodes: [0, 1], env: await spdxPath(opts.env ?? process.env) });
  const parsed = parseCheckpatch(res.stdout, patch);
  const spdx = spdxFailure(res.stderr);
  return spdx ? { ...parsed, notRun: [spdx] } : parsed;
}

/**
 * checkpatch asks scripts/spdxcheck.py whether a new file's license is one of LICENSES/; when python3 cannot import
 * its modules (ply, git) the script dies on stderr and checkpatch takes its silence for a yes. Why it did not run.
 */
export function spdxFailure(stderr: string): string | undefined {
  if (!/spdxcheck\.py/.test(stderr)) return undefined;
  const missing = [...stderr.matchAll(/No module named '([\w.]+)'/g)].map((m) => m[1]!);
  const last = stderr.trim().split('\n').pop()!.trim();
  return `SPDX license check (scripts/spdxcheck.py) did not run: ${missing.length ? `python3 has no module ${missing.join(', ')} (apt-get install python3-ply python3-git)` : last}`;
}

/** What scripts/spdxcheck.py imports. */
const SPDX_MODULES = ['ply', 'git'];
/** The python3 the user's PATH names, and Debian's, which spdxPath puts first when only it has the modules. */
const PATH_PYTHON = 'python3';
const DEBIAN_PYTHON = '/usr/bin/python3';
let spdxEnv: Promise<Record<string, string> | undefined> | undefined;

async function pythonImports(python: string, modules: string[], env: NodeJS.ProcessEnv): Promise<boolean> {
  return (await runRaw(python, ['-c', `import ${modules.join(', ')}`], { cwd: '/', env: { PATH: env.PATH } }).catch(() => undefined))?.code === 0;
}

/** Whether checkpatch's SPDX check can import `modules` (doctor asks of each one): with PATH's python3, or Debian's. */
export async function spdxCanImport(modules: string[], env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  return (await pythonImports(PATH_PYTHON, modules, env)) || (await pythonImports(DEBIAN_PYTHON, modules, env));
}

/**
 * The PATH checkpatch runs with: the user's, unless its python3 (a pyenv or venv one, say) lacks what spdxcheck.py
 * imports and Debian's /usr/bin/python3 has it; then a folder whose python3 is Debian's goes first.
 */
function spdxPath(env: NodeJS.ProcessEnv): Promise<Record<string, string> | undefined> {
  return (spdxEnv ??= (async () => {
    if ((await pythonImports(PATH_PYTHON, SPDX_MODULES, env)) || !(await pythonImports(DEBIAN_PYTHON, SPDX_MODULES, env))) return undefined;
    const shim = path.join(cacheDir(env), 'python3-debian');
    fs.mkdirSync(shim, { recursive: true });
    if (!fs.existsSync(path.join(shim, 'python3'))) fs.symlinkSync(DEBIAN_PYTHON, path.join(shim, 'python3'));
    return { PATH: `${shim}:${env.PATH ?? ''}` };
  })());
}

export function parseCheckpatch(output: string, patch: string): CheckpatchResult {
  const where = patchLineMap(patch);
  const findings: CheckpatchFinding[] = [];
  for (const line of output.split('\n')) {
    const m = /^.*?:(\d+): (ERROR|WARNING|CHECK):([A-Z0-9_]+): (.*)$/.exec(line);
    if (!m) continue;
    const patchLine = Number(m[1]);
    const at = where.get(patchLine);
    findings.push({
      level: m[2]!.toLowerCase() as Level,
      type: m[3]!,
      file: at?.file,
      line: at?.line ?? patchLine,
      message: m[4]!.trim(),
    });
  }
  return counted(findings);
}

function counted(findings: CheckpatchFinding[]): CheckpatchResult {
  const count = (l: Level) => findings.filter((f) => f.level === l && !f.fromTree).length;
  return { errors: count('error'), warnings: count('warning'), checks: count('check'), findings };
}

/** Checkpatch types that look commits up in the tree's history: on a tree without history they say nothing of the patch. */
const NEEDS_HISTORY = new Set(['UNKNOWN_COMMIT_ID']);

/** The result with the findings a tree without history causes labelled as the tree's, and not counted. */
export function withoutHistory(r: CheckpatchResult): CheckpatchResult {
  return counted(r.findings.map((f) => (NEEDS_HISTORY.has(f.type) ? { ...f, fromTree: 'the tree has no git history to look the commit up in' } : f)));
}

/**
 * The result with a FILE_PATH_CHANGES warning ("does MAINTAINERS need updating?") labelled the tree's, and not
 * counted, when MAINTAINERS already covers every file the mail adds, deletes or renames.
 */
export function withCoveredPaths(r: CheckpatchResult, mail: string, maintainers: string): CheckpatchResult {
  if (!r.findings.some((f) => f.type === 'FILE_PATH_CHANGES')) return r;
  const files = pathChanges(mail).map((file) => ({ file, entries: coveringEntries(maintainers, file) }));
  if (files.length === 0 || files.some((f) => f.entries.length === 0)) return r;
  const why = `MAINTAINERS covers it already: ${files.map((f) => `${f.file} (${f.entries.join(', ')})`).join(', ')}`;
  return counted(r.findings.map((f) => (f.type === 'FILE_PATH_CHANGES' ? { ...f, fromTree: why } : f)));
}

/** Patch line number (1-based) → source file and new-side line, for lines inside hunks. */
export function patchLineMap(patch: string): Map<number, { file: string; line: number }> {
  const map = new Map<number, { file: string; line: number }>();
  let file: string | undefined;
  let newLine = 0;
  patch.split('\n').forEach((text, i) => {
    const plus = /^\+\+\+ (?:b\/)?(.*)$/.exec(text);
    if (plus) {
      file = plus[1] === '/dev/null' ? undefined : plus[1];
      return;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      newLine = Number(hunk[1]);
      return;
    }
    if (!file) return;
    if (text.startsWith('+') || text.startsWith(' ')) {
      map.set(i + 1, { file, line: newLine });
      newLine++;
    } else if (text.startsWith('-')) map.set(i + 1, { file, line: newLine });
  });
  return map;
}

export interface Recipients {
  to: string[];
  cc: string[];
  /** The MAINTAINERS entries get_maintainer.pl named each address for ("maintainer:NETWORKING DRIVERS" gives the entry). */
  entries?: Record<string, string[]>;
}

/** get_maintainer.pl for one patch file: maintainers (and supporters) To, lists and reviewers Cc. */
export async function runGetMaintainer(treeRoot: string, patchFile: string, opts: { useGit: boolean }): Promise<Recipients> {
  const gitArgs = opts.useGit ? [] : ['--nogit', '--nogit-fallback'];
  const res = await runTreeScript(treeRoot, 'scripts/get_maintainer.pl', [...gitArgs, patchFile], { files: [patchFile] });
  return parseGetMaintainer(res.stdout);
}

/** The maintainers get_maintainer.pl names for one file of the tree (its To: list). */
export async function runGetMaintainerOfFile(treeRoot: string, file: string, opts: { useGit: boolean }): Promise<string[]> {
  const gitArgs = opts.useGit ? [] : ['--nogit', '--nogit-fallback'];
  const res = await runTreeScript(treeRoot, 'scripts/get_maintainer.pl', [...gitArgs, '--no-l', '--no-r', '-f', file]);
  return parseGetMaintainer(res.stdout).to;
}

/**
 * The MAINTAINERS entries that cover each of `files`, the most specific first, as get_maintainer.pl --sections
 * prints them, in one run of the script (it reads MAINTAINERS once: per file, a run costs 0.22 s, a file in a run of
 * many 0.05 s).
 */
export async function runGetMaintainerSections(treeRoot: string, ...files: string[]): Promise<string> {
  const args = files.flatMap((f) => ['-f', f]);
  return (await runTreeScript(treeRoot, 'scripts/get_maintainer.pl', ['--nogit', '--nogit-fallback', '--sections', ...args])).stdout;
}

/**
 * The entries of each file from one run, or (an output that does not split per file) from a run per file. A file
 * the checkout does not have (a patch adds it) is asked by its nearest folder that exists: get_maintainer.pl -f
 * refuses a missing file, and the caller matches the entries' patterns against the file's own path.
 */
export async function sectionsPerFile(treeRoot: string, files: string[]): Promise<MaintainersEntry[][]> {
  const asked = files.map((f) => {
    let p = f;
    while (p.includes('/') && !fs.existsSync(path.join(treeRoot, p))) p = path.posix.dirname(p);
    return p;
  });
  const batch = asked.length > 1 ? entriesPerFile(await runGetMaintainerSections(treeRoot, ...asked), asked.length) : undefined;
  return batch ?? Promise.all(asked.map(async (f) => parseSections(await runGetMaintainerSections(treeRoot, f))));
}

/** The recent authors and committers of a file (get_maintainer.pl --git), for a file no entry but THE REST covers. */
export async function runGetMaintainerGit(treeRoot: string, file: string): Promise<string[]> {
  const res = await runTreeScript(treeRoot, 'scripts/get_maintainer.pl', ['--git', '--no-m', '--no-r', '--no-l', '--no-rolestats', '-f', file]);
  return res.stdout.split('\n').map((l) => l.trim()).filter((l) => l.includes('@'));
}

export function parseGetMaintainer(output: string): Recipients {
  const to: string[] = [];
  const cc: string[] = [];
  const entries: Record<string, string[]> = {};
  for (const line of output.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const m = /^(.*?)\s+\(([^()]*(?:\([^()]*\)[^()]*)*)\)$/.exec(line);
    const address = m ? m[1]! : line;
    const role = m ? m[2]! : '';
    if (!address.includes('@')) continue;
    (/^(maintainer|supporter|odd fixer|chief penguin)/i.test(role) ? to : cc).push(address);
    // "supporter:ARM/Microchip (AT91) SoC support" names an entry; "open list" and commit statistics name none.
    for (const part of role.split(/,(?=[a-z_ ]+:)/)) {
      const named = /^(?:maintainer|supporter|odd fixer|reviewer|open list|moderated list|subscriber list|list):(.+)$/i.exec(part)?.[1];
      entries[address] = [...(entries[address] ?? []), ...(named ? [named.trim()] : [''])];
    }
  }
  return { to: unique(to), cc: unique(cc).filter((a) => !to.includes(a)), entries };
}

export function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}

/**
 * A digest of a patch's text, with each mail's `From <commit> Mon Sep 17 00:00:00 2001` line and `Date:`
 * header left out (the lines stay, so line numbers do not move): the same patch committed again (review's `git am`, a
 * test's commit) is another commit of another date, and neither script reads those. A body line is never left out.
 */
function mailDigest(text: string | Buffer): string {
  const headers = /^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001\n(?:.+\n)*/gm;
  const stable = text.toString().replace(headers, (block) => block.replace(/^From [0-9a-f]{40} /, 'From ').replace(/^Date: .*$/m, 'Date:'));
  return createHash('sha1').update(stable).digest('hex');
}

/** What each script reads besides its arguments and input, from the tree top (or, with "~/", the home folder). */
const SCRIPT_READS: Record<string, string[]> = {
  'scripts/checkpatch.pl': ['scripts/spelling.txt', 'scripts/const_structs.checkpatch', '.checkpatch.conf', '~/.checkpatch.conf'],
  'scripts/get_maintainer.pl': ['MAINTAINERS', '.mailmap', '.get_maintainer.conf', '.get_maintainer.ignore', '~/.get_maintainer.conf'],
};

/**
 * `perl <script> args...` of the tree, kept (keptResult, kind "scripts") by what decides its output: the tree's commit
 * (what `--git` and checkpatch's commit-id lookups read), the text of the script and of the files it reads
 * (SCRIPT_READS: a checkout may differ from its commit), its arguments, its input, and the text of `files` (a patch
 * given by its temporary name). The same question asked again (check, then emit, then review of the emitted mails; a
 * second `npm start`; a test suite run twice) is answered without starting perl, which costs 0.5 s for
 * get_maintainer.pl and 1.2 s for checkpatch.pl on the 6.12 tree here. `KSERIES_SCRIPT_CACHE=0` runs it every time.
 */
export async function runTreeScript(treeRoot: string, script: string, args: readonly string[], opts: Pick<RunOptions, 'input' | 'okCodes' | 'env'> & { files?: string[] } = {}): Promise<RunResult> {
  const exec = () => run('perl', [script, ...args], { cwd: treeRoot, ...opts });
  // Without perl the run says so (MissingToolError), kept answers or not.
  if (process.env.KSERIES_SCRIPT_CACHE === '0' || !onPath('perl', { ...process.env, ...opts.env })) return exec();
  const head = (await gitTry(treeRoot, ['rev-parse', '--verify', '--quiet', 'HEAD']))?.trim();
  // The tree's files by their text; a patch (a file argument, the input) by what is the patch's own (mailDigest).
  const digest = (file: string, of = (text: Buffer) => createHash('sha1').update(text).digest('hex')) => (fs.existsSync(file) ? of(fs.readFileSync(file)) : '-');
  const inTree = (f: string) => (f.startsWith('~/') ? path.join(os.homedir(), f.slice(2)) : path.join(treeRoot, f));
  const key = {
    head,
    script: digest(inTree(script)),
    reads: (SCRIPT_READS[script] ?? []).map((f) => digest(inTree(f))),
    args: args.map((a) => (opts.files?.includes(a) ? `file:${digest(path.resolve(treeRoot, a), mailDigest)}` : a)),
    input: opts.input === undefined ? undefined : mailDigest(opts.input),
    path: opts.env?.PATH,
  };
  // A failure (a script that died) is thrown by run() and so never kept.
  return (await keptResult('scripts', key, exec, () => true)).value;
}
