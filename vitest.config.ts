import { defineConfig } from 'vitest/config';
import TierSequencer from './test/helpers/sequencer.js';

// Three tiers, one project each (`vitest run --project unit|tree|kernel`; npm test runs them in that order):
// unit has no kernel tree and runs its files in parallel, in shared module graphs (isolate: false: re-importing
// kseries for each of its 49 files cost more than half its 20 s budget; its modules keep no state a file could
// leak); tree and kernel share one clone of the real tree (made by global-setup.ts), its lock and two cores, so their
// files run one at a time.
const realTree = {
  globalSetup: ['test/helpers/global-setup.ts'],
  fileParallelism: false,
  hookTimeout: 20 * 60 * 1000,
};

export default defineConfig({
  test: {
    setupFiles: ['test/helpers/setup.ts'],
    sequence: { sequencer: TierSequencer },
    // vitest leaves a core free by default; the unit tier's files wait on git and gcc as much as they compute.
    maxWorkers: 2,
    projects: [
      // A guard against a hang, not a budget: a busy machine (a kernel build beside) can triple a file's time.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 5 * 60 * 1000, isolate: false } },
      { extends: true, test: { name: 'tree', include: ['test/tree/**/*.test.ts'], testTimeout: 10 * 60 * 1000, ...realTree } },
      // Generous: from an empty cache one test may build several kernels (a test never asserts a time).
      { extends: true, test: { name: 'kernel', include: ['test/kernel/**/*.test.ts'], testTimeout: 45 * 60 * 1000, ...realTree } },
    ],
  },
});
