// `errata start`: every role in one process on one listener, each built by the same builder
// as under `errata serve <role>` (ingest/ingest-role.ts, mcp/mcp-role.ts,
// dispatcher/dispatcher-role.ts). Ingest paths go to the ingest app, everything else to the mcp
// app, on the main thread; the dispatcher consumes the local queue in the backend thread, next
// to the database (cli/backend-worker.ts); the admin socket lets the CLI work while the server
// owns the data directory. While nobody can sign in, it prints a one-time setup link.
// SIGTERM: stop accepting, finish requests in flight, drain the queue, close, exit 0.
import type { Server } from 'node:http';
import { codeLink, issueSetupCode } from '../core/people/one-time-codes.ts';
import type { Organization } from '../core/ports/metadata-store.ts';
import { dispatcherSettings } from '../dispatcher/dispatcher-settings.ts';
import { isIngestPath } from '../ingest/app.ts';
import { buildIngestRole, ingestSettings } from '../ingest/ingest-role.ts';
import { buildMcpRole, mcpSettings } from '../mcp/mcp-role.ts';
import { adminSocketPlace, removeFallbackDirectory, startAdminSocket } from '../runtime/admin/socket.ts';
import { composeStandalone } from '../runtime/compose.ts';
import { ConfigError, type Config } from '../runtime/config.ts';
import { openPrivateDataDir } from '../runtime/data-dir.ts';
import { createHttpServer } from '../runtime/http-server.ts';
import { acquireInstanceLock, FOREIGN_STALE_MS, inOtherNamespace, recordedHolder } from '../runtime/instance-lock.ts';
import { closeServer } from '../runtime/graceful-close.ts';
import { listen } from '../runtime/lifecycle.ts';
import type { Logger } from '../runtime/logger.ts';
import { createMetrics, registerQueueLag } from '../runtime/metrics.ts';
import { applyHeapGrowingPercent } from '../runtime/heap-growth.ts';
import { VERSION } from '../runtime/version.ts';
import { ensureFirstOrganization } from './first-organization.ts';

interface RunningServer {
  server: Server;
  url: string;
  stop(): Promise<void>;
}

export async function startStandaloneServer(
  config: Config,
  logger: Logger,
  print: (line: string) => void,
): Promise<RunningServer> {
  // V8's own growing factor unless configured: 300 cut the server's CPU per event by 14-27% but
  // raised its peak memory by 70-80 MB (docs/benchmarks.md, "a heap sized from the pod's limit").
  const heapGrowingPercent = applyHeapGrowingPercent(config.heapGrowingPercent ?? 0);
  await openPrivateDataDir(config.dataDir, logger);
  // The socket's directory a server killed before left behind (when it was not in the data directory).
  const previous = await recordedHolder(config.dataDir);
  if (previous && !previous.live && previous.holder.socket) await removeFallbackDirectory(previous.holder.socket);
  const socket = await adminSocketPlace(config.dataDir);
  let lock;
  try {
    // A command holding the directory finishes within seconds (it waits in turn for a server's
    // socket): the server waits for it rather than refusing to start. So it does for a holder in
    // another container, whose lock is stale FOREIGN_STALE_MS after it died (a restarted
    // container is a new pid namespace). Another server here is refused at once.
    lock = await acquireInstanceLock(
      config.dataDir,
      { kind: 'server', socket: socket.path },
      { waitMs: FOREIGN_STALE_MS + 10_000, waitFor: (holder) => holder.kind === 'cli' || inOtherNamespace(holder) },
    );
  } catch (error) {
    await socket.remove();
    throw error;
  }
  const metrics = createMetrics({ role: 'standalone' });
  let ports;
  try {
    // The backend thread runs the dispatcher (cli/backend-worker.ts) with these settings.
    ports = await composeStandalone(config, logger, metrics, dispatcherSettings(config));
  } catch (error) {
    await socket.remove();
    await lock.release();
    throw error;
  }
  const { organization, created } = await ensureFirstOrganization(ports.metadata, config.organization);
  // A new code at every start while nobody exists: the link printed last is the one that works.
  const setupCode = (await ports.users.countUsers()) === 0 ? await issueSetupCode(ports.users, new Date()) : undefined;
  registerQueueLag(metrics, ports.queue);
  const runtime = { logger, metrics, health: ports.health };
  const ingestRole = buildIngestRole(ports, ingestSettings(config), runtime);
  const ingest = ingestRole.app.callback();
  const mcp = buildMcpRole(ports, mcpSettings(config), runtime, (key) => ingestRole.keys.invalidate(key)).callback();
  const server = createHttpServer(
    (req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      return (isIngestPath(path) ? ingest : mcp)(req, res);
    },
    config.http,
    metrics,
  );

  const admin = await startAdminSocket(
    socket.path,
    {
      metadata: ports.metadata,
      users: ports.users,
      alerts: ports.alerts,
      secrets: ports.secrets,
      baseUrl: config.baseUrl,
      webhookAllowHosts: config.webhooks.allowHosts,
      blobs: () => Promise.resolve(ports.blobs),
      keysChanged: (key) => ingestRole.keys.invalidate(key),
    },
    logger,
  );
  let address;
  try {
    address = await listen(server, config.host, config.port);
  } catch (error) {
    ingestRole.stop();
    await admin.close();
    await socket.remove();
    await ports.close();
    await lock.release();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES') {
      throw new ConfigError(
        `cannot listen on ${config.host}:${config.port} (${code}): set ERRATA_HOST or ERRATA_PORT to a free address`,
      );
    }
    throw error;
  }
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;
  logger.info(
    { listen: url, baseUrl: config.baseUrl, dataDir: config.dataDir, version: VERSION, heapGrowingPercent },
    'errata started',
  );
  printBanner(print, config, organization, created, (await ports.metadata.listProjects(organization.id)).length === 0);
  if (setupCode) printSetupLink(print, codeLink(config.baseUrl, 'setup', setupCode));

  let stopped: Promise<void> | undefined;
  return {
    server,
    url,
    stop() {
      stopped ??= (async () => {
        logger.info('shutting down: no new requests, draining the queue');
        // One budget (ERRATA_SHUTDOWN_TIMEOUT_SECONDS) for the requests in flight and then the
        // queue: requests were cut off after 5 s, an upload still arriving with them.
        const deadline = Date.now() + config.shutdownTimeoutSeconds * 1000;
        await closeServer(server, config.shutdownTimeoutSeconds * 1000);
        ingestRole.stop();
        await admin.close();
        await socket.remove();
        await ports.stop(Math.max(0, deadline - Date.now()));
        await lock.release();
        logger.info('stopped');
      })();
      return stopped;
    },
  };
}

function printBanner(
  print: (line: string) => void,
  config: Config,
  organization: Organization,
  created: boolean,
  noProjects: boolean,
) {
  print(`Errata ${VERSION} is running at ${config.baseUrl}`);
  print(`  organization: ${organization.slug}${created ? ' (created now)' : ''}   data: ${config.dataDir}`);
  if (!noProjects) return;
  print('');
  print('Next steps:');
  print('  1. Create a project and get its DSN:   errata createproject --name "My App"');
  print('  2. Point an SDK at the DSN:            Sentry.init({ dsn: "<the DSN>" })   (or sentry_sdk.init(dsn=...))');
  print('  3. Create a token for agents and the API:');
  print('                                         errata createtoken --role triage --project <slug>');
  print(`  Agents use it on the MCP server ${config.baseUrl}/mcp; start from ${config.baseUrl}/api/v1/agents`);
}

/** On stdout only, never in the log: the link is a credential until it is used. */
function printSetupLink(print: (line: string) => void, link: string) {
  print('');
  print('Nobody can sign in to the dashboard yet. Open this one-time link to create the first owner:');
  print(`  ${link}`);
  print('  (it works once, for a day, and the next start prints a new one;');
  print('   or run: errata createuser --email you@example.com --owner)');
}
