// Every git kseries runs goes through this module (a test pins it): simple-git for plain calls, run() where an
// environment, stdin, streaming or a result code is needed. Argument arrays, an explicit working directory, no shell.
import fs from 'node:fs';
import type { SimpleGit } from 'simple-git';
import { KseriesError, MissingToolError, ToolFailedError } from '../errors.js';
import type { Socket } from 'node:net';
import { run, runLines, runRaw, startProgram, type RunOptions, type RunResult } from './run.js';

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

/** The file's text at a commit, or undefined when it does not exist there (or is no file). */
export async function readAtCommit(cwd: string, commit: string, file: string): Promise<string | undefined> {
  return (await blobReader(cwd).read(`${commit}:${file}`))?.toString('utf8');
}

/** Many files' texts at one commit; missing files are left out. */
export async function readManyAtCommit(cwd: string, commit: string, files: string[]): Promise<Map<string, string>> {
  const reader = blobReader(cwd);
  const blobs = await Promise.all(files.map((f) => reader.read(`${commit}:${f}`)));
  return new Map(files.flatMap((f, i) => (blobs[i] ? [[f, blobs[i].toString('utf8')] as const] : [])));
}

const readers = new Map<string, BlobReader>();

function blobReader(cwd: string): BlobReader {
  let reader = readers.get(cwd);
  if (!reader) readers.set(cwd, (reader = new BlobReader(cwd, () => readers.delete(cwd))));
  return reader;
}

/**
 * One `git cat-file --batch` per repository, kept while kseries runs: a walk of Makefiles and Kconfig files reads
 * hundreds of files at a commit, and a git process for each took seconds a walk. Requests are answered in order.
 */
class BlobReader {
  private readonly child;
  private readonly waiting: { resolve: (blob: Buffer | undefined) => void; reject: (e: Error) => void }[] = [];
  private pending: Buffer = Buffer.alloc(0);
  private failed?: Error;

  constructor(cwd: string, onEnd: () => void) {
    const end = (e: Error) => {
      this.failed ??= e;
      onEnd();
      for (const w of this.waiting.splice(0)) w.reject(this.failed);
    };
    const exited = () => end(new ToolFailedError('git cat-file --batch exited', 'check the repository with git fsck'));
    this.child = startProgram('git', [...CONFIG, 'cat-file', '--batch'], { cwd, onError: end, onExit: exited });
    this.child.stdout.on('data', (b: Buffer) => this.take(b));
    this.hold(false);
  }

  /** The object `spec` names (`<commit>:<path>`), when it is a blob; undefined when missing or not a file. */
  read(spec: string): Promise<Buffer | undefined> {
    if (spec.includes('\n')) return Promise.resolve(undefined);
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.hold(true);
      this.child.stdin.write(`${spec}\n`);
    });
  }

  /** Keep Node running while an answer is awaited, and only then. */
  private hold(on: boolean): void {
    for (const s of [this.child.stdin, this.child.stdout] as unknown as Socket[]) {
      if (on) s.ref?.();
      else s.unref?.();
    }
  }

  /** Answers: `<sha> <type> <size>` and the content, or `<spec> missing` (or ambiguous). */
  private take(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    for (;;) {
      const eol = this.pending.indexOf(10);
      if (eol < 0) break;
      const header = /^[0-9a-f]+ (\w+) (\d+)$/.exec(this.pending.subarray(0, eol).toString('utf8'));
      const size = header ? Number(header[2]) : -1;
      if (header && this.pending.length < eol + size + 2) break;
      const blob = header?.[1] === 'blob' ? Buffer.from(this.pending.subarray(eol + 1, eol + 1 + size)) : undefined;
      this.pending = this.pending.subarray(header ? eol + size + 2 : eol + 1);
      this.waiting.shift()?.resolve(blob);
    }
    if (this.waiting.length === 0) this.hold(false);
  }
}

/**
 * Split an mbox (mboxrd `>From ` unescaped) or a Maildir into one file per message, as `git am` itself does, in
 * `outDir`; returns the files in order. CRs of CRLF lines are dropped. Exit 2-worthy input shows as a ToolFailedError.
 */
export async function mailsplit(input: string, outDir: string): Promise<string[]> {
  const n = Number((await gitRun(outDir, ['mailsplit', '--mboxrd', '-b', `-o${outDir}`, input])).stdout.trim());
  return Array.from({ length: n }, (_, i) => `${outDir}/${String(i + 1).padStart(4, '0')}`);
}

/** One commit to make without a work tree: its files' new text (undefined: deleted) and its message. */
export interface TreeCommit {
  changes: { file: string; after: string | undefined }[];
  message: string;
  /** GIT_AUTHOR_* and, where git has no identity configured, GIT_COMMITTER_*. */
  env: Record<string, string>;
}

/**
 * Commit each of `commits` on the one before, the first on `parent`, without checking anything out: blobs, a
 * temporary index read from the parent's tree, write-tree, commit-tree. Only objects are written (no work tree, no
 * index of the repository's, no ref), so an interrupted run leaves nothing half done. Returns the commits' ids.
 */
export async function commitChain(root: string, parent: string, commits: TreeCommit[], scratch: string): Promise<string[]> {
  const stamp = `${process.pid}-${Date.now()}`;
  const index = `${scratch}/index-${stamp}`;
  const blobs = `${scratch}/blobs-${stamp}`;
  const withIndex = { GIT_INDEX_FILE: index };
  const ids: string[] = [];
  fs.mkdirSync(blobs, { recursive: true });
  try {
    fs.copyFileSync(await indexOf(root, parent, scratch), index);
    // Every file's mode in the base, and every new text's blob: one git each for the whole chain, not one per file.
    const changes = commits.flatMap((c) => c.changes);
    const files = [...new Set(changes.map((x) => x.file))];
    const modes = new Map(
      (await gitRun(root, ['ls-files', '--stage', '-z', '--', ...files], { env: withIndex })).stdout
        .split('\0')
        .filter(Boolean)
        .map((l) => [l.slice(l.indexOf('\t') + 1), l.split(' ')[0]!]),
    );
    const written = changes.filter((x) => x.after !== undefined);
    written.forEach((x, i) => fs.writeFileSync(`${blobs}/${i}`, x.after!));
    const hashes = (await gitRun(root, ['hash-object', '-w', '--no-filters', '--stdin-paths'], { input: written.map((_, i) => `${blobs}/${i}\n`).join('') })).stdout.trim().split('\n');
    const blobOf = new Map(written.map((x, i) => [x, hashes[i]!]));
    let head = parent;
    for (const c of commits) {
      const entries = c.changes.map((x) => (x.after === undefined ? `0 ${'0'.repeat(40)}\t${x.file}` : `${modes.get(x.file) ?? '100644'} ${blobOf.get(x)!}\t${x.file}`));
      await gitRun(root, ['update-index', '--index-info'], { env: withIndex, input: `${entries.join('\n')}\n` });
      const tree = (await gitRun(root, ['write-tree'], { env: withIndex })).stdout.trim();
      head = (await gitRun(root, ['commit-tree', tree, '-p', head], { env: c.env, input: cleanMessage(c.message) })).stdout.trim();
      ids.push(head);
    }
    return ids;
  } finally {
    fs.rmSync(index, { force: true });
    fs.rmSync(blobs, { recursive: true, force: true });
  }
}

/**
 * An index of `commit`'s tree, kept in `scratch` for the next chain on the same base (a split recipe commits a series
 * per tree on one base: read-tree of 80k entries once, a copy of the file for each). Only the newest base is kept.
 */
async function indexOf(root: string, commit: string, scratch: string): Promise<string> {
  const kept = `${scratch}/index-of-${commit}`;
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) throw new Error(`commitChain: ${commit} is no commit id (callers resolve the base first)`);
  if (fs.existsSync(kept)) return kept;
  for (const old of fs.readdirSync(scratch).filter((f) => f.startsWith('index-of-'))) fs.rmSync(`${scratch}/${old}`, { force: true });
  const partial = `${kept}.${process.pid}`;
  await gitRun(root, ['read-tree', commit], { env: { GIT_INDEX_FILE: partial } });
  fs.renameSync(partial, kept);
  return kept;
}

/** A message as `git commit --cleanup=whitespace` leaves it: no trailing spaces, no runs of blank lines, one final newline. */
export function cleanMessage(message: string): string {
  return `${message
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}
