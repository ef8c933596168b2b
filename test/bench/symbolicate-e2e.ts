// The end-to-end half of npm run bench:symbolicate: a standalone server with the bundle and its
// map uploaded by the real sentry-cli, then events with the same 20 minified frames, with the
// bundle's Debug ID (symbolicated) and without it (symbolication skipped), alternating so that
// both see the same machine. Latency is from the envelope's POST until the server counts the
// event processed (errata_pipeline_processed_total, polled every 2 ms, which costs both sides
// alike); the burst is the time until a concurrent batch is all processed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { largeBundleEvent, uploadLargeBundle, type LargeBundle } from '../support/large-bundle.ts';
import { metricTotal } from '../support/metrics.ts';
import { eventEnvelope, rawRequest } from '../support/raw-http.ts';
import { provision, startServer, stopAndRemove } from '../support/standalone-server.ts';
import { peakRssMb, percentile } from './load.ts';

const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 200);
const BURST_EVENTS = Number(process.env.BENCH_BURST_EVENTS ?? 1000);

export async function measureIngestToIssue(bundle: LargeBundle): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'errata-bench-maps-'));
  const server = await startServer();
  try {
    const p = await provision(server, 'Maps Bench');
    const { debugId, frames } = await uploadLargeBundle(server, p.projectSlug, dir, bundle);
    const url = `${server.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`;
    const send = async (symbolicated: boolean) => {
      const response = await rawRequest(url, {
        body: eventEnvelope(largeBundleEvent(frames, symbolicated ? debugId : undefined)),
      });
      if (response.status !== 200) throw new Error(`ingest answered ${response.status}: ${response.body}`);
    };
    const processed = () => metricTotal(server, 'errata_pipeline_processed_total', { category: 'error' });

    const firstStarted = performance.now();
    const target = (await processed()) + 1;
    await send(true);
    await untilProcessed(target, processed);
    const firstMs = performance.now() - firstStarted;

    const latency = { on: [] as number[], off: [] as number[] };
    for (let i = 0; i < LATENCY_EVENTS; i++) {
      const on = i % 2 === 0;
      const before = await processed();
      const started = performance.now();
      await send(on);
      await untilProcessed(before + 1, processed);
      latency[on ? 'on' : 'off'].push(performance.now() - started);
    }
    const burst = { on: 0, off: 0 };
    for (const on of [false, true, false, true]) {
      const before = await processed();
      const started = performance.now();
      await Promise.all(Array.from({ length: BURST_EVENTS }, () => send(on)));
      await untilProcessed(before + BURST_EVENTS, processed);
      burst[on ? 'on' : 'off'] += (performance.now() - started) / 2;
    }

    const line = (label: string, values: number[]) => {
      values.sort((a, b) => a - b);
      return `${label} p50 ${percentile(values, 50).toFixed(1)} ms, p99 ${percentile(values, 99).toFixed(1)} ms`;
    };
    console.log(
      `ingest to issue, standalone server, ${frames.length} frames per event, the map ${(bundle.map.length / 1024 / 1024).toFixed(1)} MB:`,
    );
    console.log(`  first event after the upload (loads and parses the map): ${firstMs.toFixed(0)} ms`);
    console.log(`  ${line('symbolication on: ', latency.on)}  (${latency.on.length} sequential events)`);
    console.log(`  ${line('symbolication off:', latency.off)}  (${latency.off.length}, alternating with the above)`);
    console.log(
      `  burst of ${BURST_EVENTS} concurrent events until all processed (mean of two): on ${burst.on.toFixed(0)} ms, ` +
        `off ${burst.off.toFixed(0)} ms (${(burst.on / burst.off).toFixed(2)}x)`,
    );
    console.log(`  server peak RSS ${peakRssMb(server.child.pid!).toFixed(0)} MB`);
  } finally {
    await stopAndRemove(server);
    await rm(dir, { recursive: true, force: true });
  }
}

/** Polls every 2 ms until the processed count reaches `target`. */
async function untilProcessed(target: number, processed: () => Promise<number>) {
  const deadline = Date.now() + 120_000;
  while ((await processed()) < target) {
    if (Date.now() > deadline) throw new Error('the events were not processed within 2 minutes');
    await new Promise((r) => setTimeout(r, 2));
  }
}
