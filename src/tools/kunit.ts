// The tree's own KUnit runner, tools/testing/kunit/kunit.py: configure and build a test kernel, boot it under QEMU.
import os from 'node:os';
import path from 'node:path';
import { runRaw, type RunResult } from './run.js';

export interface KunitTree {
  /** The kernel source (a kseries worktree). */
  source: string;
  buildDir: string;
  /** A .kunitconfig file. */
  kunitconfig: string;
}

/** kunit.py must not leave __pycache__ folders in kseries' worktree. */
const PYTHON_ENV = { PYTHONDONTWRITEBYTECODE: '1' };

function kunitArgs(t: KunitTree, action: 'build' | 'exec'): string[] {
  return [path.join(t.source, 'tools/testing/kunit/kunit.py'), action, '--arch=x86_64', `--kunitconfig=${t.kunitconfig}`, `--build_dir=${t.buildDir}`];
}

/**
 * `kunit.py build`: .config from the kunitconfig, then the kernel (incremental in a kept build directory); `cc` is
 * make's compiler ("ccache gcc"), with what its wrapper needs in `env`.
 */
export function kunitBuild(t: KunitTree, compiler: { cc?: string; env?: Record<string, string> } = {}): Promise<RunResult> {
  const make = compiler.cc ? [`--make_options=CC=${compiler.cc}`] : [];
  return runRaw('python3', [...kunitArgs(t, 'build'), `--jobs=${os.cpus().length}`, ...make], { cwd: t.source, env: { ...PYTHON_ENV, ...compiler.env } });
}

/** `kunit.py exec`: boot the built kernel in QEMU and parse its KTAP into `json`; exit 1 when a test failed. */
export function kunitExec(t: KunitTree, opts: { json: string; qemuArgs: string[]; timeout: number }): Promise<RunResult> {
  const qemu = opts.qemuArgs.length ? [`--qemu_args=${opts.qemuArgs.join(' ')}`] : [];
  return runRaw('python3', [...kunitArgs(t, 'exec'), `--timeout=${opts.timeout}`, `--json=${opts.json}`, ...qemu], { cwd: t.source, env: PYTHON_ENV });
}
