import { defineConfig } from 'vitest/config';

// Two suites: unit tests beside the code, and the standalone end-to-end suite that drives a
// real server process with real SDK clients. Distributed suites join later.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['services/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'standalone',
          include: ['test/standalone/**/*.test.ts'],
          globalSetup: ['test/standalone/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
