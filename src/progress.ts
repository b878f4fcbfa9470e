// Progress of a long step (a kernel build, a boot) for whoever watches it: what runs, how far it got, for how long.
// Producers sample their step every two seconds; commands decide how to show it (commands/io.ts progressReporter).
import fs from 'node:fs';
import path from 'node:path';

export interface Progress {
  /** What runs: "building the minimal boot kernel", "booting it under TCG". */
  what: string;
  /** Objects compiled so far (builds). */
  done?: number;
  /** About how many objects the build compiles in all: known for a first build only. */
  total?: number;
  /** How far a boot got: "kernel starting", "init running", "workload running", ... */
  phase?: string;
  seconds: number;
  /** The step's last report, sent when it ends. */
  ended: boolean;
}

export type OnProgress = (p: Progress) => void;

export type Sample = () => Pick<Progress, 'done' | 'total' | 'phase'>;

const TICK_MS = 2000;

/** Run `work`, reporting `what` with what `sample` reads every two seconds, and once more when it ends. */
export async function withProgress<T>(what: string, onProgress: OnProgress | undefined, sample: Sample, work: () => Promise<T>): Promise<T> {
  if (!onProgress) return work();
  const started = Date.now();
  const report = (ended: boolean) => onProgress({ what, ...sample(), seconds: Math.round((Date.now() - started) / 1000), ended });
  const timer = setInterval(() => report(false), TICK_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    report(true);
  }
}

/**
 * A sample of a build in `buildDir`: the objects (.o) written there since now, leaving out the host programs of
 * scripts/ and tools/; and `total` once `estimate` (run when the build's .config exists) has an answer.
 */
export function buildSample(buildDir: string, estimate?: () => Promise<number | undefined>): Sample {
  const since = Date.now() - 1000;
  let total: number | undefined;
  let asked = false;
  return () => {
    // Kbuild writes auto.conf when the build starts, from the final .config (kunit.py writes a partial one first).
    if (estimate && !asked && fs.existsSync(path.join(buildDir, 'include/config/auto.conf'))) {
      asked = true;
      estimate().then((n) => (total = n), () => undefined);
    }
    return { done: objectsWritten(buildDir, since), total };
  };
}

/** The kernel objects (.o) in `buildDir` written since `since` (ms), leaving out the host programs of scripts/ and tools/. */
export function objectsWritten(buildDir: string, since: number): number {
  let n = 0;
  walkObjects(buildDir, (mtime) => {
    if (mtime >= since) n++;
  });
  return n;
}

/** The kernel objects (.o) in `buildDir`, host programs left out. */
export function objectsIn(buildDir: string): number {
  let n = 0;
  walkObjects(buildDir, () => n++);
  return n;
}

function walkObjects(buildDir: string, each: (mtimeMs: number) => void): void {
  const walk = (dir: string, top: boolean) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) {
        if (!(top && (e.name === 'scripts' || e.name === 'tools'))) walk(path.join(dir, e.name), false);
      } else if (e.name.endsWith('.o')) {
        const mtime = fs.statSync(path.join(dir, e.name), { throwIfNoEntry: false })?.mtimeMs;
        if (mtime !== undefined) each(mtime);
      }
    }
  };
  walk(buildDir, true);
}

/** "building the minimal boot kernel: 412 of about 1157 objects, 3m12s" */
export function formatProgress(p: Progress): string {
  const time = p.seconds >= 60 ? `${Math.floor(p.seconds / 60)}m${String(p.seconds % 60).padStart(2, '0')}s` : `${p.seconds}s`;
  const parts: string[] = [];
  if (p.done !== undefined) parts.push(p.total && !p.ended ? `${p.done} of about ${p.total} objects` : `${p.done} object${p.done === 1 ? '' : 's'} compiled`);
  if (p.phase) parts.push(p.phase);
  parts.push(p.ended ? `done in ${time}` : time);
  return `${p.what}: ${parts.join(', ')}`;
}
