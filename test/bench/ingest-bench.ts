// npm run bench:ingest — ingest throughput and latency of a standalone server under a 70/30 mix
// of ~2 KB and ~20 KB error envelopes over 100 fingerprints, compared in the same run with a
// bare node:http server that only reads and answers. Prints figures; asserts nothing.
//   Idle: a fresh server's resident memory after IDLE_SECONDS, and where it goes; its CPU a
//   second over the second half of that wait.
//   Sustained: for each of RATES, a fresh server under an open loop at that rate for
//   STEADY_SECONDS; whether it kept up (issue 20: at most 1% of requests failed, at least 99% of
//   what was accepted processed within 30 s of the load's end, the backlog never growing for more
//   than 10 s), core-ms per event over the load and its drain, peak RSS and where the memory went
//   in the largest of the samples taken every 2 s. At the first rate, the
//   time from accepted to listed by `list_issues` (visibility-probe.ts).
//   Max: closed loop, CONCURRENCY requests in flight, for MAX_SECONDS (the bare server too); then,
//   while the backlog is worked off, how long the health check and an issue list take.
// Peak RSS of the server process is read from /proc/<pid>/status (VmHWM). The server runs with
// the node flags of `npm start` (test/support/standalone-server.ts).
import { metricTotal } from '../support/metrics.ts';
import { provision, removeDir, startServer, type StandaloneServer } from '../support/standalone-server.ts';
import { BODIES, CONCURRENCY, closedLoop, describe, emptyResult, openLoop, peakRssMb, percentile, startBare } from './load.ts';
import { memoryBreakdown, readThreadMemory, type MemorySample } from './memory-breakdown.ts';
import { describeThreadCpu, processCpuSeconds, threadCpuSeconds, threadCpuSplit } from './thread-cpu.ts';
import { describeReads, startReadSampler } from './reads-under-backlog.ts';
import { describeVisibility, startVisibilityProbe } from './visibility-probe.ts';

const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 15);
const RATES = (process.env.BENCH_RATES ?? process.env.BENCH_RATE ?? '1000,2000,3000').split(',').map(Number);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 20);
const SAMPLE_SECONDS = 2;
const SERVER_ENV = {
  ERRATA_RATE_LIMIT_EVENTS_PER_MINUTE: '100000000',
  ERRATA_AGENT_RATE_LIMIT_PER_MINUTE: '100000',
  ERRATA_API_RATE_LIMIT_PER_MINUTE: '100000',
  ERRATA_LOG_LEVEL: 'warn',
};
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 60);

/** Waits until `target` events are processed or `until` (ms since the epoch) passes; gives up after a minute without progress. */
async function waitProcessed(server: StandaloneServer, target: number, until = Infinity): Promise<void> {
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const processed = await processedEvents(server);
    if (processed >= target || Date.now() >= until) return;
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

/** The longest stretch, in seconds, over which the backlog grew from one sample to the next. */
function longestGrowth(samples: number[]): number {
  let longest = 0;
  let run = 0;
  for (let i = 1; i < samples.length; i++) {
    run = samples[i]! > samples[i - 1]! ? run + SAMPLE_SECONDS : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/**
 * Every SAMPLE_SECONDS during an open loop, one sample at a time: the backlog, and where the memory
 * went in the sample with the largest RSS (the kernel's VmHWM says only how much). A sample that
 * fails is reported and skipped.
 */
function startSampler(server: StandaloneServer, accepted: () => number) {
  const backlog: number[] = [];
  let largest: MemorySample | undefined;
  let failures = 0;
  const started = Date.now();
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const sample = async () => {
    try {
      const processed = await processedEvents(server);
      backlog.push(accepted() - processed);
      const memory = await memoryBreakdown(server.child.pid!, await readThreadMemory(server.url));
      if (memory.rssKb > (largest?.rssKb ?? 0)) largest = memory;
    } catch (error) {
      if (failures++ === 0) console.log(`  a sample failed (${String(error)}); the samples skip it`);
    }
  };
  const schedule = (n: number) => {
    // On the clock (every SAMPLE_SECONDS from the start), not after the last sample ended.
    timer = setTimeout(
      () => {
        inFlight = sample().then(() => {
          if (running) schedule(n + 1);
        });
      },
      Math.max(0, started + n * SAMPLE_SECONDS * 1000 - Date.now()),
    );
  };
  schedule(1);
  return {
    async stop() {
      running = false;
      clearTimeout(timer);
      await inFlight;
      return { backlog, largest };
    },
  };
}

/** One rate on a fresh server: prints its figures; returns whether it kept up. */
async function sustained(rate: number, probe: boolean): Promise<boolean> {
  const server = await startServer({ env: SERVER_ENV });
  try {
    const p = await provision(server, 'Bench');
    const url = new URL(`${server.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`);
    const pid = server.child.pid!;
    const result = emptyResult();
    const sampler = startSampler(server, () => result.accepted);
    const visibility = probe ? await startVisibilityProbe(server.url, url, p.token, p.projectSlug) : undefined;
    const cpuBefore = processCpuSeconds(pid);
    const threadsBefore = threadCpuSeconds(pid);
    await openLoop(url, rate, STEADY_SECONDS, result);
    const loadEnded = Date.now();
    const { backlog, largest } = await sampler.stop();
    const [probes] = await Promise.all([visibility?.stop(30_000), waitProcessed(server, result.accepted, loadEnded + 30_000)]);
    const within30s = Math.min(await processedEvents(server), result.accepted);
    await waitProcessed(server, result.accepted);
    const drained = (Date.now() - loadEnded) / 1000;
    const coreMs = ((processCpuSeconds(pid) - cpuBefore) * 1000) / result.accepted;
    const threads = threadCpuSplit(pid, threadsBefore, threadCpuSeconds(pid), result.accepted);
    const failedShare = result.failed / Math.max(1, result.sent);
    const storedShare = within30s / Math.max(1, result.accepted);
    const growth = longestGrowth(backlog);
    const keptUp = failedShare <= 0.01 && storedShare >= 0.99 && growth <= 10;
    console.log(describe(`errata standalone (open loop ${rate}/s)`, result));
    console.log(
      `  backlog every ${SAMPLE_SECONDS} s (max ${Math.max(0, ...backlog)}, longest growth ${growth} s): ${backlog.filter((_, i) => i % 5 === 4).join(', ')} (every 10 s)`,
    );
    console.log(
      `  processed within 30 s of the load's end: ${(storedShare * 100).toFixed(1)}%; all ${drained.toFixed(1)} s after it; time from accepted to processed ${await eventAgePercentiles(server)}`,
    );
    if (probes) console.log(`  ${describeVisibility(probes)}`);
    const probeNote = probe ? ", the probe's list_issues calls included" : '';
    console.log(
      `  core-ms per event (whole process, load and drain${probeNote}): ${coreMs.toFixed(3)} (main thread ${threads.main.toFixed(2)}, backend thread ${threads.backend.toFixed(2)}, helper threads ${threads.helpers.toFixed(2)}); peak RSS ${peakRssMb(pid).toFixed(0)} MB`,
    );
    if (largest) console.log(`  the largest of the samples every ${SAMPLE_SECONDS} s: ${largest.line}`);
    console.log(`  kept up: ${keptUp ? 'yes' : 'no'}`);
    return keptUp;
  } finally {
    await server.stop();
    await removeDir(server.dataDir);
  }
}

async function main() {
  const avgBytes = BODIES.reduce((s, b) => s + Buffer.byteLength(b), 0) / BODIES.length;
  console.log(
    `ingest benchmark: ${BODIES.length} distinct bodies, mean ${(avgBytes / 1024).toFixed(1)} KiB; concurrency ${CONCURRENCY}; ${MAX_SECONDS} s max phase; open loop at ${RATES.join(', ')}/s for ${STEADY_SECONDS} s each`,
  );

  const bare = await startBare();
  const bareMax = await closedLoop(bare.url, MAX_SECONDS);
  bare.child.kill('SIGTERM');
  console.log(describe('bare node:http   (max)', bareMax));

  // Each rate on a fresh server: what one rate left behind (a backlog, a grown heap) does not
  // weigh on the next.
  let keptUp: number | undefined;
  for (const [i, rate] of RATES.entries()) {
    if ((await sustained(rate, i === 0)) && rate > (keptUp ?? 0)) keptUp = rate;
  }
  console.log(`highest rate that kept up: ${keptUp === undefined ? 'none of those tried' : `${keptUp} events/s`}`);

  const server = await startServer({ env: SERVER_ENV });
  try {
    const p = await provision(server, 'Bench');
    const url = new URL(`${server.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`);
    // CPU over the idle wait's second half: the first has the start's own work in it.
    await new Promise((r) => setTimeout(r, (IDLE_SECONDS * 1000) / 2));
    const idleCpuBefore = threadCpuSeconds(server.child.pid!);
    await new Promise((r) => setTimeout(r, (IDLE_SECONDS * 1000) / 2));
    const idleCpu = threadCpuSplit(server.child.pid!, idleCpuBefore, threadCpuSeconds(server.child.pid!), IDLE_SECONDS / 2);
    console.log(
      `idle, ${IDLE_SECONDS} s after start: ${(await memoryBreakdown(server.child.pid!, await readThreadMemory(server.url))).line}`,
    );
    console.log(
      `idle CPU over the last ${IDLE_SECONDS / 2} s: ${idleCpu.all.toFixed(1)} ms a second = main thread ${idleCpu.main.toFixed(1)} + the others (backend, V8's and libuv's helpers) ${(idleCpu.backend + idleCpu.helpers).toFixed(1)}`,
    );

    // Then as fast as it will go.
    const before = await processedEvents(server);
    const cpuBefore = threadCpuSeconds(server.child.pid!);
    const loadCpuBefore = process.cpuUsage();
    const max = await closedLoop(url, MAX_SECONDS);
    const maxSent = Date.now();
    console.log(describe('errata standalone (max)', max));
    const reads = startReadSampler({
      url: server.url,
      issuesPath: `/api/v1/organizations/${p.organization}/projects/${p.projectSlug}/issues?limit=25`,
      token: p.token,
    });
    await waitProcessed(server, before + max.accepted);
    const maxDrain = (Date.now() - maxSent) / 1000;
    const readTimes = await reads.stop();
    const loadCpu = process.cpuUsage(loadCpuBefore);
    console.log(`  ${describeThreadCpu(server.child.pid!, cpuBefore, threadCpuSeconds(server.child.pid!), max.accepted)}`);
    console.log(
      `  load generator CPU per event (same machine): ${((loadCpu.user + loadCpu.system) / 1000 / max.accepted).toFixed(2)} ms`,
    );
    console.log(
      `  processing caught up ${maxDrain.toFixed(1)} s after the last request; processing rate ${(max.accepted / (max.seconds + maxDrain)).toFixed(0)} events/s`,
    );
    console.log(
      `  ratio errata/bare (accepted events/s, max phase): ${(max.accepted / max.seconds / (bareMax.accepted / bareMax.seconds)).toFixed(3)}`,
    );
    console.log(`  ${describeReads(readTimes)}`);
    console.log(`  peak RSS of the server process: ${peakRssMb(server.child.pid!).toFixed(0)} MB`);
    console.log(`  after the max phase: ${(await memoryBreakdown(server.child.pid!, await readThreadMemory(server.url))).line}`);
  } finally {
    await server.stop();
    await removeDir(server.dataDir);
  }
}

await main();
