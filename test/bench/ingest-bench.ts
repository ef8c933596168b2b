// npm run bench:ingest — ingest throughput and latency of a standalone server under a 70/30 mix
// of ~2 KB and ~20 KB error envelopes over 100 fingerprints, compared in the same run with a
// bare node:http server that only reads and answers. Prints figures; asserts nothing.
//   Steady: open loop at RATE events/s for STEADY_SECONDS on a fresh server, then the time until
//   the dispatcher has processed everything accepted (the target: keeping up at 1,000/s).
//   Max: closed loop, CONCURRENCY requests in flight, for MAX_SECONDS (the bare server too).
// Peak RSS of the server process is read from /proc/<pid>/status (VmHWM).
import { readdirSync, readFileSync } from 'node:fs';
import { metricTotal } from '../support/metrics.ts';
import { provision, removeDir, startServer, type StandaloneServer } from '../support/standalone-server.ts';
import { BODIES, CONCURRENCY, closedLoop, describe, openLoop, peakRssMb, startBare, type Result } from './load.ts';

const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 15);
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 60);

/** Waits until `target` events are processed; gives up after a minute without progress. */
async function waitProcessed(server: StandaloneServer, target: number): Promise<void> {
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const processed = await processedEvents(server);
    if (processed >= target) return;
    if (processed !== last) [last, lastChange] = [processed, Date.now()];
    if (Date.now() - lastChange > 60_000) throw new Error(`processing stalled at ${processed} of ${target} events`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function processedEvents(server: StandaloneServer): Promise<number> {
  return metricTotal(server, 'errata_pipeline_processed_total', { category: 'error' });
}

/** Upper bounds of the buckets holding the 50th and 99th percentile of the time until processed. */
async function eventAgePercentiles(server: StandaloneServer): Promise<string> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const buckets = [...text.matchAll(/^errata_pipeline_event_age_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm)].map((m) => ({
    le: m[1]!,
    count: Number(m[2]),
  }));
  const total = buckets.at(-1)?.count ?? 0;
  const bound = (p: number) => buckets.find((b) => b.count >= (p / 100) * total)?.le ?? '?';
  return `p50 <= ${bound(50)} s, p99 <= ${bound(99)} s (histogram buckets, ${total} events)`;
}

/** CPU seconds used so far by each thread of the process, by thread id. */
function threadCpuSeconds(pid: number): Map<string, number> {
  const ticksPerSecond = 100; // USER_HZ, 100 on Linux
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(tid, (Number(fields[11]) + Number(fields[12])) / ticksPerSecond);
  }
  return out;
}

/**
 * Server CPU per event between two snapshots, split into the main thread (HTTP and queue
 * appends), the busiest other thread (the backend thread: database and dispatcher) and the
 * rest (V8's garbage-collection and compiler helpers, libuv's pool doing zlib and fsync).
 */
function describeCpu(pid: number, before: Map<string, number>, after: Map<string, number>, events: number): string {
  const used = [...after].map(([tid, seconds]) => ({ tid, ms: ((seconds - (before.get(tid) ?? 0)) * 1000) / events }));
  const main = used.find((t) => t.tid === String(pid))?.ms ?? 0;
  const others = used.filter((t) => t.tid !== String(pid)).sort((a, b) => b.ms - a.ms);
  const backend = others[0]?.ms ?? 0;
  const rest = others.slice(1).reduce((sum, t) => sum + t.ms, 0);
  return `server CPU per event: ${(main + backend + rest).toFixed(2)} ms = main thread ${main.toFixed(2)} + backend thread ${backend.toFixed(2)} + helper threads ${rest.toFixed(2)}`;
}

async function main() {
  const avgBytes = BODIES.reduce((s, b) => s + Buffer.byteLength(b), 0) / BODIES.length;
  console.log(
    `ingest benchmark: ${BODIES.length} distinct bodies, mean ${(avgBytes / 1024).toFixed(1)} KiB; concurrency ${CONCURRENCY}; ${MAX_SECONDS} s max phase; ${RATE}/s for ${STEADY_SECONDS} s steady phase`,
  );

  const bare = await startBare();
  const bareMax = await closedLoop(bare.url, MAX_SECONDS);
  bare.child.kill('SIGTERM');
  console.log(describe('bare node:http   (max)', bareMax));

  const server = await startServer({ env: { ERRATA_RATE_LIMIT_EVENTS_PER_MINUTE: '100000000', ERRATA_LOG_LEVEL: 'warn' } });
  try {
    const p = await provision(server, 'Bench');
    const url = new URL(`${server.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`);

    // The target first, on a fresh server: a sustained rate, and whether processing keeps up.
    const steady: Result = { sent: 0, accepted: 0, failed: 0, seconds: 0, latenciesMs: [] };
    const backlog: string[] = [];
    const steadyStarted = Date.now();
    const sampler = setInterval(() => {
      const elapsed = Math.round((Date.now() - steadyStarted) / 1000);
      void processedEvents(server).then((processed) => backlog.push(`${elapsed}s: ${steady.accepted - processed}`));
    }, 10_000);
    await openLoop(url, RATE, STEADY_SECONDS, steady);
    clearInterval(sampler);
    const steadySent = Date.now();
    const backlogAtEnd = steady.accepted - (await processedEvents(server));
    console.log(describe(`errata standalone (steady ${RATE}/s)`, steady));
    await waitProcessed(server, steady.accepted);
    console.log(`  backlog (accepted, not yet processed) every 10 s: ${backlog.join(', ')}`);
    console.log(
      `  backlog when the load stopped: ${backlogAtEnd} events; all processed ${((Date.now() - steadySent) / 1000).toFixed(1)} s later`,
    );
    console.log(`  time from accepted to processed: ${await eventAgePercentiles(server)}`);
    console.log(`  peak RSS of the server process so far: ${peakRssMb(server.child.pid!).toFixed(0)} MB`);

    // Then as fast as it will go.
    const before = await processedEvents(server);
    const cpuBefore = threadCpuSeconds(server.child.pid!);
    const loadCpuBefore = process.cpuUsage();
    const max = await closedLoop(url, MAX_SECONDS);
    const maxSent = Date.now();
    console.log(describe('errata standalone (max)', max));
    await waitProcessed(server, before + max.accepted);
    const maxDrain = (Date.now() - maxSent) / 1000;
    const loadCpu = process.cpuUsage(loadCpuBefore);
    console.log(`  ${describeCpu(server.child.pid!, cpuBefore, threadCpuSeconds(server.child.pid!), max.accepted)}`);
    console.log(
      `  load generator CPU per event (same machine): ${((loadCpu.user + loadCpu.system) / 1000 / max.accepted).toFixed(2)} ms`,
    );
    console.log(
      `  processing caught up ${maxDrain.toFixed(1)} s after the last request; processing rate ${(max.accepted / (max.seconds + maxDrain)).toFixed(0)} events/s`,
    );
    console.log(
      `  ratio errata/bare (accepted events/s, max phase): ${(max.accepted / max.seconds / (bareMax.accepted / bareMax.seconds)).toFixed(3)}`,
    );
    console.log(`  peak RSS of the server process over both phases: ${peakRssMb(server.child.pid!).toFixed(0)} MB`);
  } finally {
    await server.stop();
    await removeDir(server.dataDir);
  }
}

await main();
