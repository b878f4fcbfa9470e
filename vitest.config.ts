import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // Integration tests share one kernel tree, its lock and two cores: one file at a time.
    fileParallelism: false,
    // Generous: a cold cache builds several kernels in one test (a test never asserts a time).
    testTimeout: 45 * 60 * 1000,
    hookTimeout: 20 * 60 * 1000,
  },
});
