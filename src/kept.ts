// Results kept in kseries' cache by everything that decides them: the tree's content, the configuration, the scripts
// a guest runs, and kseries' own code that produced them. A run that repeats one (npm start again, check after
// generate made the same tree, a test suite run twice) reads it instead of building and booting again; a change to any
// of those makes a new key, so what changed is done again. Only results the caller trusts are kept (a passing boot,
// say): a failure is always done again, so nothing flaky is frozen.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from './tree/paths.js';

/** A digest of kseries' own modules: each name is a folder of src/ (or dist/: the compiled text) or one module in it. */
export function codeDigest(folders: string[]): string {
  const here = fileURLToPath(import.meta.url);
  const ext = path.extname(here);
  const root = path.dirname(here);
  const hash = createHash('sha1');
  for (const folder of folders) {
    const dir = path.join(root, folder);
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((x) => x.endsWith(ext)).sort().map((f) => path.join(dir, f)) : [`${dir}${ext}`];
    for (const f of files) hash.update(fs.readFileSync(f));
  }
  return hash.digest('hex');
}

export interface Kept<T> {
  value: T;
  /** When the kept result was made (ISO time); undefined when it was made by this call. */
  keptFrom?: string;
}

export interface KeptOptions {
  env?: NodeJS.ProcessEnv;
  /** Do the work again even when a result is kept (and keep the new one). */
  fresh?: boolean;
}

/**
 * The result of `compute` for `key` (JSON: what decides the result), kept under `<cache>/results/<kind>/`. A kept one
 * is returned with when it was made; otherwise `compute` runs, and its result is kept when `trust(result)`.
 */
export async function keptResult<T>(kind: string, key: unknown, compute: () => Promise<T>, trust: (value: T) => boolean, opts: KeptOptions = {}): Promise<Kept<T>> {
  const digest = createHash('sha1').update(JSON.stringify(key)).digest('hex');
  const file = path.join(cacheDir(opts.env), 'results', kind, `${digest}.json`);
  const kept = opts.fresh ? undefined : readKept<T>(file);
  if (kept) return { value: kept.value, keptFrom: kept.at };
  const value = await compute();
  if (trust(value)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}`;
    fs.writeFileSync(tmp, `${JSON.stringify({ at: new Date().toISOString(), key, value }, null, 1)}\n`);
    fs.renameSync(tmp, file);
  }
  return { value };
}

function readKept<T>(file: string): { at: string; value: T } | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as { at: string; value: T };
  } catch {
    return undefined; // not kept yet, or unreadable: made again
  }
}
