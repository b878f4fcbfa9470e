// The live terminal view of `kseries check`: a listr2 task per patch with a step per live check (build, checkpatch, rules),
// driven by the check's progress events. Off a terminal the same events become plain lines.
import { Listr, type ListrTask } from 'listr2';
import type { CheckOptions } from '../check/check.js';
import { patchChecks } from '../check/plugins.js';
import { formatProgress, type OnProgress } from '../progress.js';
import type { Io } from './io.js';

type OnStep = NonNullable<CheckOptions['onStep']>;

interface Deferred {
  promise: Promise<string | undefined>;
  resolve: (detail: string | undefined) => void;
  started: (detail: string | undefined) => void;
}

export interface CheckView {
  onStep: OnStep;
  /** Where the whole series' long steps (the boot kernel, KUnit) show how far they got; undefined: as plain lines. */
  progress?: OnProgress;
  /** Resolves every step still waiting (a patch without objects has no build step) and ends the view. */
  finish(): Promise<void>;
}

export function liveView(subjects: string[]): CheckView {
  const STEPS = patchChecks().filter((c) => c.live).map((c) => c.id);
  const steps = new Map<string, Deferred>();
  const key = (i: number, s: string) => `${i}:${s}`;
  const titles = new Map<string, (t: string) => void>();
  for (let n = 0; n < subjects.length; n++) {
    for (const s of STEPS) {
      let resolve!: (d: string | undefined) => void;
      const promise = new Promise<string | undefined>((r) => (resolve = r));
      steps.set(key(n + 1, s), { promise, resolve, started: (d) => titles.get(key(n + 1, s))?.(`${s}: ${d ?? 'running'}`) });
    }
  }
  // After the patches, one line for the series' kernels (the lockdep boot, KUnit): the step running and how far it got.
  let series!: (title: string) => void;
  let seriesDone!: () => void;
  const seriesEnded = new Promise<void>((r) => (seriesDone = r));
  let lastSeriesStep = 'no kernel to build or boot';
  const seriesTask: ListrTask = {
    title: 'series',
    task: async (_c, t) => {
      series = (title) => (t.title = title);
      await seriesEnded;
      t.title = `series: ${lastSeriesStep}`;
    },
  };
  const patchTasks: ListrTask[] = subjects.map((subject, n) => ({
    title: `[${n + 1}/${subjects.length}] ${subject}`,
    task: (_ctx, task) =>
      task.newListr(
        STEPS.map((s) => ({
          title: s,
          task: async (_c, t) => {
            titles.set(key(n + 1, s), (title) => (t.title = title));
            const detail = await steps.get(key(n + 1, s))!.promise;
            t.title = `${s}: ${detail ?? 'nothing to do'}`;
            if (detail === 'failed' || /^[1-9]\d* errors/.test(detail ?? '')) throw new Error(t.title);
          },
        })) as ListrTask[],
        { concurrent: true, exitOnError: false },
      ),
  }));
  const list = new Listr([...patchTasks, seriesTask], { concurrent: true, exitOnError: false, rendererOptions: { collapseSubtasks: false, collapseErrors: true } });
  const running = list.run();
  return {
    onStep: (i, step, state, detail) => {
      const d = steps.get(key(i, step));
      if (!d) return;
      if (state === 'start') d.started(detail);
      else d.resolve(detail);
    },
    progress: (p) => {
      lastSeriesStep = formatProgress(p);
      series?.(`series: ${lastSeriesStep}`);
    },
    finish: async () => {
      for (const d of steps.values()) d.resolve(undefined);
      seriesDone();
      await running;
    },
  };
}

export function lineView(io: Io): CheckView {
  return {
    onStep: (i, step, state, detail) => io.err(`[${i}] ${step} ${state === 'start' ? 'started' : 'done'}${detail ? `: ${detail}` : ''}`),
    finish: async () => {},
  };
}
