// kbuild's make, always out of tree (O=), with the compiler wrapper (ccache, distcc) as a make variable.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runMerged, runRaw, type RunResult } from './run.js';
import { probeAnswering } from './probe-cache.js';
import { sandboxed } from './sandbox.js';

export interface MakeOptions {
  /** The kernel source (kseries' worktree). */
  source: string;
  /** The output directory (O=). */
  buildDir: string;
  /** e.g. "ccache gcc" or "distcc gcc"; undefined for plain gcc. */
  cc?: string;
  env?: Record<string, string>;
  jobs?: number;
  /** Run make under bubblewrap: only the build directory writable, no network (code someone else wrote). */
  sandbox?: boolean;
  /** ARCH and CROSS_COMPILE, for a build of another architecture than the host's. */
  arch?: string;
  crossCompile?: string;
  /** clang and the LLVM tools (LLVM=1). */
  llvm?: boolean;
  /** Run sparse over each compiled file (C=1). */
  sparse?: boolean;
}

function makeArgs(opts: MakeOptions, args: string[]): string[] {
  const argv = ['-C', opts.source, `O=${opts.buildDir}`, `-j${opts.jobs ?? os.cpus().length}`];
  if (opts.arch) argv.push(`ARCH=${opts.arch}`);
  if (opts.crossCompile) argv.push(`CROSS_COMPILE=${opts.crossCompile}`);
  if (opts.llvm) argv.push('LLVM=1');
  if (opts.sparse) argv.push('C=1');
  if (opts.cc) argv.push(`CC=${opts.cc}`, `HOSTCC=gcc`);
  return [...argv, ...args];
}

/** make, or bubblewrap running make; under the sandbox ccache may read its cache but not write it. */
function command(opts: MakeOptions, args: string[]): { program: string; args: string[]; env?: Record<string, string> } {
  if (!opts.sandbox) return { program: 'make', args: makeArgs(opts, args), env: opts.env };
  const s = sandboxed('make', makeArgs(opts, args), [opts.buildDir], opts.source);
  const tmp = path.join(opts.buildDir, '.tmp');
  fs.mkdirSync(tmp, { recursive: true });
  return { ...s, env: { ...opts.env, TMPDIR: tmp, CCACHE_READONLY: '1', CCACHE_TEMPDIR: tmp } };
}

/** A make as kseries ran it: program, arguments, folder and environment. */
export interface MakeCall {
  program: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
}

let recorder: ((call: MakeCall) => void) | undefined;

/**
 * Be told of every make kseries starts from now on, and of the other programs that make a build's configuration
 * (runRecorded); undefined: no more. The bench runs the same commands bare.
 */
export function recordMakes(fn: ((call: MakeCall) => void) | undefined): void {
  recorder = fn;
}

/**
 * The make of these options as started: CC is kseries' helper that answers Kbuild's questions to the compiler from
 * its cache (tools/probe-cache.ts), with the compiler itself in its environment, where the helper could be made.
 */
async function started(opts: MakeOptions, args: string[]): Promise<MakeCall> {
  const compiler = opts.cc ?? (opts.llvm ? 'clang' : `${opts.crossCompile ?? ''}gcc`);
  const answering = await probeAnswering(compiler, { ...process.env, ...opts.env });
  const o = answering ? { ...opts, cc: answering.cc, env: { ...opts.env, ...answering.env } } : opts;
  const c = { ...command(o, args), cwd: o.source };
  recorder?.(c);
  return c;
}

/** A recorded call as a user would type it: CC the compiler itself, not kseries' helper that answers Kbuild's questions. */
export function withoutHelper(c: MakeCall): MakeCall {
  const compiler = c.env?.KSERIES_CC;
  if (!compiler) return c;
  const env = Object.fromEntries(Object.entries(c.env!).filter(([k]) => !k.startsWith('KSERIES_CC')));
  return { ...c, args: c.args.map((a) => (a.startsWith('CC=') ? `CC=${compiler}` : a)), env };
}

/** `make O=<buildDir> [-jN] [CC=...] args...` in the source; the exit code is returned, not thrown. */
export async function runMake(opts: MakeOptions, args: string[]): Promise<RunResult> {
  const c = await started(opts, args);
  return runRaw(c.program, c.args, { cwd: c.cwd, env: c.env });
}

/** Like runMake, with stdout and stderr in one stream in the order they were written. */
export async function runMakeMerged(opts: MakeOptions, args: string[]): Promise<{ code: number; output: string }> {
  const c = await started(opts, args);
  return runMerged(c.program, c.args, { cwd: c.cwd, env: c.env });
}

/** The tree's scripts/config, to switch options in a .config file. */
export function runScriptsConfig(source: string, configFile: string, args: string[]): Promise<RunResult> {
  return runRecorded({ program: 'bash', args: [`${source}/scripts/config`, '--file', configFile, ...args], cwd: source });
}

/** Run a program that makes a kernel's configuration or build besides make (scripts/config, kunit.py config), told to the recorder. */
export function runRecorded(c: MakeCall): Promise<RunResult> {
  recorder?.(c);
  return runRaw(c.program, c.args, { cwd: c.cwd, env: c.env });
}
