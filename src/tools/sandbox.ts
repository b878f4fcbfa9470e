// Building code someone else wrote: Makefiles run commands, so review builds run under Debian's bubblewrap with the
// whole file system read-only, only the build directory writable (temporary files go there too), and no network.
import { SandboxError } from '../errors.js';
import { runRaw } from './run.js';
import { onPath } from './which.js';

export const SANDBOX_BWRAP = 'bwrap (read-only source, writable build directory, no network)';
export const SANDBOX_NONE = 'unsandboxed (--trust)';

/** `program args` as bubblewrap runs it: only `writable` folders can be written, no network, no other processes. */
export function sandboxed(program: string, args: readonly string[], writable: string[], cwd: string): { program: string; args: string[] } {
  const binds = writable.flatMap((d) => ['--bind', d, d]);
  return {
    program: 'bwrap',
    args: ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...binds, '--unshare-net', '--unshare-ipc', '--unshare-pid', '--unshare-uts', '--die-with-parent', '--chdir', cwd, program, ...args],
  };
}

/** Whether bubblewrap is installed and can start a process without network here (user namespaces may be off). */
export async function sandboxWorks(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (!onPath('bwrap', env)) return false;
  const probe = sandboxed('true', [], [], '/');
  const r = await runRaw(probe.program, probe.args, { cwd: '/', timeoutMs: 20_000 }).catch(() => undefined);
  return r?.code === 0;
}

/** How builds of someone else's code will run: unsandboxed when the user vouches for it (--trust), else under bwrap; refuses (exit 2) when no sandbox works. */
export async function assertSandbox(trust: boolean, env?: NodeJS.ProcessEnv): Promise<string> {
  if (trust) return SANDBOX_NONE;
  if (await sandboxWorks(env)) return SANDBOX_BWRAP;
  throw new SandboxError(
    'reviewing builds code someone else wrote, and bubblewrap (bwrap) is missing or cannot start a sandbox here',
    'apt-get install bubblewrap; or --no-build (apply, checkpatch, rules only); or --trust to build without a sandbox',
  );
}
