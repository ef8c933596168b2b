// The ONLY place that picks adapters (with embedded/backend-thread.ts, the standalone backend
// thread it starts, which must build its own), and the one that opens each role's ports
// (role-ports.ts), which the role's builder then takes. Standalone: PGlite for metadata, events
// and logs (one database in <data dir>/db, owned by the backend thread) and the local
// write-ahead queue (<data dir>/queue: appended to by the HTTP thread, consumed by the backend
// thread); the CLI without a server opens the database itself (openStores). Distributed
// (`errata serve <role>`): Postgres, ClickHouse and Kafka, chosen from their ERRATA_*
// variables, behind the same ports; no domain or role code changes. Blobs (uploaded source
// maps): S3 when ERRATA_S3_BUCKET is set, otherwise a directory, <data dir>/blobs.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, rmdir } from 'node:fs/promises';
import { syncDirectory } from '../adapters/disk-sync.ts';
import { join } from 'node:path';
import { migrate, pendingMigrations } from '../adapters/postgres/migrate.ts';
import type { PgPoolClient } from '../adapters/postgres/pg-pool-client.ts';
import { PayloadSegments } from '../adapters/postgres/payload-segments.ts';
import { createSqlStores, type SqlStores } from '../adapters/postgres/sql-stores.ts';
import type { SecretBox } from '../core/alerts/secret-box.ts';
import { TOPICS } from '../core/pipeline/queued-item.ts';
import type { AlertStore } from '../core/ports/alert-store.ts';
import type { BlobStore } from '../core/ports/blob-store.ts';
import type { EventStore } from '../core/ports/event-store.ts';
import type { LogStore } from '../core/ports/log-store.ts';
import type { MetadataStore } from '../core/ports/metadata-store.ts';
import type { Queue } from '../core/ports/queue.ts';
import type { UserStore } from '../core/ports/user-store.ts';
import { ConfigError, type Config } from './config.ts';
import { startEmbeddedBackend } from './embedded/backend.ts';
import { embeddedDatabaseDir, embeddedPayloadDir } from './embedded/database-dir.ts';
import type { HealthCheck } from './http.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';
import { openBlobStore } from './open-blob-store.ts';
import { openSecretBox, secretsKeyOf } from './open-secret-box.ts';
import type { DispatcherPorts, IngestPorts, McpPorts, Opened } from './role-ports.ts';

/** The SQL stores of a data directory, opened by the CLI when no server holds it. */
interface Stores extends SqlStores {
  close(): Promise<void>;
}

/** The standalone main thread's ports: ingest and mcp on one listener. */
interface StandalonePorts extends IngestPorts, McpPorts, Opened {
  /** Drains the queue (the dispatcher in the backend thread) for at most this long, then closes. */
  stop(drainTimeoutMs: number): Promise<void>;
}

/**
 * The embedded database, loaded when a command opens it: the standalone server's main thread never
 * does (its backend thread holds the database); with openid-client, 1.3 MB of that thread's heap.
 */
async function openPGlite(dir: string) {
  return (await import('../adapters/pglite/pglite-client.ts')).PGliteClient.open(dir);
}

/** Opens the stores of a data directory and brings its schema up to date. */
export async function openStores(config: Pick<Config, 'dataDir'>): Promise<Stores> {
  const dir = embeddedDatabaseDir(config.dataDir);
  await mkdir(dir, { recursive: true });
  const client = await openPGlite(dir);
  try {
    await migrate(client);
  } catch (error) {
    await client.close();
    throw error;
  }
  const payloads = await PayloadSegments.open(embeddedPayloadDir(config.dataDir), { mode: 'writer' });
  return {
    ...createSqlStores(client, payloads),
    close: async () => {
      payloads.close();
      await client.close();
    },
  };
}

/**
 * Everything the standalone server runs on: the database, the queue and the dispatcher live in
 * a backend thread (embedded/backend.ts); the main thread gets ports that reach them.
 * `backendWork` is the settings of the work that thread runs (the dispatcher's, from
 * cli/standalone-server.ts), read here on the main thread and cloned into the thread.
 */
export async function composeStandalone(
  config: Config,
  logger: Logger,
  metrics: Metrics,
  backendWork: unknown,
): Promise<StandalonePorts> {
  await initializeEmbeddedDatabase(config.dataDir);
  const secretsKey = secretsKeyOf(config, true);
  const blobs = await openBlobStore(config);
  const backend = await startEmbeddedBackend(
    {
      databaseDir: embeddedDatabaseDir(config.dataDir),
      payloadDir: embeddedPayloadDir(config.dataDir),
      queueDir: join(config.dataDir, 'queue'),
      queueMaxBacklogBytes: config.queueMaxBacklogBytes,
      logLevel: config.logLevel,
      blobs: { dataDir: config.dataDir, ...(config.s3 ? { s3: config.s3 } : {}) },
      secretsKeyHex: secretsKey?.toString('hex'),
      work: backendWork,
    },
    logger,
    metrics,
  );
  return {
    metadata: backend.metadata,
    users: backend.users,
    alerts: backend.alerts,
    secrets: openSecretBox(secretsKey),
    events: backend.events,
    logs: backend.logs,
    queue: backend.queue,
    blobs,
    health: [
      { name: 'metadata', check: () => backend.metadata.ping() },
      { name: 'queue', check: () => backend.queue.ping() },
    ],
    stop: async (drainTimeoutMs) => {
      await backend.stop(drainTimeoutMs);
      await blobs.close();
    },
    close: async () => {
      await backend.stop(0);
      await blobs.close();
    },
  };
}

/**
 * Creating a PGlite database runs initdb, whose WebAssembly memory a long-running process
 * would keep for a while; a short-lived child creates it instead, so the server stays small.
 */
export async function initializeEmbeddedDatabase(dataDir: string): Promise<void> {
  const dir = embeddedDatabaseDir(dataDir);
  if (existsSync(join(dir, 'PG_VERSION'))) return;
  // Made aside and renamed into place once whole: a first start killed while initdb ran left a
  // PG_VERSION beside half a database, which every later start took for one and died on.
  const aside = `${dir}.creating`;
  await rm(aside, { recursive: true, force: true });
  await mkdir(aside, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    // The same entry point this process runs (bin/errata.js), with a hidden command.
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, 'init-embedded-db', aside], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`creating the database in ${aside} failed (exit ${code})`)),
    );
  });
  // A directory in the way is no database (it has no PG_VERSION): empty, or what an older
  // version left of a creation cut short. Kept aside rather than deleted, in case it is wanted.
  await rmdir(dir).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOTEMPTY' || error.code === 'EEXIST') await rename(dir, `${dir}.incomplete-${Date.now()}`);
    else if (error.code !== 'ENOENT') throw error;
  });
  await rename(aside, dir);
  await syncDirectory(dataDir);
}

/** The child's side of initializeEmbeddedDatabase. */
export async function createEmbeddedDatabase(dir: string): Promise<void> {
  const client = await openPGlite(dir);
  await migrate(client);
  await client.close();
}

// ---- distributed ----------------------------------------------------------------------------

/** Refuses a Postgres database `errata migrate` has not brought up to this version (roles and admin commands alike). */
export async function requireCurrentSchema(postgres: PgPoolClient): Promise<void> {
  const pending = await pendingMigrations(postgres);
  if (pending.length > 0) {
    throw new ConfigError(
      `the Postgres schema is behind this version of Errata (missing ${pending.join(', ')}): run \`errata migrate\` first`,
    );
  }
}

/** The processes of the distributed mode (not to be confused with an agent token's role). */
export const SERVER_ROLES = ['ingest', 'mcp', 'dispatcher'] as const;
export type ServerRole = (typeof SERVER_ROLES)[number];

type Server = 'postgres' | 'clickhouse' | 'kafka';

/** What each role reads and writes; only these are opened, and /healthz checks exactly these. */
const ROLE_NEEDS = {
  ingest: ['postgres', 'kafka'],
  mcp: ['postgres', 'clickhouse'],
  dispatcher: ['postgres', 'clickhouse', 'kafka'],
} as const satisfies Record<ServerRole, readonly Server[]>;

const SETTING: Record<Server, string> = {
  postgres: 'ERRATA_POSTGRES_URL',
  clickhouse: 'ERRATA_CLICKHOUSE_URL',
  kafka: 'ERRATA_KAFKA_BROKERS',
};

/** The configuration once the servers a role needs are known to be set. */
type ConfigWith<S extends Server> = Config & { [K in S]-?: NonNullable<Config[K]> };

/** A ConfigError names every variable the role needs and is missing. */
function requireServers<R extends ServerRole>(
  role: R,
  config: Config,
): asserts config is ConfigWith<(typeof ROLE_NEEDS)[R][number]> {
  const missing = ROLE_NEEDS[role].filter((need) => !config[need]).map((need) => SETTING[need]);
  if (missing.length > 0) {
    throw new ConfigError(
      `errata serve ${role} runs on the distributed stores: set ${missing.join(', ')} (the README lists every setting)`,
    );
  }
}

/** `errata serve ingest`: Postgres (keys, tokens), Kafka (what it accepts), blobs (uploads). */
export async function composeIngest(config: Config, logger: Logger, metrics: Metrics): Promise<IngestPorts & Opened> {
  requireServers('ingest', config);
  return opening(config, logger, metrics, async (open) => {
    const { metadata } = await open.postgres(config.postgres);
    const blobs = await open.blobs();
    const queue = await open.kafka(config.kafka, 'ingest');
    return { metadata, blobs, queue };
  });
}

/** `errata serve mcp`: Postgres, ClickHouse (events, logs), blobs (maps to list and delete). */
export async function composeMcp(config: Config, logger: Logger, metrics: Metrics): Promise<McpPorts & Opened> {
  requireServers('mcp', config);
  return opening(config, logger, metrics, async (open) => {
    const sql = await open.postgres(config.postgres);
    const { events, logs } = await open.clickhouse(config.clickhouse);
    const blobs = await open.blobs();
    return { ...sql, events, logs, blobs };
  });
}

/** `errata serve dispatcher`: all of them; it reads maps from the blobs to symbolicate. */
export async function composeDispatcher(config: Config, logger: Logger, metrics: Metrics): Promise<DispatcherPorts & Opened> {
  requireServers('dispatcher', config);
  return opening(config, logger, metrics, async (open) => {
    const sql = await open.postgres(config.postgres);
    const { events, logs } = await open.clickhouse(config.clickhouse);
    const blobs = await open.blobs();
    const queue = await open.kafka(config.kafka, 'dispatcher');
    return { ...sql, events, logs, blobs, queue };
  });
}

/** Opens each distributed adapter, adds its health check and remembers how to close it. */
interface Openers {
  postgres(
    settings: PostgresSettings,
  ): Promise<{ metadata: MetadataStore; alerts: AlertStore; users: UserStore; secrets: SecretBox }>;
  clickhouse(settings: NonNullable<Config['clickhouse']>): Promise<{ events: EventStore; logs: LogStore }>;
  blobs(): Promise<BlobStore>;
  kafka(settings: NonNullable<Config['kafka']>, role: ServerRole): Promise<Queue>;
}

/**
 * Runs `open` with the openers; if it fails, whatever it opened is closed again. The ports'
 * close() closes in reverse: consumers and producers before the stores their work lands in.
 */
async function opening<P>(
  config: Config,
  logger: Logger,
  metrics: Metrics,
  open: (openers: Openers) => Promise<P>,
): Promise<P & Opened> {
  const closers: Array<() => Promise<void>> = [];
  const health: HealthCheck[] = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close();
  };
  const openers: Openers = {
    async postgres(settings) {
      const postgres = await openPostgres(settings, logger);
      closers.push(() => postgres.close());
      await requireCurrentSchema(postgres);
      const { metadata, alerts, users } = createSqlStores(postgres);
      health.push({ name: 'postgres', check: () => metadata.ping() });
      return { metadata, alerts, users, secrets: openSecretBox(secretsKeyOf(config, false)) };
    },
    async clickhouse(ch) {
      const { openClickHouseStores } = await import('../adapters/clickhouse/open-clickhouse.ts');
      const stores = await openClickHouseStores({
        url: ch.url,
        database: ch.database,
        username: ch.username,
        password: ch.password,
        compression: ch.compression,
        batch: { maxRows: ch.batchRows, maxWaitMs: ch.batchWaitMs },
        // Batch sizes are observed by the pipelines, per write call; failed INSERTs here.
        observe(write) {
          if (write.error) metrics.storeWriteErrors.inc({ store: write.table });
        },
      });
      // Each store reported from the start (at 0): "no errors" is a value, not a missing series.
      for (const store of ['events', 'logs'] as const) metrics.storeWriteErrors.inc({ store }, 0);
      closers.push(() => stores.close());
      health.push({ name: 'clickhouse', check: () => stores.ping() });
      return { events: stores.events, logs: stores.logs };
    },
    async blobs() {
      // Every role: ingest stores uploads, the dispatcher reads maps, mcp lists and deletes them.
      const blobs = await openBlobStore(config);
      closers.push(() => blobs.close());
      health.push({ name: 'blobs', check: () => blobs.ping() });
      return blobs;
    },
    async kafka(k, role) {
      const { openKafkaQueue } = await import('../adapters/kafka/kafka-queue.ts');
      const queue = await openKafkaQueue({
        brokers: k.brokers,
        clientId: `${k.clientId}-${role}`,
        topicPrefix: k.topicPrefix,
        partitions: k.partitions,
        replicationFactor: k.replicationFactor,
        produceTimeoutMs: k.produceTimeoutMs,
        topics: Object.values(TOPICS),
        logger: logger.child({ component: 'kafka' }),
        onHandlerError: (_error, topic) => metrics.pipelineBatchErrors.inc({ topic }),
      });
      if (role === 'dispatcher') for (const topic of Object.values(TOPICS)) metrics.pipelineBatchErrors.inc({ topic }, 0);
      closers.push(() => queue.close());
      health.push({ name: 'kafka', check: () => queue.ping() });
      return queue;
    },
  };
  try {
    return { ...(await open(openers)), health, close: closeAll };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => {});
    throw error;
  }
}

type PostgresSettings = NonNullable<Config['postgres']>;

/**
 * The metadata store of the distributed mode, for the roles, `errata migrate` and the admin
 * commands. The distributed mode's drivers (pg here; ClickHouse's client and both Kafka clients
 * in the openers above) are imported only when a configuration names their server: the
 * standalone server never uses them, and they held 8 MB of its heap and about 13 MB of its idle
 * RSS (docs/benchmarks.md). `npm run build` splits each into a chunk of its own for that.
 */
export async function openPostgres(settings: PostgresSettings, logger?: Logger): Promise<PgPoolClient> {
  const { PgPoolClient } = await import('../adapters/postgres/pg-pool-client.ts');
  return PgPoolClient.open({
    url: settings.url,
    maxConnections: settings.poolSize,
    onError: (error) => logger?.warn({ err: error }, 'idle Postgres connection failed; the pool replaces it'),
  });
}

/** `errata migrate` in the distributed mode: Postgres migrations, then the ClickHouse tables. */
export async function migrateDistributed(
  postgres: PostgresSettings,
  clickhouse: Config['clickhouse'],
): Promise<{ postgres: string[]; clickhouse: boolean }> {
  const client = await openPostgres(postgres);
  try {
    const report = await migrate(client);
    if (clickhouse) {
      const { migrateClickHouse } = await import('../adapters/clickhouse/open-clickhouse.ts');
      await migrateClickHouse(clickhouse);
    }
    return { postgres: report.applied, clickhouse: Boolean(clickhouse) };
  } finally {
    await client.close();
  }
}
