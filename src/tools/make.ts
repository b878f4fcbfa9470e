// kbuild's make, always out of tree (O=), with the compiler wrapper (ccache, distcc) as a make variable.
import os from 'node:os';
import { runMerged, runRaw, type RunResult } from './run.js';

export interface MakeOptions {
  /** The kernel source (kseries' worktree). */
  source: string;
  /** The output directory (O=). */
  buildDir: string;
  /** e.g. "ccache gcc" or "distcc gcc"; undefined for plain gcc. */
  cc?: string;
  env?: Record<string, string>;
  jobs?: number;
}

function makeArgs(opts: MakeOptions, args: string[]): string[] {
  const argv = ['-C', opts.source, `O=${opts.buildDir}`, `-j${opts.jobs ?? os.cpus().length}`];
  if (opts.cc) argv.push(`CC=${opts.cc}`, `HOSTCC=gcc`);
  return [...argv, ...args];
}

/** `make O=<buildDir> [-jN] [CC=...] args...` in the source; the exit code is returned, not thrown. */
export function runMake(opts: MakeOptions, args: string[]): Promise<RunResult> {
  return runRaw('make', makeArgs(opts, args), { cwd: opts.source, env: opts.env });
}

/** Like runMake, with stdout and stderr in one stream in the order they were written. */
export function runMakeMerged(opts: MakeOptions, args: string[]): Promise<{ code: number; output: string }> {
  return runMerged('make', makeArgs(opts, args), { cwd: opts.source, env: opts.env });
}

/** The tree's scripts/config, to switch options in a .config file. */
export function runScriptsConfig(source: string, configFile: string, args: string[]): Promise<RunResult> {
  return runRaw('bash', [`${source}/scripts/config`, '--file', configFile, ...args], { cwd: source });
}
