import { defineConfig } from 'vitest/config';

// Four suites: unit tests beside the code; the standalone end-to-end suite that drives a real
// server process with real SDK clients; and the distributed suite (adapter contracts against
// real Postgres, ClickHouse, Kafka and MinIO, then the three roles as separate processes),
// which `npm test` leaves out and `npm run test:distributed` runs; and the operator suite against
// a real kube-apiserver, run by `npm run test:operator`; and the cluster suite, the operator and
// the roles as pods of Errata's image on a real single-node cluster, run by `npm run test:cluster`.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['services/**/*.test.{ts,tsx}', 'operator/**/*.test.ts', 'examples/**/*.test.ts', 'charts/**/*.test.ts'],
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
          name: 'operator',
          include: ['test/operator/**/*.test.ts'],
          globalSetup: ['test/operator/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 60 * 60_000,
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
      {
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          globalSetup: ['test/cluster/global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 60 * 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
