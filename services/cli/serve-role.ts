// `errata serve <role>`: one role of the distributed mode in its own process, on the
// distributed stores (runtime/compose.ts opens the role's ports) and the role's own builder
// (ingest/ingest-role.ts, mcp/mcp-role.ts, dispatcher/dispatcher-role.ts, the same ones
// `errata start` uses). ingest and mcp serve their Koa apps; the dispatcher consumes the queue
// and serves only /healthz and /metrics. Every role answers /healthz 200 only while its
// dependencies answer. SIGTERM: stop accepting, finish what is in hand (requests in flight, the
// batch being handled and its commit), flush, close, exit 0.
import type { RequestListener, Server } from 'node:http';
import v8 from 'node:v8';
import { dispatcherSettings } from '../dispatcher/dispatcher-settings.ts';
import { buildIngestRole, ingestSettings } from '../ingest/ingest-role.ts';
import { buildMcpRole, mcpSettings } from '../mcp/mcp-role.ts';
import { composeDispatcher, composeIngest, composeMcp, type ServerRole } from '../runtime/compose.ts';
import { lowerCpuPriority } from '../runtime/cpu-priority.ts';
import { applyHeapGrowingPercent } from '../runtime/heap-growth.ts';
import { ConfigError, type Config } from '../runtime/config.ts';
import { createHttpApp } from '../runtime/http.ts';
import { createHttpServer } from '../runtime/http-server.ts';
import { closeServer } from '../runtime/graceful-close.ts';
import { listen } from '../runtime/lifecycle.ts';
import type { Logger } from '../runtime/logger.ts';
import { createMetrics, registerQueueLag, type Metrics } from '../runtime/metrics.ts';
import type { Opened } from '../runtime/role-ports.ts';
import { VERSION } from '../runtime/version.ts';
import { ensureFirstOrganization } from './first-organization.ts';

interface RunningRole {
  url: string;
  stop(): Promise<void>;
}

interface RoleParts {
  handler: RequestListener;
  /** Stops the role's own work once the listener no longer takes requests. */
  stopWork(): Promise<void>;
  /** Closes the role's ports, once its work has stopped. */
  close(): Promise<void>;
}

export async function serveRole(role: ServerRole, config: Config, rootLogger: Logger): Promise<RunningRole> {
  const logger = rootLogger.child({ role });
  const heapLimitBytes = v8.getHeapStatistics().heap_size_limit;
  const heapGrowingPercent = applyHeapGrowingPercent(config.heapGrowingPercent, heapLimitBytes);
  const metrics = createMetrics({ role });
  const parts = await ROLES[role](config, logger, metrics);
  let server: Server;
  let url: string;
  try {
    server = createHttpServer(parts.handler, config.http, metrics);
    const address = await listen(server, config.host, config.port).catch((error: NodeJS.ErrnoException) => {
      throw ['EADDRINUSE', 'EADDRNOTAVAIL', 'EACCES'].includes(error.code ?? '')
        ? new ConfigError(`cannot listen on ${config.host}:${config.port} (${error.code}): set ERRATA_HOST or ERRATA_PORT`)
        : error;
    });
    url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;
  } catch (error) {
    await parts.close();
    throw error;
  }
  const heapLimitMb = Math.round(heapLimitBytes / 2 ** 20);
  logger.info({ listen: url, version: VERSION, heapLimitMb, heapGrowingPercent }, 'errata role started');

  let stopped: Promise<void> | undefined;
  return {
    url,
    stop() {
      stopped ??= (async () => {
        logger.info('shutting down: no new requests, finishing work in hand');
        await closeServer(server, config.shutdownTimeoutSeconds * 1000);
        await parts.stopWork();
        await parts.close();
        logger.info('stopped');
      })();
      return stopped;
    },
  };
}

/** Each role: its ports opened, then built on them by the role's own builder. */
const ROLES: Record<ServerRole, (config: Config, logger: Logger, metrics: Metrics) => Promise<RoleParts>> = {
  async ingest(config, logger, metrics) {
    const ports = await composeIngest(config, logger, metrics);
    return building(ports, async () => {
      const ingest = buildIngestRole(ports, ingestSettings(config), { logger, metrics, health: ports.health });
      return { handler: ingest.app.callback(), stopWork: async () => ingest.stop() };
    });
  },
  async mcp(config, logger, metrics) {
    const ports = await composeMcp(config, logger, metrics);
    return building(ports, async () => {
      await ensureFirstOrganization(ports.metadata, config.organization);
      const app = buildMcpRole(ports, mcpSettings(config), { logger, metrics, health: ports.health });
      return { handler: app.callback(), stopWork: async () => {} };
    });
  },
  async dispatcher(config, logger, metrics) {
    // Before any of its work starts: what it does can wait for ingest's requests.
    if (config.dispatcherNice > 0) {
      const nice = lowerCpuPriority(config.dispatcherNice, logger);
      logger.info({ nice }, 'dispatcher runs at a lower CPU priority (ERRATA_DISPATCHER_NICE)');
    }
    const ports = await composeDispatcher(config, logger, metrics);
    return building(ports, async () => {
      registerQueueLag(metrics, ports.queue);
      // On demand: the ingest and mcp roles, and the standalone server's main thread, which share
      // this bundle, need none of the event pipeline.
      const { startDispatcherRole } = await import('../dispatcher/dispatcher-role.ts');
      const dispatcher = startDispatcherRole(ports, dispatcherSettings(config), { logger, metrics });
      const app = createHttpApp({ logger, metrics, health: ports.health });
      app.use((ctx) => {
        ctx.status = 404;
        ctx.body = { error: { code: 'not_found', message: 'the dispatcher serves only /healthz and /metrics' } };
      });
      return {
        handler: app.callback(),
        // No drain: the partitions go to the other dispatchers, which resume at the last commit.
        stopWork: () => dispatcher.stop(),
      };
    });
  },
};

/** Builds a role on its opened ports; if building fails, the ports are closed again. */
async function building(ports: Opened, build: () => Promise<Omit<RoleParts, 'close'>>): Promise<RoleParts> {
  try {
    return { ...(await build()), close: () => ports.close() };
  } catch (error) {
    await ports.close();
    throw error;
  }
}
