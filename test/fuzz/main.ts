// npm run fuzz [-- --cases N] [-- --seed S]: the fuzzing suite at length (100,000 cases by
// default) against a fresh standalone server; npm run fuzz:distributed does the same against
// two ingest processes and two dispatchers on the real servers of npm run infra:up. Prints the
// figures (cases, replies by status, worst latency, /healthz, peak RSS, the ledger) and exits
// 1 when an invariant broke, with the seed to replay it.
import { parseArgs } from 'node:util';
import { startFullCluster } from '../support/distributed-cluster.ts';
import { INFRA_UP, readInfraEnv } from '../support/infra-env-file.ts';
import { provision, runProcess, startServer, stopAndRemove } from '../support/standalone-server.ts';
import { runFuzz, type FuzzReport } from './fuzz-ingest.ts';
import { distributedTarget, FUZZ_ENV, FUZZ_INGEST_MEMORY_BYTES, standaloneTarget } from './fuzz-targets.ts';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '100000' },
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    distributed: { type: 'boolean', default: false },
  },
});
const options = { cases: Number(values.cases), seed: Number(values.seed), ingestMemoryBytes: FUZZ_INGEST_MEMORY_BYTES };

async function standalone(): Promise<FuzzReport> {
  const server = await startServer({ env: FUZZ_ENV });
  try {
    return await runFuzz(await standaloneTarget(server, await provision(server, 'Fuzz')), options);
  } finally {
    await stopAndRemove(server);
  }
}

async function distributed(): Promise<FuzzReport> {
  const up = await runProcess('bash', [INFRA_UP], { timeoutMs: 40 * 60_000 });
  if (up.code !== 0) throw new Error(`npm run infra:up failed:\n${up.stderr}`);
  const { cluster, ingests, dispatchers, p } = await startFullCluster(await readInfraEnv(), 'Fuzz', FUZZ_ENV);
  try {
    return await runFuzz(await distributedTarget(cluster, ingests, dispatchers, p), options);
  } finally {
    await cluster.destroy();
  }
}

console.log(
  `fuzzing the ${values.distributed ? 'distributed' : 'standalone'} server: ${options.cases} cases, seed ${options.seed}`,
);
const report = await (values.distributed ? distributed() : standalone());
process.exit(report.violations.length === 0 ? 0 : 1);
