// Every git kseries runs goes through this module (a test pins it): simple-git for plain calls, run() where an
// environment, stdin, streaming or a result code is needed. Argument arrays, an explicit working directory, no shell.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SimpleGit } from 'simple-git';
import { KseriesError, MissingToolError, ToolFailedError } from '../errors.js';
import type { Socket } from 'node:net';
import { run, runBytes, runLines, runPipeline, runRaw, startProgram, type RunOptions, type RunResult } from './run.js';

/**
 * Before every subcommand. `--no-optional-locks`: a `git diff` or `git status` in the user's checkout would otherwise
 * refresh and rewrite its index when stat data is stale, and kseries never changes the user's index.
 */
const CONFIG = ['--no-optional-locks', '-c', 'core.quotepath=off'];

/**
 * Porcelain that refreshes the index it reads: `git diff` and `git status` in a checkout write the index back when
 * its stat data is stale, `--no-optional-locks` or not (git 2.39's diff does), and kseries never changes the user's
 * index. They read a private copy of it instead.
 */
const REFRESHING = new Set(['diff', 'status']);

async function withPrivateIndex<T>(cwd: string, args: string[], env: RunOptions['env'], fn: (env: RunOptions['env']) => Promise<T>): Promise<T> {
  if (!REFRESHING.has(args[0] ?? '') || env?.GIT_INDEX_FILE) return fn(env);
  const where = await runRaw('git', ['rev-parse', '--git-path', 'index'], { cwd });
  const index = path.resolve(cwd, where.stdout.trim());
  if (where.code !== 0 || !fs.existsSync(index)) return fn(env);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-index-'));
  try {
    fs.copyFileSync(index, path.join(dir, 'index'));
    return await fn({ ...env, GIT_INDEX_FILE: path.join(dir, 'index') });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `git args...` with run()'s contract: options (env, input, okCodes) as given; a bad exit throws. */
export function gitRun(cwd: string, args: string[], opts: Omit<RunOptions, 'cwd'> = {}): Promise<RunResult> {
  return withPrivateIndex(cwd, args, opts.env, (env) => run('git', [...CONFIG, ...args], { ...opts, ...(env ? { env } : {}), cwd }));
}

/** Like gitRun, but every exit code is returned. */
export function gitRunRaw(cwd: string, args: string[], opts: Omit<RunOptions, 'cwd'> = {}): Promise<RunResult> {
  return withPrivateIndex(cwd, args, opts.env, (env) => runRaw('git', [...CONFIG, ...args], { ...opts, ...(env ? { env } : {}), cwd }));
}

/** `git args...` with its stdout handed over line by line while it runs. */
export function gitLines(cwd: string, args: string[], onLine: (line: string) => void): Promise<{ code: number; stderr: string }> {
  return withPrivateIndex(cwd, args, undefined, (env) => runLines('git', [...CONFIG, ...args], { cwd, ...(env ? { env } : {}) }, onLine));
}

/**
 * `git cat-file --batch=<format>` in the git directory `gitDir`, streamed: its requests either `lines`, or the output
 * of `git log <log...>` piped straight into it (the two side by side, as a shell's `|`); its output to `onChunk` as
 * it arrives. A git that fails rejects with its message.
 */
export async function gitCatFileStream(gitDir: string, format: string, requests: { lines: string } | { log: string[] }, onChunk: (chunk: Buffer) => void): Promise<void> {
  const at = ['--git-dir', gitDir];
  const cat = { program: 'git', args: [...CONFIG, ...at, 'cat-file', `--batch=${format}`] };
  const stages = 'lines' in requests ? [cat] : [{ program: 'git', args: [...CONFIG, ...at, 'log', ...requests.log] }, cat];
  const results = await runPipeline(stages, { cwd: gitDir, ...('lines' in requests ? { input: requests.lines } : {}) }, onChunk);
  const failed = results.findIndex((r) => r.code !== 0);
  if (failed >= 0) throw new ToolFailedError(`git ${stages[failed]!.args[CONFIG.length + 2]} in ${gitDir} failed: ${results[failed]!.stderr.trim().split('\n').pop()}`, 'is it a git directory of a public-inbox archive?');
}

/** `git args...` in `cwd`, its stdout as bytes (a blob of any encoding, a stream of objects); a bad exit throws. */
export async function gitBytes(cwd: string, args: string[], input?: Buffer): Promise<Buffer> {
  const r = await runBytes('git', [...CONFIG, ...args], { cwd, ...(input ? { input } : {}) });
  if (r.code !== 0) throw new ToolFailedError(`git ${args[0]} failed: ${r.stderr.toString().trim().split('\n').pop()}`, `run it by hand in ${cwd}`);
  return r.stdout;
}

/**
 * `git patch-id --stable` of each diff, in order: the same change, whatever its line numbers, context or whitespace,
 * gets the same id (what git and b4 match patches by). A text without a diff gets none ('').
 */
export async function patchIds(cwd: string, diffs: string[]): Promise<string[]> {
  // Each as its own commit, so the ids come back labelled by position.
  const label = (i: number) => i.toString(16).padStart(40, '0');
  const input = diffs.map((d, i) => `commit ${label(i)}\n\n${d.endsWith('\n') ? d : `${d}\n`}`).join('');
  const out = (await gitRun(cwd, ['patch-id', '--stable'], { input })).stdout;
  const ids = new Map(out.split('\n').filter(Boolean).map((l) => [l.split(' ')[1]!, l.split(' ')[0]!]));
  return diffs.map((_, i) => ids.get(label(i)) ?? '');
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
    if (env || REFRESHING.has(args[0] ?? '')) return (await gitRun(cwd, args, env ? { env } : {})).stdout;
    return await (await git(cwd)).raw(['--no-optional-locks', ...args]);
  } catch (e) {
    if (e instanceof KseriesError) throw e;
    throw gitError(e, args);
  }
}

/** Like gitRaw, but undefined instead of an error (for probes such as "does this ref exist"). */
export async function gitTry(cwd: string, args: string[]): Promise<string | undefined> {
  try {
    if (REFRESHING.has(args[0] ?? '')) return (await gitRun(cwd, args)).stdout;
    return await (await git(cwd)).raw(['--no-optional-locks', ...args]);
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

interface GitObject {
  id: string;
  type: string;
  data: Buffer;
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
  private readonly waiting: { resolve: (object: GitObject | undefined) => void; reject: (e: Error) => void }[] = [];
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
  async read(spec: string): Promise<Buffer | undefined> {
    const object = await this.object(spec);
    return object?.type === 'blob' ? object.data : undefined;
  }

  /** The object `spec` names, of any type; undefined when missing. */
  object(spec: string): Promise<GitObject | undefined> {
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
      const header = /^([0-9a-f]+) (\w+) (\d+)$/.exec(this.pending.subarray(0, eol).toString('utf8'));
      const size = header ? Number(header[3]) : -1;
      if (header && this.pending.length < eol + size + 2) break;
      const object = header ? { id: header[1]!, type: header[2]!, data: Buffer.from(this.pending.subarray(eol + 1, eol + 1 + size)) } : undefined;
      this.pending = this.pending.subarray(header ? eol + size + 2 : eol + 1);
      this.waiting.shift()?.resolve(object);
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
 * Commit each of `commits` on the one before, the first on `parent`, without checking anything out: blobs, then for
 * each commit the trees on the paths it changes (git mktree; every other tree is the parent's), then commit-tree.
 * Only objects are written (no work tree, no index, no ref), so an interrupted run leaves nothing half done. Returns
 * the commits' ids.
 */
export async function commitChain(root: string, parent: string, commits: TreeCommit[], scratch: string): Promise<string[]> {
  fs.mkdirSync(scratch, { recursive: true });
  const blobs = fs.mkdtempSync(`${scratch}/blobs-`);
  try {
    // Every new text's blob: one git for the whole chain, not one per file.
    const written = commits.flatMap((c) => c.changes).filter((x) => x.after !== undefined);
    written.forEach((x, i) => fs.writeFileSync(`${blobs}/${i}`, x.after!));
    const hashes = (await gitRun(root, ['hash-object', '-w', '--no-filters', '--stdin-paths'], { input: written.map((_, i) => `${blobs}/${i}\n`).join('') })).stdout.trim().split('\n');
    const blobOf = new Map(written.map((x, i) => [x, hashes[i]!]));
    const ids: string[] = [];
    let head = parent;
    let tree = (await gitRun(root, ['rev-parse', '--verify', `${parent}^{tree}`])).stdout.trim();
    for (const c of commits) {
      const changes = new Map(c.changes.map((x) => [x.file, x.after === undefined ? undefined : blobOf.get(x)!]));
      tree = (await treeWith(root, tree, '', changes)) ?? (await gitRun(root, ['mktree'], { input: '' })).stdout.trim();
      head = (await gitRun(root, ['commit-tree', tree, '-p', head], { env: c.env, input: cleanMessage(c.message) })).stdout.trim();
      ids.push(head);
    }
    return ids;
  } finally {
    fs.rmSync(blobs, { recursive: true, force: true });
  }
}

/**
 * `tip` with the change of `commit`, one of its ancestors, taken out: its diff applied in reverse to tip's tree in an
 * index of kseries' own (no work tree), committed on `tip`. Undefined when the later commits leave it no place.
 */
export async function revertedOn(root: string, commit: string, tip: string, scratch: string): Promise<string | undefined> {
  fs.mkdirSync(scratch, { recursive: true });
  const dir = fs.mkdtempSync(`${scratch}/revert-`);
  const env = { GIT_INDEX_FILE: `${dir}/index`, GIT_AUTHOR_NAME: 'kseries', GIT_AUTHOR_EMAIL: 'kseries@localhost', GIT_COMMITTER_NAME: 'kseries', GIT_COMMITTER_EMAIL: 'kseries@localhost' };
  try {
    await gitRun(root, ['read-tree', tip], { env });
    const diff = (await gitRun(root, ['diff-tree', '-p', '--binary', `${commit}^`, commit])).stdout;
    if ((await gitRunRaw(root, ['apply', '--cached', '-R'], { env, input: diff })).code !== 0) return undefined;
    const tree = (await gitRun(root, ['write-tree'], { env })).stdout.trim();
    const subject = (await gitRun(root, ['log', '-1', '--format=%s', commit])).stdout.trim();
    return (await gitRun(root, ['commit-tree', tree, '-p', tip], { env, input: `Revert "${subject}"\n` })).stdout.trim();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One entry of a tree object: its mode as git writes it ("100644", "40000"), the object's id and its name's bytes. */
interface TreeEntry {
  mode: string;
  id: string;
  name: Buffer;
}

/**
 * The tree `tree` (a folder at `prefix`, "" for the top; undefined: a folder that does not exist yet) with `changes`
 * (path → new blob, undefined: deleted) made below it; undefined when nothing is left in it. A file keeps its mode.
 */
async function treeWith(root: string, tree: string | undefined, prefix: string, changes: Map<string, string | undefined>): Promise<string | undefined> {
  const entries = new Map((tree ? await treeEntries(root, tree) : []).map((e) => [e.name.toString('utf8'), e]));
  const below = new Map<string, Map<string, string | undefined>>();
  for (const [file, blob] of changes) {
    if (!file.startsWith(prefix)) continue;
    const rest = file.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash >= 0) {
      const dir = rest.slice(0, slash);
      below.set(dir, (below.get(dir) ?? new Map()).set(file, blob));
    } else if (blob === undefined) entries.delete(rest);
    else entries.set(rest, { mode: entries.get(rest)?.mode ?? '100644', id: blob, name: Buffer.from(rest) });
  }
  for (const [dir, inside] of below) {
    const old = entries.get(dir);
    const id = await treeWith(root, old?.mode === '40000' ? old.id : undefined, `${prefix}${dir}/`, inside);
    if (id) entries.set(dir, { mode: '40000', id, name: Buffer.from(dir) });
    else entries.delete(dir);
  }
  if (entries.size === 0) return undefined;
  // Names as the tree holds them, bytes and all (one that is no UTF-8 stays as it was).
  const listing = Buffer.concat([...entries.values()].flatMap((e) => [Buffer.from(`${e.mode} ${TYPE_OF_MODE[e.mode] ?? 'blob'} ${e.id}\t`), e.name, Buffer.from([0])]));
  return (await gitRun(root, ['mktree', '-z'], { input: listing })).stdout.trim();
}

const TYPE_OF_MODE: Record<string, string> = { '40000': 'tree', '160000': 'commit' };

/** A tree object's entries, read through the repository's cat-file --batch: `<mode> <name>\0<binary id>` each. */
async function treeEntries(root: string, tree: string): Promise<TreeEntry[]> {
  const object = await blobReader(root).object(tree);
  if (object?.type !== 'tree') throw new ToolFailedError(`git: ${tree} is no tree`, 'check the repository with git fsck');
  const idBytes = object.id.length / 2;
  const entries: TreeEntry[] = [];
  for (let at = 0; at < object.data.length; ) {
    const space = object.data.indexOf(0x20, at);
    const nul = object.data.indexOf(0, space);
    const mode = object.data.subarray(at, space).toString('latin1');
    const name = Buffer.from(object.data.subarray(space + 1, nul));
    entries.push({ mode, name, id: object.data.subarray(nul + 1, nul + 1 + idBytes).toString('hex') });
    at = nul + 1 + idBytes;
  }
  return entries;
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
