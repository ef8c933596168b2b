// npm run bench:distributed — the same 70/30 load as bench:ingest, against one ingest process
// backed by Kafka, with one dispatcher and one mcp process on Postgres and ClickHouse (all on
// this machine, beside the servers). Prints figures; asserts nothing.
//   Max: closed loop, CONCURRENCY requests in flight, for MAX_SECONDS, against a bare node:http
//   server and then ingest; accepted events/s, per ingest CPU core, and the ratio of the two.
//   The dispatcher starts only afterwards: on two cores it would take CPU from ingest, and the
//   backlog it then works off measures processing on its own.
//   Half: open loop at half of ingest's maximum (or BENCH_OPEN_RATE events/s) for HALF_SECONDS,
//   dispatcher running: p50/p99 accept latency, and the time from accepted to listed by
//   `list_issues` through the mcp role (visibility-probe.ts; its probes go to a project of their
//   own, so the counts above stay the load's). Throughout: consumer lag every 2 s (read from Kafka); after each phase, the
//   time until every accepted event is queryable through the read API. Peak RSS of each role.
//   ClickHouse's share of the open loop is split into its query threads and the rest (the merges,
//   which also take in parts of the phase before; from its system.events counters). Last, the
//   bare node:http server at the open loop's rate: the floor of any HTTP server here at that rate.
//   The open loop's accept latency is split (latency-split.ts): the share of requests over 10,
//   25 and 50 ms as the load generator saw them, in ingest's own handling, and waiting for Kafka.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openKafkaQueue, type KafkaQueue } from '../../services/adapters/kafka/kafka-queue.ts';
import { createCluster, type Cluster } from '../support/distributed-cluster.ts';
import { INFRA_UP, readInfraEnv } from '../support/infra-env-file.ts';
import { listIssues } from '../support/issues.ts';
import type { RoleProcess } from '../support/role-process.ts';
import { runProcess, type Provisioned } from '../support/standalone-server.ts';
import { BODIES, CONCURRENCY, closedLoop, describe, emptyResult, openLoop, peakRssMb, percentile, startBare } from './load.ts';
import { processCpuSeconds, treeCpuSeconds } from './thread-cpu.ts';
import { describeVisibility, startVisibilityProbe } from './visibility-probe.ts';
import { describeLatencySplit } from './latency-split.ts';
import { metricsText } from '../support/metrics.ts';

const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 20);
const HALF_SECONDS = Number(process.env.BENCH_HALF_SECONDS ?? 30);
/** The open loop's rate when set; issue 20's target from accepted to listed is at 1,000 events/s. */
const OPEN_RATE = process.env.BENCH_OPEN_RATE === undefined ? undefined : Number(process.env.BENCH_OPEN_RATE);
if (OPEN_RATE !== undefined && !(OPEN_RATE > 0)) throw new Error('BENCH_OPEN_RATE must be a positive number of events a second');

/** The backing servers test/infra/up.sh started, by the PID files it keeps (lib.sh). */
const INFRA_PIDS = join(process.env.ERRATA_INFRA_RUN ?? '/tmp/errata-infra', 'pids');
const BACKING_SERVERS = ['kafka', 'postgres', 'clickhouse', 'minio'];

/** CPU seconds so far of every component an event passes through, by name: the roles and the backing servers with their child processes. */
function componentCpu(roles: RoleProcess[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const role of roles) out.set(role.role, treeCpuSeconds(role.child.pid!));
  for (const name of BACKING_SERVERS) {
    const pid = Number(readFileSync(join(INFRA_PIDS, `${name}.pid`), 'utf8').trim());
    out.set(name, treeCpuSeconds(pid));
  }
  return out;
}

interface ClickHouseCounters {
  querySeconds: number;
  inserted: number;
  merged: number;
}

/**
 * ClickHouse's own counters (system.events, server-wide since it started: the benchmark has the
 * test server to itself, whose config logs no queries): CPU of its query threads, rows inserted
 * and rows merged.
 */
async function clickHouseCounters(cluster: Cluster): Promise<ClickHouseCounters> {
  const rows = await cluster.clickhouse<{ event: string; value: string }>(
    "SELECT event, value FROM system.events WHERE event IN ('UserTimeMicroseconds', 'SystemTimeMicroseconds', 'InsertedRows', 'MergedRows')",
  );
  const value = (name: string) => Number(rows.find((row) => row.event === name)?.value ?? 0);
  return {
    querySeconds: (value('UserTimeMicroseconds') + value('SystemTimeMicroseconds')) / 1e6,
    inserted: value('InsertedRows'),
    merged: value('MergedRows'),
  };
}

/** ClickHouse's core-ms per event split into its query threads and the rest (merges, background), and its rows merged per row inserted. */
function describeClickHouse(before: ClickHouseCounters, after: ClickHouseCounters, totalSeconds: number, events: number): string {
  const queries = after.querySeconds - before.querySeconds;
  const perEvent = (seconds: number) => ((seconds * 1000) / events).toFixed(2);
  const inserted = after.inserted - before.inserted;
  const amplification = inserted > 0 ? ((after.merged - before.merged) / inserted).toFixed(1) : '-';
  return `${perEvent(totalSeconds)} = query threads ${perEvent(queries)} (the INSERTs, and the reads of mcp and this benchmark) + the rest ${perEvent(totalSeconds - queries)} (merges, background); rows merged per row inserted, server-wide: ${amplification}`;
}

/**
 * Core-ms per event of each component and in all, between two componentCpu snapshots; and the
 * total without the mcp role, which only answers this benchmark's reads: issue 20 counts the
 * processes an event passes through (ingest, queue, dispatcher, Postgres, ClickHouse). Postgres
 * and ClickHouse still include the reads mcp sends them.
 */
function describeComponentCpu(before: Map<string, number>, after: Map<string, number>, events: number): string {
  const parts = [...after].map(([name, s]) => ({ name, ms: ((s - (before.get(name) ?? 0)) * 1000) / events }));
  const total = parts.reduce((sum, p) => sum + p.ms, 0);
  const withoutMcp = total - (parts.find((p) => p.name === 'mcp')?.ms ?? 0);
  return `core-ms per event, all components: ${total.toFixed(2)} = ${parts.map((p) => `${p.name} ${p.ms.toFixed(2)}`).join(' + ')}; without mcp: ${withoutMcp.toFixed(2)}`;
}

async function totalLag(queue: KafkaQueue): Promise<number> {
  return (await queue.lag()).filter((l) => l.topic === 'events.received').reduce((sum, l) => sum + l.lag, 0);
}

/** Sum of issue counts through the read API: what an agent can query. */
async function queryable(mcp: RoleProcess, p: Provisioned): Promise<number> {
  return (await listIssues(mcp, p, 'status=all&limit=100')).reduce((sum, issue) => sum + issue.count, 0);
}

async function secondsUntilQueryable(mcp: RoleProcess, p: Provisioned, target: number): Promise<number> {
  const started = Date.now();
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const now = await queryable(mcp, p);
    if (now >= target) return (Date.now() - started) / 1000;
    if (now !== last) [last, lastChange] = [now, Date.now()];
    if (Date.now() - lastChange > 120_000) throw new Error(`processing stalled at ${now} of ${target} events`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function sampleLag(queue: KafkaQueue, into: string[]): () => void {
  const started = Date.now();
  const timer = setInterval(() => {
    const at = ((Date.now() - started) / 1000).toFixed(0);
    void totalLag(queue).then(
      (lag) => into.push(`${at}s: ${lag}`),
      () => into.push(`${at}s: ?`),
    );
  }, 2_000);
  return () => clearInterval(timer);
}

async function main() {
  const up = await runProcess('bash', [INFRA_UP], { timeoutMs: 40 * 60_000 });
  if (up.code !== 0) throw new Error(`npm run infra:up failed:\n${up.stderr}`);
  const avgBytes = BODIES.reduce((s, b) => s + Buffer.byteLength(b), 0) / BODIES.length;
  console.log(
    `distributed benchmark: ${BODIES.length} distinct bodies, mean ${(avgBytes / 1024).toFixed(1)} KiB; concurrency ${CONCURRENCY}; ${MAX_SECONDS} s max phase; ${HALF_SECONDS} s at ${OPEN_RATE ? `${OPEN_RATE}/s` : 'half of max'}`,
  );

  const bare = await startBare();
  const bareMax = await closedLoop(bare.url, MAX_SECONDS);
  bare.child.kill('SIGTERM');
  console.log(describe('bare node:http         (max)', bareMax));

  const cluster = await createCluster({
    infra: await readInfraEnv(),
    ingestProcesses: 1,
    env: {
      ERRATA_RATE_LIMIT_EVENTS_PER_MINUTE: '100000000',
      ERRATA_AGENT_RATE_LIMIT_PER_MINUTE: '100000',
      ERRATA_API_RATE_LIMIT_PER_MINUTE: '100000',
      ERRATA_CLICKHOUSE_BATCH_WAIT_MS: '200',
    },
  });
  try {
    const ingest = await cluster.startIngest(0);
    const mcp = await cluster.start('mcp');
    const p = await cluster.provision('Bench');
    // The dispatcher group's lag, read the way the dispatcher's errata_queue_lag reads it.
    const lagReader = await openKafkaQueue({
      brokers: cluster.env.ERRATA_KAFKA_BROKERS!.split(','),
      clientId: 'errata-bench',
      topicPrefix: cluster.env.ERRATA_KAFKA_TOPIC_PREFIX,
      topics: ['events.received'],
    });
    // Straight to the ingest process, not through the test address in front of it.
    const url = new URL(`${ingest.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`);

    const lag: string[] = [];
    let stopSampling = sampleLag(lagReader, lag);
    const cpuBefore = processCpuSeconds(ingest.child.pid!);
    const componentsBefore = componentCpu([ingest, mcp]);
    const max = await closedLoop(url, MAX_SECONDS);
    const ingestCpu = processCpuSeconds(ingest.child.pid!) - cpuBefore;
    const maxRate = max.accepted / max.seconds;
    console.log(describe('errata ingest + Kafka  (max)', max));
    console.log(
      `  ingest CPU: ${ingestCpu.toFixed(1)} s over ${max.seconds.toFixed(1)} s (${(ingestCpu / max.seconds).toFixed(2)} cores); accepted events/s per ingest core: ${(max.accepted / ingestCpu).toFixed(0)}`,
    );
    console.log(`  ratio errata/bare (accepted events/s): ${(maxRate / (bareMax.accepted / bareMax.seconds)).toFixed(3)}`);
    const dispatcher = await cluster.start('dispatcher');
    const maxQueryable = await secondsUntilQueryable(mcp, p, max.accepted);
    stopSampling();
    const componentsAfterMax = componentCpu([ingest, mcp, dispatcher]);
    console.log(
      `  dispatcher started after the load: all ${max.accepted} events queryable ${maxQueryable.toFixed(1)} s later (${(max.accepted / maxQueryable).toFixed(0)} events/s processed)`,
    );
    console.log(
      `  from the first request to every event queryable, ${describeComponentCpu(componentsBefore, componentsAfterMax, max.accepted)}`,
    );
    console.log(`  consumer lag (events.received, all partitions) every 2 s: ${lag.join(', ')}`);

    const clickHouseBeforeHalf = await clickHouseCounters(cluster);
    const halfRate = OPEN_RATE ?? Math.max(1, Math.round(maxRate / 2));
    const half = emptyResult();
    lag.length = 0;
    stopSampling = sampleLag(lagReader, lag);
    const probeProject = await cluster.provision('Probe');
    const probeUrl = new URL(`${ingest.url}/api/${probeProject.projectId}/envelope/?sentry_key=${probeProject.publicKey}`);
    const visibility = await startVisibilityProbe(mcp.url, probeUrl, probeProject.token, probeProject.projectSlug);
    const ingestMetricsBefore = await metricsText(ingest);
    await openLoop(url, halfRate, HALF_SECONDS, half);
    console.log(describe(`errata ingest + Kafka  (${halfRate}/s, ${OPEN_RATE ? 'BENCH_OPEN_RATE' : 'half of max'})`, half));
    console.log(`  ${describeLatencySplit(half.latenciesMs, ingestMetricsBefore, await metricsText(ingest))}`);
    const [probes, halfQueryable] = await Promise.all([
      visibility.stop(30_000),
      secondsUntilQueryable(mcp, p, max.accepted + half.accepted),
    ]);
    stopSampling();
    console.log(`  all ${half.accepted} accepted events queryable ${halfQueryable.toFixed(1)} s after the last request`);
    console.log(`  ${describeVisibility(probes)}`);
    const componentsAfterHalf = componentCpu([ingest, mcp, dispatcher]);
    console.log(
      `  over the load and until queryable, ${describeComponentCpu(componentsAfterMax, componentsAfterHalf, half.accepted)} (mcp: the probe's list_issues calls and this benchmark's own polling)`,
    );
    const clickHouseSeconds = componentsAfterHalf.get('clickhouse')! - componentsAfterMax.get('clickhouse')!;
    console.log(
      `  of which ClickHouse ${describeClickHouse(clickHouseBeforeHalf, await clickHouseCounters(cluster), clickHouseSeconds, half.accepted)}`,
    );
    console.log(`  consumer lag every 2 s: ${lag.join(', ')}`);
    for (const role of [ingest, dispatcher, mcp]) {
      console.log(`  peak RSS of ${role.role}: ${peakRssMb(role.child.pid!).toFixed(0)} MB`);
    }
    await lagReader.close();
    await bareFloor(halfRate);
  } finally {
    await cluster.destroy();
  }
}

/** The bare node:http server's CPU per request at the open loop's rate: what answering HTTP alone costs here. */
async function bareFloor(rate: number): Promise<void> {
  const floor = await startBare();
  try {
    const before = treeCpuSeconds(floor.child.pid!);
    const result = await openLoop(floor.url, rate, HALF_SECONDS, emptyResult());
    if (result.accepted === 0) throw new Error('the bare server accepted nothing');
    const perRequest = ((treeCpuSeconds(floor.child.pid!) - before) * 1000) / result.accepted;
    console.log(
      `bare node:http         (${rate}/s): ${perRequest.toFixed(2)} core-ms per request (the floor of ingest's share at this rate); ` +
        `p50 ${percentile(result.latenciesMs, 50).toFixed(2)} ms, p99 ${percentile(result.latenciesMs, 99).toFixed(2)} ms with the cluster idle`,
    );
  } finally {
    floor.child.kill('SIGTERM');
  }
}

await main();
