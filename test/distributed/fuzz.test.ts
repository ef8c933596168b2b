// The fuzzing suite, bounded, against the distributed roles: two ingest processes behind one
// address and two dispatchers, on real Kafka, Postgres, ClickHouse and MinIO, held to the same
// invariants as the standalone server (docs/ingest-limits.md). `npm run fuzz:distributed` runs
// the same for 100,000 cases.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectInvariantsHeld } from '../fuzz/expect-held.ts';
import { runFuzz } from '../fuzz/fuzz-ingest.ts';
import { distributedTarget, FUZZ_ENV, FUZZ_INGEST_MEMORY_BYTES } from '../fuzz/fuzz-targets.ts';
import { startFullCluster, type FullCluster } from '../support/distributed-cluster.ts';
import { infraEnv } from '../support/infra-env.ts';

const CASES = Number(process.env.ERRATA_FUZZ_CASES ?? 1000);
const SEED = Number(process.env.ERRATA_FUZZ_SEED ?? 20261125);

let full: FullCluster;

beforeAll(async () => {
  full = await startFullCluster(infraEnv(), 'Fuzz', FUZZ_ENV);
});
afterAll(async () => {
  await full?.cluster.destroy();
});

describe('fuzzing the distributed ingest and dispatchers', () => {
  it(`holds every invariant over ${CASES} structure-aware requests`, { timeout: 30 * 60_000 }, async () => {
    const target = await distributedTarget(full.cluster, full.ingests, full.dispatchers, full.p);
    const report = await runFuzz(target, { cases: CASES, seed: SEED, ingestMemoryBytes: FUZZ_INGEST_MEMORY_BYTES });
    expectInvariantsHeld(report, CASES);
  });
});
