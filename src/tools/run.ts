// The one choke point through which kseries starts programs: argument arrays, an explicit cwd, never a shell.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MissingToolError, ToolFailedError } from '../errors.js';
import { packageFor } from './packages.js';

export interface RunOptions {
  cwd: string;
  input?: string | Buffer;
  env?: Record<string, string | undefined>;
  /** Exit codes that are results, not failures (default: only 0). */
  okCodes?: number[];
  /** Kill the program (SIGKILL) after this many milliseconds; it then exits with code 137. */
  timeoutMs?: number;
  /** Sees stdout as it arrives (a guest's console, to tell how far it got). */
  onStdout?: (chunk: Buffer) => void;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `program args...` in `cwd`; throw MissingToolError when it is not installed, ToolFailedError on a bad exit. */
export async function run(program: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  const result = await runRaw(program, args, opts);
  const ok = opts.okCodes ?? [0];
  if (!ok.includes(result.code)) {
    const detail = lastLine(result.stderr) || lastLine(result.stdout) || `exit code ${result.code}`;
    throw new ToolFailedError(
      `${program} ${args.slice(0, 3).join(' ')}${args.length > 3 ? ' ...' : ''} failed: ${detail}`,
      `run it by hand in ${opts.cwd} to see the whole output`,
    );
  }
  return result;
}

/** Like run(), but any exit code is returned instead of thrown. */
export async function runRaw(program: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  const r = await runBytes(program, args, opts);
  return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

/** Like runRaw, with stdout and stderr as bytes (for framed output such as git cat-file --batch). */
export function runBytes(program: string, args: readonly string[], opts: RunOptions): Promise<{ code: number; stdout: Buffer; stderr: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd: opts.cwd,
      env: { ...process.env, LC_ALL: 'C', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = opts.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.stdout.on('data', (b: Buffer) => {
      out.push(b);
      opts.onStdout?.(b);
    });
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e: NodeJS.ErrnoException) => reject(startError(program, e)));
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code: code ?? (signal === 'SIGKILL' ? 137 : signal ? 128 : 1), stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
    });
    child.stdin.on('error', () => {
      /* the program may exit before reading its input; its exit code tells */
    });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * Run and hand stdout to `onLine` line by line as it arrives (a long listing can be worked on before the program
 * ends). Resolves with the exit code and stderr; any exit code is returned.
 */
export function runLines(program: string, args: readonly string[], opts: RunOptions, onLine: (line: string) => void): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd: opts.cwd, env: { ...process.env, LC_ALL: 'C', ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let rest = '';
    const err: Buffer[] = [];
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      for (const l of lines) onLine(l);
    });
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e: NodeJS.ErrnoException) => reject(startError(program, e)));
    child.on('close', (code, signal) => {
      if (rest) onLine(rest);
      resolve({ code: code ?? (signal ? 128 : 1), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/**
 * Run with stdout and stderr going to one file, so their lines keep the order the program wrote them in (make's
 * "CC file.o" lines on stdout and the compiler's warnings on stderr). Any exit code is returned.
 */
export async function runMerged(program: string, args: readonly string[], opts: RunOptions): Promise<{ code: number; output: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kseries-out-'));
  const file = path.join(dir, 'output');
  const fd = fs.openSync(file, 'w');
  try {
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn(program, args, { cwd: opts.cwd, env: { ...process.env, LC_ALL: 'C', ...opts.env }, stdio: ['ignore', fd, fd] });
      child.on('error', (e: NodeJS.ErrnoException) => reject(startError(program, e)));
      child.on('close', (c, signal) => resolve(c ?? (signal ? 128 : 1)));
    });
    return { code, output: fs.readFileSync(file, 'utf8') };
  } finally {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Programs piped one into the next (`a | b`), side by side, with no shell: the first reads `input` (or nothing), the
 * last's stdout goes to `onStdout` chunk by chunk as it arrives. Resolves with each one's exit code and stderr.
 */
export function runPipeline(stages: { program: string; args: readonly string[] }[], opts: { cwd: string; input?: string }, onStdout: (chunk: Buffer) => void): Promise<{ code: number; stderr: string }[]> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, LC_ALL: 'C' };
    const children = stages.map((st) => spawn(st.program, st.args, { cwd: opts.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] }));
    const results = stages.map(() => ({ code: -1, stderr: '' }));
    let open = children.length;
    children.forEach((child, i) => {
      const err: Buffer[] = [];
      child.stderr.on('data', (b: Buffer) => err.push(b));
      child.stdin.on('error', () => undefined);
      child.on('error', (e: NodeJS.ErrnoException) => reject(startError(stages[i]!.program, e)));
      child.on('close', (code) => {
        results[i] = { code: code ?? 1, stderr: Buffer.concat(err).toString('utf8') };
        if (--open === 0) resolve(results);
      });
      if (i > 0) children[i - 1]!.stdout.pipe(child.stdin);
    });
    children[0]!.stdin.end(opts.input ?? '');
    children[children.length - 1]!.stdout.on('data', onStdout);
  });
}

/**
 * Start `program args...` to talk to over its stdin and stdout for as long as the caller needs (git cat-file --batch
 * answering one request after another). It does not keep Node running; `onError` hears of a program that cannot
 * start (MissingToolError when it is not installed) and `onExit` of its end.
 */
export function startProgram(program: string, args: readonly string[], opts: { cwd: string; onError: (e: Error) => void; onExit: () => void }): ChildProcessByStdio<Writable, Readable, null> {
  const child = spawn(program, args, { cwd: opts.cwd, env: { ...process.env, LC_ALL: 'C' }, stdio: ['pipe', 'pipe', 'ignore'] });
  child.on('error', (e: NodeJS.ErrnoException) => opts.onError(startError(program, e)));
  child.on('close', opts.onExit);
  child.stdin.on('error', () => {
    /* it exited: onExit tells */
  });
  child.unref();
  return child;
}

/** A program that could not start: not installed (with the package that has it), or the system's error. */
function startError(program: string, e: NodeJS.ErrnoException): Error {
  if (e.code !== 'ENOENT') return e;
  return new MissingToolError(`${program} is not installed`, `apt-get install ${packageFor(program)}  (or run: kseries doctor --install)`);
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines[lines.length - 1]?.trim() ?? '';
}

/** `fn` over `items`, at most `limit` at a time (one per core for programs a run starts), results in order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
