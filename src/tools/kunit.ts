// The tree's own KUnit runner, tools/testing/kunit/kunit.py: configure and build a test kernel, boot it under QEMU.
import path from 'node:path';
import { runRecorded } from './make.js';
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

function kunitArgs(t: KunitTree, action: 'config' | 'exec'): string[] {
  return [path.join(t.source, 'tools/testing/kunit/kunit.py'), action, '--arch=x86_64', `--kunitconfig=${t.kunitconfig}`, `--build_dir=${t.buildDir}`];
}

/**
 * `kunit.py config`: the .config kunit.py makes of the kunitconfig and its QEMU lines (olddefconfig), kept while the
 * kunitconfig it recorded is the same; `cc` is make's compiler ("ccache gcc"), as the build's, so Kconfig's compiler
 * tests see the same one.
 */
export function kunitConfig(t: KunitTree, compiler: { cc?: string; env?: Record<string, string> } = {}): Promise<RunResult> {
  const make = compiler.cc ? [`--make_options=CC=${compiler.cc}`] : [];
  return runRecorded({ program: 'python3', args: [...kunitArgs(t, 'config'), ...make], cwd: t.source, env: { ...PYTHON_ENV, ...compiler.env } });
}

/** `kunit.py exec`: boot the built kernel in QEMU and parse its KTAP into `json`; exit 1 when a test failed. */
export function kunitExec(t: KunitTree, opts: { json: string; qemuArgs: string[]; timeout: number }): Promise<RunResult> {
  const qemu = opts.qemuArgs.length ? [`--qemu_args=${opts.qemuArgs.join(' ')}`] : [];
  return runRaw('python3', [...kunitArgs(t, 'exec'), `--timeout=${opts.timeout}`, `--json=${opts.json}`, ...qemu], { cwd: t.source, env: PYTHON_ENV });
}
