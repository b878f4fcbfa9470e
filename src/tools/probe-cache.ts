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
import { onPath, onPathAt } from './which.js';

const SOURCE = fileURLToPath(new URL('../../libexec/kbuild-cc.c', import.meta.url));

/** The helper being compiled, by its path: one compile however many makes start at once. */
const compiling = new Map<string, Promise<string | undefined>>();

/** The digest of the helper's source, read once. */
let sourceDigest: string | undefined;

/**
 * The compiled helper, `<cache>/bin/kbuild-cc`, made again when its source changed (`kbuild-cc.digest` beside it);
 * undefined where it cannot be made. Its path stays the same from one kseries to the next: it is CC in every object's
 * command line, and another path would make Kbuild compile every object of every build folder again.
 */
function compiledHelper(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (!fs.existsSync(SOURCE)) return Promise.resolve(undefined);
  sourceDigest ??= createHash('sha1').update(fs.readFileSync(SOURCE)).digest('hex');
  const bin = path.join(cacheDir(env), 'bin', 'kbuild-cc');
  const digestFile = `${bin}.digest`;
  const current = () => fs.existsSync(bin) && fs.existsSync(digestFile) && fs.readFileSync(digestFile, 'utf8') === sourceDigest;
  if (current()) return Promise.resolve(bin);
  const known = compiling.get(bin);
  if (known) return known;
  const made = (async () => {
    if (!onPath('gcc', env)) return undefined;
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    const tmp = `${bin}.${process.pid}`;
    const r = await runRaw('gcc', ['-O2', '-o', tmp, SOURCE], { cwd: path.dirname(bin), env });
    if (r.code !== 0) return undefined;
    // The binary first, then its digest: a run that stops between the two makes it again, never trusts an old one.
    fs.renameSync(tmp, bin);
    fs.writeFileSync(`${digestFile}.${process.pid}`, sourceDigest!);
    fs.renameSync(`${digestFile}.${process.pid}`, digestFile);
    return bin;
  })().finally(() => compiling.delete(bin));
  compiling.set(bin, made);
  return made;
}

/** Each compiler's id, by its command and PATH: found once per run, not once per make. */
const ids = new Map<string, string>();

/** What tells one compiler's version from another's: its binary's real path, size and time. */
function compilerId(command: string, env: NodeJS.ProcessEnv): string {
  const program = command.split(/\s+/).filter(Boolean).at(-1)!;
  const known = ids.get(`${program}\0${env.PATH}`);
  if (known) return known;
  const file = onPathAt(program, env);
  const real = file && fs.realpathSync(file);
  const st = real && fs.statSync(real);
  const id = st ? `${real}:${st.size}:${st.mtimeMs}` : program;
  ids.set(`${program}\0${env.PATH}`, id);
  return id;
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
