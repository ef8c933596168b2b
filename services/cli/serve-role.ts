// `errata serve <role>`: one role of the distributed mode in its own process, on the
// distributed stores (compose.ts picks them). ingest and mcp serve their Koa apps; the
// dispatcher consumes the queue and serves only /healthz and /metrics. Every role answers
// /healthz 200 only while its dependencies answer. SIGTERM: stop accepting, finish what is in
// hand (requests in flight, the batch being handled and its commit), flush, close, exit 0.
import type { RequestListener, Server } from 'node:http';
import { RateLimiter } from '../core/ingest/rate-limit.ts';
import { startPeriodicJobs } from '../dispatcher/periodic-jobs.ts';
import { startChunkGcJob } from '../ingest/upload/chunk-gc.ts';
import { startDispatcherWorkers } from '../dispatcher/workers.ts';
import { buildIngestApp } from '../ingest/app.ts';
import { KeyCache } from '../ingest/key-cache.ts';
import { BodyBudget } from '../ingest/read-body.ts';
import { buildMcpApp } from '../mcp/app.ts';
import { composeRole, type RolePorts, type ServerRole } from '../runtime/compose.ts';
import { alertingSettings } from '../runtime/open-secret-box.ts';
import { ConfigError, type Config } from '../runtime/config.ts';
import { createHttpApp } from '../runtime/http.ts';
import { createHttpServer } from '../runtime/http-server.ts';
import { closeServer, listen } from '../runtime/lifecycle.ts';
import type { Logger } from '../runtime/logger.ts';
import { createMetrics, outcomeRecorder, registerQueueLag, type Metrics } from '../runtime/metrics.ts';
import { VERSION } from '../runtime/version.ts';
import { ensureFirstOrganization } from './first-organization.ts';

export interface RunningRole {
  url: string;
  stop(): Promise<void>;
}

interface RoleParts {
  handler: RequestListener;
  /** Stops the role's own work once the listener no longer takes requests. */
  stopWork(): Promise<void>;
}

export async function serveRole(role: ServerRole, config: Config, rootLogger: Logger): Promise<RunningRole> {
  const logger = rootLogger.child({ role });
  const metrics = createMetrics();
  const ports = await composeRole(role, config, logger, metrics);
  let parts: RoleParts;
  let server: Server;
  let url: string;
  try {
    parts = await buildRole(role, config, ports, logger, metrics);
    server = createHttpServer(parts.handler, config.http, metrics);
    const address = await listen(server, config.host, config.port).catch((error: NodeJS.ErrnoException) => {
      throw ['EADDRINUSE', 'EADDRNOTAVAIL', 'EACCES'].includes(error.code ?? '')
        ? new ConfigError(`cannot listen on ${config.host}:${config.port} (${error.code}): set ERRATA_HOST or ERRATA_PORT`)
        : error;
    });
    url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;
  } catch (error) {
    await ports.close();
    throw error;
  }
  logger.info({ listen: url, version: VERSION }, 'errata role started');

  let stopped: Promise<void> | undefined;
  return {
    url,
    stop() {
      stopped ??= (async () => {
        logger.info('shutting down: no new requests, finishing work in hand');
        await closeServer(server, config.shutdownTimeoutSeconds * 1000);
        await parts.stopWork();
        await ports.close();
        logger.info('stopped');
      })();
      return stopped;
    },
  };
}

async function buildRole(
  role: ServerRole,
  config: Config,
  ports: RolePorts,
  logger: Logger,
  metrics: Metrics,
): Promise<RoleParts> {
  switch (role) {
    case 'ingest': {
      const app = buildIngestApp({
        queue: ports.queue!,
        blobs: ports.blobs!,
        metadata: ports.metadata,
        baseUrl: config.baseUrl,
        keys: new KeyCache(ports.metadata),
        limiter: new RateLimiter(),
        outcomes: outcomeRecorder(metrics, 'ingest'),
        metrics,
        logger,
        health: ports.health,
        limits: {
          maxEventBytes: config.limits.maxEventBytes,
          maxLogItemBytes: config.limits.maxLogItemBytes,
          maxEnvelopeItems: config.limits.maxEnvelopeItems,
        },
        rateLimits: config.rateLimits,
        bodyLimits: {
          maxRequestBytes: config.limits.maxRequestBytes,
          maxDecompressedBytes: config.limits.maxEnvelopeBytes,
          maxCompressionRatio: config.limits.maxCompressionRatio,
        },
        bodyBudget: new BodyBudget(config.limits.ingestMemoryBytes),
        uploadLimits: config.uploads,
        now: Date.now,
      });
      const chunkGc = startChunkGcJob({ blobs: ports.blobs!, logger });
      return { handler: app.callback(), stopWork: async () => chunkGc.stop() };
    }
    case 'mcp': {
      await ensureFirstOrganization(ports.metadata, config.organization);
      const app = buildMcpApp({
        metadata: ports.metadata,
        events: ports.events!,
        logs: ports.logs!,
        baseUrl: config.baseUrl,
        maxLogWindowMinutes: config.eventRetentionDays * 1440,
        agentCallsPerMinute: config.agentCallsPerMinute,
        blobs: ports.blobs!,
        alerts: ports.alerts,
        secrets: ports.secrets,
        webhookAllowHosts: config.webhooks.allowHosts,
        logger,
        metrics,
        health: ports.health,
      });
      return { handler: app.callback(), stopWork: async () => {} };
    }
    case 'dispatcher': {
      registerQueueLag(metrics, ports.queue!);
      const stores = { metadata: ports.metadata, events: ports.events!, logs: ports.logs! };
      const workers = startDispatcherWorkers({
        queue: ports.queue!,
        ...stores,
        blobs: ports.blobs!,
        outcomes: outcomeRecorder(metrics, 'dispatcher'),
        metrics,
        logger,
        alerting: { ...alertingSettings(config), alerts: ports.alerts, secrets: ports.secrets },
      });
      const periodic = startPeriodicJobs({
        ...stores,
        alerts: ports.alerts,
        baseUrl: config.baseUrl,
        blobs: ports.blobs!,
        logger,
        retentionDays: config.eventRetentionDays,
      });
      const app = createHttpApp({ logger, metrics, health: ports.health });
      app.use((ctx) => {
        ctx.status = 404;
        ctx.body = { error: { code: 'not_found', message: 'the dispatcher serves only /healthz and /metrics' } };
      });
      return {
        handler: app.callback(),
        async stopWork() {
          periodic.stop();
          // No drain: the partitions go to the other dispatchers, which resume at the last commit.
          await workers.stop();
        },
      };
    }
  }
}
