// Kbuild's questions to the compiler about itself, answered once. Every make and every Kconfig run asks the compiler
// whether it takes each option it might use (cc-option, as-instr, --version): about 90 questions a Kconfig run and 30
// a make, each a compiler start. libexec/kbuild-cc.c, compiled here on first use, stands in as CC: it answers a
// question asked before from <cache>/kbuild-probes and hands everything else to the compiler. Measured on 6.12 (2
// cores): a Kconfig run 6.2 -> 3.0 s with gcc, 16 -> 4 s with clang; a make of an object up to date 2.7 -> 1.9 s with
// gcc, 5.0 -> 2.0 s with clang. KSERIES_PROBE_CACHE=0 leaves CC as it was.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '../tree/paths.js';
import { runRaw } from './run.js';
import { onPath } from './which.js';

const SOURCE = fileURLToPath(new URL('../../libexec/kbuild-cc.c', import.meta.url));

/** The helper being compiled, by its path: one compile however many makes start at once. */
const compiling = new Map<string, Promise<string | undefined>>();

/** The compiled helper (`<cache>/bin/kbuild-cc-<digest of its source>`), made once; undefined where it cannot be. */
function compiledHelper(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (!fs.existsSync(SOURCE)) return Promise.resolve(undefined);
  const digest = createHash('sha1').update(fs.readFileSync(SOURCE)).digest('hex').slice(0, 12);
  const bin = path.join(cacheDir(env), 'bin', `kbuild-cc-${digest}`);
  if (fs.existsSync(bin)) return Promise.resolve(bin);
  const known = compiling.get(bin);
  if (known) return known;
  const made = (async () => {
    if (!onPath('gcc', env)) return undefined;
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    const tmp = `${bin}.${process.pid}`;
    const r = await runRaw('gcc', ['-O2', '-o', tmp, SOURCE], { cwd: path.dirname(bin), env });
    if (r.code !== 0) return undefined;
    fs.renameSync(tmp, bin);
    return bin;
  })().finally(() => compiling.delete(bin));
  compiling.set(bin, made);
  return made;
}

/** What tells one compiler's version from another's: its binary's real path, size and time. */
function compilerId(command: string, env: NodeJS.ProcessEnv): string {
  const program = command.split(/\s+/).filter(Boolean).at(-1)!;
  for (const dir of (env.PATH ?? '').split(':')) {
    const file = path.join(dir || '.', program);
    try {
      const real = fs.realpathSync(file);
      const st = fs.statSync(real);
      if (st.isFile()) return `${real}:${st.size}:${st.mtimeMs}`;
    } catch {
      // not in this folder
    }
  }
  return program;
}

/**
 * CC and the environment for make that answer Kbuild's questions from the cache, for the compiler `command` (`ccache
 * gcc`, `clang`); undefined: make runs the compiler as given (no gcc to compile the helper, or KSERIES_PROBE_CACHE=0).
 */
export async function probeAnswering(command: string, env: NodeJS.ProcessEnv = process.env): Promise<{ cc: string; env: Record<string, string> } | undefined> {
  if (env.KSERIES_PROBE_CACHE === '0') return undefined;
  const bin = await compiledHelper(env);
  if (!bin) return undefined;
  const probes = path.join(cacheDir(env), 'kbuild-probes');
  fs.mkdirSync(probes, { recursive: true });
  return { cc: bin, env: { KSERIES_CC: command, KSERIES_CC_PROBES: probes, KSERIES_CC_ID: compilerId(command, env) } };
}
