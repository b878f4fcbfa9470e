// What each file says on its own (scanFacts() is pure: path and text in, facts out), kept by path and blob id in
// kseries' cache, one file per version of the rules. A later scan classifies only the files whose blob changed, or
// that differ from the commit in the working tree; a file the prefilter passes over is kept with no facts.
import fs from 'node:fs';
import path from 'node:path';
import type { FlagFacts } from '../scan.js';
import { cacheDir } from '../../../tree/paths.js';
import { rulesVersion } from './content.js';

/** Per path: the blob id read and the facts found in it. */
type Entries = Record<string, [string, FlagFacts[]]>;

export class FactsCache {
  private changed = false;

  private constructor(
    private readonly file: string,
    private readonly entries: Entries,
  ) {}

  static open(env: NodeJS.ProcessEnv = process.env): FactsCache {
    const file = path.join(cacheDir(env), 'scan', `facts-${rulesVersion().slice(0, 16)}.json`);
    let entries: Entries = {};
    try {
      entries = JSON.parse(fs.readFileSync(file, 'utf8')) as Entries;
    } catch {
      /* none yet, or unreadable: classify again */
    }
    return new FactsCache(file, entries);
  }

  /** The facts of `file` when its blob is `blob`, or undefined when not known. */
  get(file: string, blob: string): FlagFacts[] | undefined {
    const e = this.entries[file];
    return e && e[0] === blob ? e[1] : undefined;
  }

  set(file: string, blob: string, facts: FlagFacts[]): void {
    this.entries[file] = [blob, facts];
    this.changed = true;
  }

  /** Write it back if it changed (atomically: a scan running beside this one reads the old or the new), dropping other rules' files. */
  save(): void {
    if (!this.changed) return;
    const dir = path.dirname(this.file);
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.entries));
    fs.renameSync(tmp, this.file);
    for (const f of fs.readdirSync(dir)) if (/^facts-[0-9a-f]+\.json$/.test(f) && path.join(dir, f) !== this.file) fs.rmSync(path.join(dir, f), { force: true });
    this.changed = false;
  }
}
