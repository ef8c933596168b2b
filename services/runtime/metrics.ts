// Every Prometheus metric Errata exports, `errata_`-prefixed, on one registry per process
// (served at /metrics by every role). Roles record into these; nothing else creates metrics.
import v8 from 'node:v8';
import {
  AggregatorRegistry,
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type MetricObjectWithValues,
  type MetricValue,
} from 'prom-client';
import type { DataCategory, OutcomeReason, OutcomeRecorder, OutcomeStage } from '../core/outcomes.ts';
import type { Queue } from '../core/ports/queue.ts';
import { VERSION } from './version.ts';

export type Metrics = ReturnType<typeof createMetrics>;

export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

/** What a process runs, as errata_build_info's `role` says it. */
type MetricsRole = 'standalone' | 'ingest' | 'mcp' | 'dispatcher' | 'operator';

/**
 * How often the event-loop delay figures (errata_nodejs_eventloop_lag_{min,max,mean,stddev,pNN}
 * _seconds) sample the loop, in ms. Each figure is the time between two samples, so this is its
 * floor (about 0.1 s at rest) and a stall shows as what exceeds it; a stall shorter than this
 * may fall between two samples. errata_nodejs_eventloop_lag_seconds (one setImmediate's delay,
 * at each scrape) does not depend on it. prom-client's default of 10 woke an idle process 100
 * times a second, most of an idle server's main-thread CPU (8-9.5 ms a second against 1-1.5 at
 * 100; docs/benchmarks.md).
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * A process's registry; `role` names what it runs (for errata_build_info). A worker thread
 * passes `processMetrics: false` instead: process-wide figures (memory, CPU, event loop, build
 * info) are reported once, by the main thread, whose /metrics adds the thread's figures.
 */
export function createMetrics(options: { role: MetricsRole } | { processMetrics: false }) {
  const registry = new Registry();
  const registers = [registry];
  if ('role' in options) {
    collectDefaultMetrics({ register: registry, prefix: 'errata_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    // Always 1: a join on it (`* on(instance) group_left(version) errata_build_info`) lets any
    // alert or panel say which version and role misbehaves.
    new Gauge({
      name: 'errata_build_info',
      help: 'Always 1; its labels say which Errata version and role this process runs.',
      labelNames: ['version', 'role'] as const,
      registers,
    }).set({ version: VERSION, role: options.role }, 1);
  }
  /** Other registries (another thread's) whose figures /metrics adds to this one's. */
  const sources: Array<() => Promise<MetricsJson>> = [];
  const thread = 'role' in options ? 'main' : 'backend';
  new Gauge({
    name: 'errata_thread_heap_bytes',
    help: 'Memory of each thread of the process: V8 heap used, total and limit, external memory (WebAssembly included) and array buffers.',
    labelNames: ['thread', 'kind'] as const,
    registers,
    collect() {
      const heap = v8.getHeapStatistics();
      const memory = process.memoryUsage();
      this.set({ thread, kind: 'used' }, heap.used_heap_size);
      this.set({ thread, kind: 'total' }, heap.total_heap_size);
      // The size V8 ends the thread at ("heap out of memory"): Node's, from the memory it sees, or
      // NODE_OPTIONS'; for the standalone backend thread, backend-heap.ts.
      this.set({ thread, kind: 'limit' }, heap.heap_size_limit);
      this.set({ thread, kind: 'external' }, memory.external);
      this.set({ thread, kind: 'array_buffers' }, memory.arrayBuffers);
    },
  });
  return {
    registry,
    sources,
    httpRequests: new Counter({
      name: 'errata_http_requests_total',
      help: 'HTTP requests answered, by route, method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'errata_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route, method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    httpConnectionsDropped: new Counter({
      name: 'errata_http_connections_dropped_total',
      help: 'Connections closed as they arrived: server_full (ERRATA_HTTP_MAX_CONNECTIONS open) or client_share (ERRATA_HTTP_MAX_CONNECTIONS_PER_CLIENT held by its address); or mid-request: slow_body (a body slower than ERRATA_HTTP_BODY_TIMEOUT_SECONDS allows).',
      labelNames: ['reason'] as const,
      registers,
    }),
    ingestRequests: new Counter({
      name: 'errata_ingest_requests_total',
      help: 'SDK requests received, by endpoint and Content-Encoding.',
      labelNames: ['endpoint', 'encoding'] as const,
      registers,
    }),
    sdkDiscarded: new Counter({
      name: 'errata_sdk_discarded_total',
      help:
        "Items SDKs report they dropped before sending (client_report items), by the SDK's reason and data " +
        'category; reasons and categories SDKs do not use are counted as other.',
      labelNames: ['reason', 'category'] as const,
      registers,
    }),
    accepted: new Counter({
      name: 'errata_ingest_accepted_total',
      help: 'Items ingest accepted and queued, by data category and project (its numeric id).',
      labelNames: ['category', 'project_id'] as const,
      registers,
    }),
    outcomes: new Counter({
      name: 'errata_outcomes_total',
      help:
        'Items not stored, by reason, data category and stage: ingest refused them (the client was told), ' +
        'or the dispatcher dropped them after ingest accepted them.',
      labelNames: ['reason', 'category', 'stage'] as const,
      registers,
    }),
    queueProduceDuration: new Histogram({
      name: 'errata_queue_produce_duration_seconds',
      help: 'Time until published records were durable, by topic.',
      labelNames: ['topic'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    }),
    queuePublishedBytes: new Counter({
      name: 'errata_queue_published_bytes_total',
      help: 'Bytes of records published to the queue (header and payload), by topic.',
      labelNames: ['topic'] as const,
      registers,
    }),
    queueProduceErrors: new Counter({
      name: 'errata_queue_produce_errors_total',
      help: 'Publishes that failed (answered 503), by topic.',
      labelNames: ['topic'] as const,
      registers,
    }),
    pipelineStepDuration: new Histogram({
      name: 'errata_pipeline_step_duration_seconds',
      help: 'Wall-clock time per dispatcher step and batch, including what else the thread ran while the step waited or yielded.',
      labelNames: ['step'] as const,
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    pipelineEventAge: new Histogram({
      name: 'errata_pipeline_event_age_seconds',
      help: 'Time from an event being accepted at ingest to it being stored, grouped and countable.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
      registers,
    }),
    pipelineProcessed: new Counter({
      name: 'errata_pipeline_processed_total',
      help: 'Items the dispatcher stored, by data category and project (its numeric id).',
      labelNames: ['category', 'project_id'] as const,
      registers,
    }),
    pipelineBatchErrors: new Counter({
      name: 'errata_pipeline_batch_errors_total',
      help: 'Batches that failed and will be retried, by topic.',
      labelNames: ['topic'] as const,
      registers,
    }),
    sourceMapLoads: new Counter({
      name: 'errata_sourcemap_loads_total',
      help: 'Source maps read from the BlobStore because the cache did not hold them, by what became of them: kept (cached), too_large (larger than the cache: not parsed, frames left minified), absent (not uploaded yet), unreadable.',
      labelNames: ['result'] as const,
      registers,
    }),
    storeWriteErrors: new Counter({
      name: 'errata_store_write_errors_total',
      help: 'Store writes that failed (the batch is retried), by store.',
      labelNames: ['store'] as const,
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'errata_webhook_delivery_attempts_total',
      help: 'Webhook sends, by verdict: delivered (2xx), retry (5xx, 429 or no answer; sent again later) or failed (any other status, or out of attempts).',
      labelNames: ['verdict'] as const,
      registers,
    }),
    webhookHeld: new Counter({
      name: 'errata_webhook_deliveries_held_total',
      help: 'Alerts held back because their channel was over its hourly limit (they go out in the overflow summary).',
      registers,
    }),
    storeBatchSize: new Histogram({
      name: 'errata_store_write_batch_size',
      help: 'Rows per store write, by store.',
      labelNames: ['store'] as const,
      buckets: [1, 5, 10, 25, 50, 100, 250, 500, 1000],
      registers,
    }),
  };
}

/**
 * Outcomes go to errata_outcomes_total; the domain sees only this small interface. The stage
 * tells a refusal (ingest) from a loss after acceptance (dispatcher), which some reasons share:
 * accepted = stored + the dispatcher's outcomes, while ingest's never reached the queue.
 */
export function outcomeRecorder(metrics: Metrics, stage: OutcomeStage): OutcomeRecorder {
  return {
    record(reason: OutcomeReason, category: DataCategory, quantity = 1) {
      if (quantity > 0) metrics.outcomes.inc({ reason, category, stage }, quantity);
    },
  };
}

/** errata_queue_lag{topic, partition, group}, read from the queue at scrape time. */
export function registerQueueLag(metrics: Metrics, queue: Queue): void {
  const readErrors = new Counter({
    name: 'errata_queue_lag_read_errors_total',
    help: 'Scrapes at which the queue could not report its lag (errata_queue_lag keeps its last values).',
    registers: [metrics.registry],
  });
  new Gauge({
    name: 'errata_queue_lag',
    help: 'Records published but not yet processed, by topic, partition and consumer group.',
    labelNames: ['topic', 'partition', 'group'] as const,
    registers: [metrics.registry],
    async collect() {
      let lags;
      try {
        lags = await queue.lag();
      } catch {
        // The broker is down: the other metrics must still be served (they matter most now).
        readErrors.inc();
        return;
      }
      this.reset();
      for (const lag of lags) this.set({ topic: lag.topic, partition: String(lag.partition), group: lag.group }, lag.lag);
    },
  });
}

/**
 * errata_retention_last_success_timestamp_seconds, for the process that runs the retention job
 * (the dispatcher): it starts at the process's start, so `time() - it` is how long retention has
 * gone without a successful pass (or since start, before the first one).
 */
export function registerRetentionProgress(metrics: Metrics, now: () => number = Date.now): { succeeded(): void } {
  const gauge = new Gauge({
    name: 'errata_retention_last_success_timestamp_seconds',
    help: 'When the retention job last finished a pass (Unix seconds); the process start time until its first pass.',
    registers: [metrics.registry],
  });
  gauge.set(now() / 1000);
  return { succeeded: () => gauge.set(now() / 1000) };
}

/** The Prometheus text of this registry plus every added source, counters summed by label set. */
export async function renderMetrics(metrics: Metrics): Promise<string> {
  if (metrics.sources.length === 0) return metrics.registry.metrics();
  const all = [await metrics.registry.getMetricsAsJSON(), ...(await Promise.all(metrics.sources.map((source) => source())))];
  return AggregatorRegistry.aggregate(all as Parameters<typeof AggregatorRegistry.aggregate>[0]).metrics();
}
