// The live terminal view of `kseries check`: a listr2 task per patch with its checkpatch, build and rules steps,
// driven by the check's progress events. Off a terminal the same events become plain lines.
import { Listr, type ListrTask } from 'listr2';
import type { CheckOptions } from '../check/check.js';
import type { Io } from './io.js';

type Step = 'checkpatch' | 'build' | 'rules';
const STEPS: Step[] = ['checkpatch', 'build', 'rules'];
type OnStep = NonNullable<CheckOptions['onStep']>;

interface Deferred {
  promise: Promise<string | undefined>;
  resolve: (detail: string | undefined) => void;
  started: (detail: string | undefined) => void;
}

export interface CheckView {
  onStep: OnStep;
  /** Resolves every step still waiting (a patch without objects has no build step) and ends the view. */
  finish(): Promise<void>;
}

export function liveView(subjects: string[]): CheckView {
  const steps = new Map<string, Deferred>();
  const key = (i: number, s: Step) => `${i}:${s}`;
  const titles = new Map<string, (t: string) => void>();
  for (let n = 0; n < subjects.length; n++) {
    for (const s of STEPS) {
      let resolve!: (d: string | undefined) => void;
      const promise = new Promise<string | undefined>((r) => (resolve = r));
      steps.set(key(n + 1, s), { promise, resolve, started: (d) => titles.get(key(n + 1, s))?.(`${s}: ${d ?? 'running'}`) });
    }
  }
  const list = new Listr(
    subjects.map((subject, n) => ({
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
    })),
    { concurrent: true, exitOnError: false, rendererOptions: { collapseSubtasks: false, collapseErrors: true } },
  );
  const running = list.run();
  return {
    onStep: (i, step, state, detail) => {
      const d = steps.get(key(i, step));
      if (!d) return;
      if (state === 'start') d.started(detail);
      else d.resolve(detail);
    },
    finish: async () => {
      for (const d of steps.values()) d.resolve(undefined);
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
