// What each kernel build took on this machine, kept in kseries' cache: a build plan says how long a kernel took here
// cold (most of its objects compiled) and warm (a few), and how many objects it holds, before it is built again.
import fs from 'node:fs';
import path from 'node:path';
import { objectsIn, objectsWritten } from '../progress.js';
import { runRaw } from '../tools/run.js';
import { cacheDir } from '../tree/paths.js';

export interface BuildRecord {
  seconds: number;
  /** Objects the build compiled. */
  compiled: number;
  /** Objects the build folder held after it. */
  objects: number;
  /** When (ISO time). */
  at: string;
}

/** The last cold and the last warm build of one folder. */
export interface BuildTimes {
  cold?: BuildRecord;
  warm?: BuildRecord;
}

/**
 * A build that compiled at least this share of its folder's objects counts as cold, unless ccache answered most of
 * those compiles (a build folder made anew on a warm ccache: a warm build).
 */
const COLD_SHARE = 0.5;

function ledgerFile(env?: NodeJS.ProcessEnv): string {
  return path.join(cacheDir(env), 'results', 'builds.json');
}

/** The key of a build folder: its path under the cache, so that the same folder of another cache is another build. */
function keyOf(buildDir: string, env?: NodeJS.ProcessEnv): string {
  return path.relative(cacheDir(env), buildDir);
}

function readLedger(env?: NodeJS.ProcessEnv): Record<string, BuildTimes> {
  try {
    return JSON.parse(fs.readFileSync(ledgerFile(env), 'utf8')) as Record<string, BuildTimes>;
  } catch {
    return {};
  }
}

/** What the builds of `buildDir` took here, as far as the ledger knows. */
export function buildTimes(buildDir: string, env?: NodeJS.ProcessEnv): BuildTimes {
  return readLedger(env)[keyOf(buildDir, env)] ?? {};
}

/**
 * Run a whole-kernel build in `buildDir` and write down what it took, whether it succeeded or not. `ccacheDir` is the
 * ccache the build compiles through, whose misses tell a compile from a cache hit.
 */
export async function ledgered<T>(buildDir: string, env: NodeJS.ProcessEnv | undefined, work: () => Promise<T>, ccacheDir?: string): Promise<T> {
  const started = Date.now();
  const misses = await ccacheMissCounter(ccacheDir);
  const result = await work();
  const compiled = objectsWritten(buildDir, started - 1000);
  const objects = objectsIn(buildDir);
  if (objects === 0) return result;
  const missed = (await misses()) ?? compiled;
  const record: BuildRecord = { seconds: Math.round((Date.now() - started) / 100) / 10, compiled, objects, at: new Date().toISOString() };
  writeRecord(keyOf(buildDir, env), compiled >= COLD_SHARE * objects && missed >= COLD_SHARE * compiled ? 'cold' : 'warm', record, env);
  return result;
}

/**
 * Counts the compiles ccache misses in `dir` from now on: the returned function gives how many it has missed since
 * (`ccache --print-stats`), or undefined (no ccache, or none asked).
 */
export async function ccacheMissCounter(dir: string | undefined): Promise<() => Promise<number | undefined>> {
  const before = await ccacheMisses(dir);
  return async () => {
    const after = before === undefined ? undefined : await ccacheMisses(dir);
    return before === undefined || after === undefined ? undefined : after - before;
  };
}

async function ccacheMisses(dir: string | undefined): Promise<number | undefined> {
  if (!dir) return undefined;
  const stats = await runRaw('ccache', ['--print-stats'], { cwd: '/', env: { CCACHE_DIR: dir } }).catch(() => undefined);
  const missed = stats?.code === 0 ? /^cache_miss\t(\d+)$/m.exec(stats.stdout)?.[1] : undefined;
  return missed === undefined ? undefined : Number(missed);
}

/** The key of a whole run (`start`: npm start) in the ledger. */
function runKey(name: string): string {
  return `run:${name}`;
}

/** Write down what a whole run took: cold when it built a kernel from nothing, warm otherwise. */
export function recordRun(name: string, seconds: number, kind: 'cold' | 'warm', env?: NodeJS.ProcessEnv): void {
  writeRecord(runKey(name), kind, { seconds: Math.round(seconds * 10) / 10, compiled: 0, objects: 0, at: new Date().toISOString() }, env);
}

/** What a whole run took here, as far as the ledger knows. */
export function runTimes(name: string, env?: NodeJS.ProcessEnv): BuildTimes {
  return readLedger(env)[runKey(name)] ?? {};
}

function writeRecord(key: string, kind: 'cold' | 'warm', record: BuildRecord, env?: NodeJS.ProcessEnv): void {
  const ledger = readLedger(env);
  ledger[key] = { ...ledger[key], [kind]: record };
  const file = ledgerFile(env);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}`;
  fs.writeFileSync(tmp, `${JSON.stringify(ledger, null, 1)}\n`);
  fs.renameSync(tmp, file);
}
