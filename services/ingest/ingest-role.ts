// The ingest role, assembled here once for `errata serve ingest` and `errata start` alike:
// ingestSettings says where each limit ingest enforces comes from (its ERRATA_* variable,
// through runtime/config.ts), and buildIngestRole puts the Koa app together over the role's
// ports, with its one background job (upload chunk garbage collection). Not here: the
// listener's own limits (ERRATA_HTTP_*, the same for every role) and the queue's backlog limit
// (ERRATA_QUEUE_MAX_BACKLOG_BYTES, a property of the queue that runtime/compose.ts opens).
import type Koa from 'koa';
import { RateLimiter } from '../core/ingest/rate-limit.ts';
import type { Config } from '../runtime/config.ts';
import type { HttpDeps } from '../runtime/http.ts';
import { outcomeRecorder } from '../runtime/metrics.ts';
import type { IngestPorts } from '../runtime/role-ports.ts';
import type { IngestDeps } from './accept-items.ts';
import { buildIngestApp } from './app.ts';
import { KeyCache } from './key-cache.ts';
import { BodyBudget, type BodyLimits } from './read-body.ts';
import { startChunkGcJob } from './upload/chunk-gc.ts';
import type { UploadLimits } from './upload/upload-routes.ts';

interface IngestSettings {
  /** ERRATA_BASE_URL: the upload protocol tells clients where to send chunks. */
  baseUrl: string;
  limits: IngestDeps['limits'];
  rateLimits: IngestDeps['rateLimits'];
  bodyLimits: BodyLimits;
  /** Request bodies and their queued copies held at once, all requests together. */
  memoryBytes: number;
  uploadLimits: UploadLimits;
  /** ERRATA_TRUSTED_PROXIES: whose address an event comes from, for a user's "{{auto}}" address. */
  trustedProxies: number;
}

export function ingestSettings(config: Config): IngestSettings {
  return {
    baseUrl: config.baseUrl,
    limits: {
      maxEventBytes: config.limits.maxEventBytes, // ERRATA_MAX_EVENT_BYTES
      maxLogItemBytes: config.limits.maxLogItemBytes, // ERRATA_MAX_LOG_ITEM_BYTES
      maxEnvelopeItems: config.limits.maxEnvelopeItems, // ERRATA_MAX_ENVELOPE_ITEMS
    },
    // ERRATA_RATE_LIMIT_EVENTS_PER_MINUTE, ERRATA_RATE_LIMIT_LOGS_PER_MINUTE (per project
    // unless `errata setratelimit` overrides them)
    rateLimits: config.rateLimits,
    bodyLimits: {
      maxRequestBytes: config.limits.maxRequestBytes, // ERRATA_MAX_REQUEST_BYTES
      maxDecompressedBytes: config.limits.maxEnvelopeBytes, // ERRATA_MAX_ENVELOPE_BYTES
      maxCompressionRatio: config.limits.maxCompressionRatio, // ERRATA_MAX_COMPRESSION_RATIO
    },
    memoryBytes: config.limits.ingestMemoryBytes, // ERRATA_INGEST_MEMORY_BYTES
    // ERRATA_UPLOAD_MAX_ASSEMBLIES, ERRATA_UPLOAD_CHUNK_BYTES_PER_PROJECT
    uploadLimits: config.uploads,
    trustedProxies: config.trustedProxies,
  };
}

interface IngestRole {
  app: Koa;
  /** The cache of DSN keys; standalone's admin commands drop a changed key from it at once. */
  keys: KeyCache;
  /** Stops the background job; the listener belongs to whoever listens. */
  stop(): void;
}

export function buildIngestRole(ports: IngestPorts, settings: IngestSettings, runtime: HttpDeps): IngestRole {
  const keys = new KeyCache(ports.metadata);
  const app = buildIngestApp({
    queue: ports.queue,
    blobs: ports.blobs,
    metadata: ports.metadata,
    baseUrl: settings.baseUrl,
    keys,
    limiter: new RateLimiter(),
    outcomes: outcomeRecorder(runtime.metrics, 'ingest'),
    metrics: runtime.metrics,
    logger: runtime.logger,
    health: runtime.health,
    limits: settings.limits,
    rateLimits: settings.rateLimits,
    bodyLimits: settings.bodyLimits,
    bodyBudget: new BodyBudget(settings.memoryBytes),
    uploadLimits: settings.uploadLimits,
    trustedProxies: settings.trustedProxies,
    now: Date.now,
  });
  const chunkGc = startChunkGcJob({ blobs: ports.blobs, logger: runtime.logger });
  return { app, keys, stop: () => chunkGc.stop() };
}
