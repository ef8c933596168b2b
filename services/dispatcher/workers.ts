// The dispatcher role's consumers: one subscription per topic, in one consumer group, so that
// several dispatcher processes share the work. Built from ports; the CLI starts and stops it.
import { rootCertificates } from 'node:tls';
import type { OutcomeRecorder } from '../core/outcomes.ts';
import { TOPICS } from '../core/pipeline/queued-item.ts';
import type { EventStore } from '../core/ports/event-store.ts';
import type { LogStore } from '../core/ports/log-store.ts';
import type { MetadataStore } from '../core/ports/metadata-store.ts';
import type { Queue, Subscription } from '../core/ports/queue.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import type { BlobStore } from '../core/ports/blob-store.ts';
import type { SecretBox } from '../core/alerts/secret-box.ts';
import type { AlertStore } from '../core/ports/alert-store.ts';
import { VERSION } from '../runtime/version.ts';
import { AlertEvaluator } from './alert-evaluator.ts';
import { startDeliveryWorker } from './delivery-worker.ts';
import { eventPipeline } from './event-pipeline.ts';
import { SourceMapSymbolicator } from './source-map-symbolicator.ts';
import { isolateFailures } from './isolate-failures.ts';
import { declaredRecords, logPipeline } from './log-pipeline.ts';

const CONSUMER_GROUP = 'errata-dispatcher';

/** What alert delivery needs from the configuration (dispatcher-settings.ts reads it). */
export interface AlertingSettings {
  /** The dashboard base, for the links in alerts and summaries. */
  baseUrl: string;
  /** Receiver hosts allowed to be private, loopback or link-local addresses. */
  allowHosts: string[];
  /** PEM certificates receivers may use besides the system's CAs (self-signed test receivers). */
  extraCa?: string;
  /** First retry delay of a delivery. */
  retryBaseMs: number;
  /** Alerts per channel per hour; the rest are held back for an overflow summary. */
  channelLimitPerHour: number;
}

interface DispatcherDeps {
  queue: Queue;
  metadata: MetadataStore;
  events: EventStore;
  logs: LogStore;
  /** Uploaded source maps; without it, JS frames are not symbolicated. */
  blobs?: BlobStore;
  /** Heap the cache of parsed source maps may hold. */
  sourceMapCacheBytes?: number;
  outcomes: OutcomeRecorder;
  metrics: Metrics;
  logger: Logger;
  /** Records per handler call; larger batches amortize store round trips. */
  batchSize?: number;
  /** Alert rules, channels and the delivery outbox; without them, no alerts. */
  alerting?: AlertingSettings & { alerts: AlertStore; secrets: SecretBox };
}

export interface DispatcherWorkers {
  stop(options?: { drain?: boolean; timeoutMs?: number }): Promise<void>;
}

/**
 * Records per handler call at most. A consumer takes what is waiting, so batches grow only when
 * the dispatcher is behind, and then larger ones catch up faster: an issue seen many times in a
 * batch is updated once. Recording the occurrences of events over 100 issues costs 170-200 us
 * of database CPU per event in batches of 200, 96-110 in batches of 500 and 73-85 in batches of
 * 1,000 (npm run bench:occurrences); 1,000 also held 30-60 MB more at peak, in malloc's share
 * (issue 20; docs/benchmarks.md), so 500. On 12-04 the distributed dispatcher, whose Kafka lanes
 * fetch up to four batches ahead, peaked 150-200 MB higher with 1,000; the standalone backend,
 * reading its queue's files as each call starts, takes 1,000 (backend-thread.ts).
 */
const MAX_BATCH_SIZE = 500;

export function startDispatcherWorkers(deps: DispatcherDeps): DispatcherWorkers {
  const maxBatchSize = deps.batchSize ?? MAX_BATCH_SIZE;
  const isolation = { outcomes: deps.outcomes, logger: deps.logger };
  const symbolicator = deps.blobs
    ? new SourceMapSymbolicator({
        metadata: deps.metadata,
        blobs: deps.blobs,
        logger: deps.logger,
        metrics: deps.metrics,
        ...(deps.sourceMapCacheBytes ? { maxCacheBytes: deps.sourceMapCacheBytes } : {}),
      })
    : undefined;
  const alerting = deps.alerting;
  const alertEvaluator =
    alerting &&
    new AlertEvaluator({
      alerts: alerting.alerts,
      metadata: deps.metadata,
      events: deps.events,
      baseUrl: alerting.baseUrl,
      channelLimitPerHour: alerting.channelLimitPerHour,
      metrics: deps.metrics,
    });
  const deliveries =
    alerting &&
    startDeliveryWorker({
      alerts: alerting.alerts,
      secrets: alerting.secrets,
      sender: {
        allowHosts: alerting.allowHosts,
        userAgent: `errata/${VERSION}`,
        ...(alerting.extraCa ? { ca: [...rootCertificates, alerting.extraCa] } : {}),
      },
      retryBaseMs: alerting.retryBaseMs,
      logger: deps.logger,
      metrics: deps.metrics,
    });
  const events = isolateFailures(
    eventPipeline({ ...deps, ...(symbolicator ? { symbolicator } : {}), ...(alertEvaluator ? { alertEvaluator } : {}) }),
    {
      ...isolation,
      category: 'error',
      storesAnswer: async () => {
        await deps.metadata.ping();
        await deps.events.ping();
      },
    },
  );
  const logs = isolateFailures(logPipeline(deps), {
    ...isolation,
    category: 'log_item',
    quantityOf: declaredRecords,
    storesAnswer: () => deps.logs.ping(),
  });
  const subscriptions: Subscription[] = [
    deps.queue.subscribe(TOPICS.events, { group: CONSUMER_GROUP, maxBatchSize }, events),
    deps.queue.subscribe(TOPICS.logs, { group: CONSUMER_GROUP, maxBatchSize }, logs),
  ];
  return {
    async stop(options) {
      await Promise.all(subscriptions.map((s) => s.stop(options)));
      await deliveries?.stop();
    },
  };
}
