// What the static-key recipes ask of the tree beyond what every recipe gets: the tree-wide scan of flags tested in
// branches, and how often each one's tests run in a booted kernel (kseries measure). The series layer asks the
// recipe for them (RecipeCode.services) instead of importing the static-key recipe's scan and measurement.
import type { RecipeServices, RuntimeEvidence } from '../types.js';
import { measure } from './measure.js';
import { scanStaticKeys } from './tree-scan/static-keys.js';

export const staticKeyServices: RecipeServices = {
  flagCandidates: (tree, base) => (paths) => scanStaticKeys(tree, [...paths], base),

  /** Each candidate's hits in a boot of the base (measured, or read from kseries' cache). */
  async runtime({ tree, base, how, build, log }): Promise<RuntimeEvidence> {
    log?.(`measuring how often each candidate's test runs: ${how.config} kernel, ${how.workload} workload`);
    const m = await measure({ tree, rev: base, config: how.config, workload: how.workload, candidates: how.candidates, env: build.env, progress: build.progress, log });
    if (m.problems.length > 0) log?.(`the measurement boot had problems: ${m.problems.join('; ')} (console log: ${m.boot.consoleLog})`);
    const byFlag = new Map(m.candidates.map((c) => [`${c.file}:${c.variable}`, c]));
    return {
      config: m.kernel,
      workload: m.workload,
      accel: m.accel,
      of(file, variable) {
        const c = byFlag.get(`${file}:${variable}`);
        if (!c) return undefined;
        return c.hits ? { perSecond: c.hits.perSecond, boot: c.hits.boot, perEvent: c.hits.perEvent, path: c.hits.path } : { notMeasured: c.notMeasured ?? 'not measured' };
      },
    };
  },
};
