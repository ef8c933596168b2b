import { defineConfig } from 'vitest/config';

// Three suites: unit tests beside the code; the standalone end-to-end suite that drives a real
// server process with real SDK clients; and the distributed suite (adapter contracts against
// real Postgres, ClickHouse, Kafka and MinIO, then the three roles as separate processes),
// which `npm test` leaves out and `npm run test:distributed` runs.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['services/**/*.test.ts', 'operator/**/*.test.ts', 'examples/**/*.test.ts'],
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
      {
        test: {
          name: 'distributed',
          include: ['test/distributed/**/*.test.ts'],
          globalSetup: ['test/distributed/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
