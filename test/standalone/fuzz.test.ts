// The fuzzing suite, bounded, against a real standalone server: structure-aware requests to
// the SDK and upload endpoints (test/fuzz/), each reply and the server as a whole held to the
// invariants of docs/ingest-limits.md. `npm run fuzz` runs the same for 100,000 cases.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectInvariantsHeld } from '../fuzz/expect-held.ts';
import { runFuzz } from '../fuzz/fuzz-ingest.ts';
import { FUZZ_ENV, FUZZ_INGEST_MEMORY_BYTES, standaloneTarget } from '../fuzz/fuzz-targets.ts';
import { provision, startServer, stopAndRemove, type StandaloneServer } from '../support/standalone-server.ts';

const CASES = Number(process.env.ERRATA_FUZZ_CASES ?? 1500);
// A fixed seed, so a failure here is a failure on every run; `npm run fuzz` picks new ones.
const SEED = Number(process.env.ERRATA_FUZZ_SEED ?? 20261124);

let server: StandaloneServer;

beforeAll(async () => {
  server = await startServer({ env: FUZZ_ENV });
});
afterAll(async () => {
  await stopAndRemove(server);
});

describe('fuzzing the standalone server', () => {
  it(`holds every invariant over ${CASES} structure-aware requests`, { timeout: 30 * 60_000 }, async () => {
    const target = await standaloneTarget(server, await provision(server, 'Fuzz'));
    const report = await runFuzz(target, { cases: CASES, seed: SEED, ingestMemoryBytes: FUZZ_INGEST_MEMORY_BYTES });
    expectInvariantsHeld(report, CASES);
  });
});
