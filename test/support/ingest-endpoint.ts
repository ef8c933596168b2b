// The SDK endpoints alone on a port of their own, over real stores and a real write-ahead
// queue: for unit suites that walk requests through ingest (status, message, outcomes) without
// starting a whole server.
import { mkdtemp } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { LocalQueue } from '../../services/adapters/local-queue/local-queue.ts';
import type { MetadataStore } from '../../services/core/ports/metadata-store.ts';
import { RateLimiter } from '../../services/core/ingest/rate-limit.ts';
import { KeyCache } from '../../services/ingest/key-cache.ts';
import { BodyBudget, type BodyLimits } from '../../services/ingest/read-body.ts';
import { sdkEndpoints } from '../../services/ingest/sdk-endpoints.ts';
import { createHttpApp } from '../../services/runtime/http.ts';
import { createLogger } from '../../services/runtime/logger.ts';
import { createMetrics, outcomeRecorder, type Metrics } from '../../services/runtime/metrics.ts';

export interface IngestEndpoint {
  url: string;
  metrics: Metrics;
  /** Its memory budget, which a test may take a share of, as another request in flight does. */
  bodyBudget: BodyBudget;
  close(): Promise<void>;
}

interface IngestEndpointOptions {
  rateLimits?: { eventsPerMinute: number; logsPerMinute: number };
  limits?: { maxEventBytes: number; maxLogItemBytes: number; maxEnvelopeItems: number };
  bodyLimits?: BodyLimits;
  memoryBytes?: number;
}

/** Generous limits unless told otherwise; the queue lives in a new directory under `dir`. */
export async function startIngestEndpoint(
  metadata: MetadataStore,
  dir: string,
  options: IngestEndpointOptions = {},
): Promise<IngestEndpoint> {
  const metrics = createMetrics({ processMetrics: false });
  const bodyBudget = new BodyBudget(options.memoryBytes ?? 64 * 1024 * 1024);
  const app = createHttpApp({ logger: createLogger('silent'), metrics, health: [] });
  app.use(
    sdkEndpoints({
      queue: new LocalQueue(await mkdtemp(join(dir, 'queue-'))),
      keys: new KeyCache(metadata),
      limiter: new RateLimiter(),
      outcomes: outcomeRecorder(metrics, 'ingest'),
      metrics,
      limits: options.limits ?? { maxEventBytes: 64 * 1024, maxLogItemBytes: 64 * 1024, maxEnvelopeItems: 10 },
      rateLimits: options.rateLimits ?? { eventsPerMinute: 1_000_000, logsPerMinute: 1_000_000 },
      now: () => Date.now(),
      bodyLimits: options.bodyLimits ?? {
        maxRequestBytes: 1024 * 1024,
        maxDecompressedBytes: 1024 * 1024,
        maxCompressionRatio: 10,
      },
      bodyBudget,
    }),
  );
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    metrics,
    bodyBudget,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
