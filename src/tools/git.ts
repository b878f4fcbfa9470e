// Every git kseries runs goes through this module (a test pins it): simple-git for plain calls, run() where an
// environment, stdin, streaming or a result code is needed. Argument arrays, an explicit working directory, no shell.
import type { SimpleGit } from 'simple-git';
import { KseriesError, MissingToolError, ToolFailedError } from '../errors.js';
import { run, runBytes, runLines, runRaw, type RunOptions, type RunResult } from './run.js';

const CONFIG = ['-c', 'core.quotepath=off'];

/** `git args...` with run()'s contract: options (env, input, okCodes) as given; a bad exit throws. */
export function gitRun(cwd: string, args: string[], opts: Omit<RunOptions, 'cwd'> = {}): Promise<RunResult> {
  return run('git', [...CONFIG, ...args], { ...opts, cwd });
}

/** Like gitRun, but every exit code is returned. */
export function gitRunRaw(cwd: string, args: string[], opts: Omit<RunOptions, 'cwd'> = {}): Promise<RunResult> {
  return runRaw('git', [...CONFIG, ...args], { ...opts, cwd });
}

/** `git args...` with its stdout handed over line by line while it runs. */
export function gitLines(cwd: string, args: string[], onLine: (line: string) => void): Promise<{ code: number; stderr: string }> {
  return runLines('git', [...CONFIG, ...args], { cwd }, onLine);
}

/** simple-git, loaded on first use: `kseries scan` runs git grep only and need not load it. */
async function git(cwd: string): Promise<SimpleGit> {
  const { simpleGit } = await import('simple-git');
  return simpleGit({ baseDir: cwd, config: ['core.quotepath=off', 'advice.detachedHead=false'] });
}

/**
 * `git args...` in cwd, its stdout; failures become one-line errors. With extra environment variables (an identity
 * for a commit) it goes through run(): simple-git refuses any environment that holds GIT_CONFIG_GLOBAL or EDITOR.
 */
export async function gitRaw(cwd: string, args: string[], env?: Record<string, string>): Promise<string> {
  try {
    if (env) return (await gitRun(cwd, args, { env })).stdout;
    return await (await git(cwd)).raw(args);
  } catch (e) {
    if (e instanceof KseriesError) throw e;
    throw gitError(e, args);
  }
}

/** Like gitRaw, but undefined instead of an error (for probes such as "does this ref exist"). */
export async function gitTry(cwd: string, args: string[]): Promise<string | undefined> {
  try {
    return await (await git(cwd)).raw(args);
  } catch (e) {
    if (/ENOENT/.test(String(e))) throw gitError(e, args);
    return undefined;
  }
}

function gitError(e: unknown, args: string[]): Error {
  const msg = e instanceof Error ? e.message : String(e);
  if (/spawn git ENOENT|ENOENT/.test(msg) && !/fatal/.test(msg)) {
    return new MissingToolError('git is not installed', 'apt-get install git  (or run: kseries doctor --install)');
  }
  const line = msg.split('\n').map((l) => l.trim()).filter(Boolean).find((l) => /^(fatal|error):/.test(l)) ?? msg.split('\n')[0];
  return new ToolFailedError(`git ${args[0]} failed: ${line}`, 'see `git status` in the kseries worktree, or rerun with --debug');
}

/** The file's text at a commit, or undefined when it does not exist there. */
export async function readAtCommit(cwd: string, commit: string, file: string): Promise<string | undefined> {
  return gitTry(cwd, ['show', `${commit}:${file}`]);
}

/** Many files' texts at one commit through one `git cat-file --batch`; missing files are left out. */
export async function readManyAtCommit(cwd: string, commit: string, files: string[]): Promise<Map<string, string>> {
  const res = await runBytes('git', [...CONFIG, 'cat-file', '--batch'], { cwd, input: files.map((f) => `${commit}:${f}\n`).join('') });
  const texts = new Map<string, string>();
  let pos = 0;
  for (const file of files) {
    const eol = res.stdout.indexOf(10, pos);
    if (eol < 0) break;
    const header = res.stdout.subarray(pos, eol).toString('utf8');
    pos = eol + 1;
    const size = /^[0-9a-f]+ blob (\d+)$/.exec(header)?.[1];
    if (size === undefined) continue; // "<spec> missing"
    texts.set(file, res.stdout.subarray(pos, pos + Number(size)).toString('utf8'));
    pos += Number(size) + 1;
  }
  return texts;
}

/**
 * Split an mbox (mboxrd `>From ` unescaped) or a Maildir into one file per message, as `git am` itself does, in
 * `outDir`; returns the files in order. CRs of CRLF lines are dropped. Exit 2-worthy input shows as a ToolFailedError.
 */
export async function mailsplit(input: string, outDir: string): Promise<string[]> {
  const n = Number((await gitRun(outDir, ['mailsplit', '--mboxrd', '-b', `-o${outDir}`, input])).stdout.trim());
  return Array.from({ length: n }, (_, i) => `${outDir}/${String(i + 1).padStart(4, '0')}`);
}
