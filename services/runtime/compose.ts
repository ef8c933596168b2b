// The ONLY place that picks adapters (with embedded/backend-worker.ts, the standalone backend
// thread it starts, which must build its own). Standalone: PGlite for metadata, events and
// logs (one database in <data dir>/db, owned by the backend thread) and the local write-ahead
// queue (<data dir>/queue: appended to by the HTTP thread, consumed by the backend thread); the
// CLI without a server opens the database itself (openStores). Distributed (`errata serve`):
// Postgres, ClickHouse and Kafka, chosen from their ERRATA_* variables, behind the same ports;
// no domain or role code changes. Blobs (uploaded source maps): S3 when ERRATA_S3_BUCKET is
// set, otherwise a directory, <data dir>/blobs.
import type { SecretBox } from '../core/alerts/secret-box.ts';
import type { AlertStore } from '../core/ports/alert-store.ts';
import { alertingSettings, openSecretBox, secretsKeyOf } from './open-secret-box.ts';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGliteClient } from '../adapters/pglite/pglite-client.ts';
import { migrate, pendingMigrations } from '../adapters/postgres/migrate.ts';
import { createSqlStores } from '../adapters/postgres/sql-stores.ts';
import { PgPoolClient } from '../adapters/postgres/pg-pool-client.ts';
import { migrateClickHouse, openClickHouseStores } from '../adapters/clickhouse/open-clickhouse.ts';
import { openKafkaQueue } from '../adapters/kafka/kafka-queue.ts';
import type { BlobStore } from '../core/ports/blob-store.ts';
import { TOPICS } from '../core/pipeline/queued-item.ts';
import { ConfigError } from './config.ts';
import type { EventStore } from '../core/ports/event-store.ts';
import type { LogStore } from '../core/ports/log-store.ts';
import type { MetadataStore } from '../core/ports/metadata-store.ts';
import type { Queue } from '../core/ports/queue.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { startEmbeddedBackend } from './embedded/backend.ts';
import type { Metrics } from './metrics.ts';
import { openBlobStore } from './open-blob-store.ts';

export interface Stores {
  metadata: MetadataStore;
  alerts: AlertStore;
  events: EventStore;
  logs: LogStore;
  close(): Promise<void>;
}

export interface Ports extends Stores {
  queue: Queue;
  secrets: SecretBox;
}

export function embeddedDatabaseDir(dataDir: string): string {
  return join(dataDir, 'db');
}

/** Opens the stores of a data directory and brings its schema up to date. */
export async function openStores(config: Pick<Config, 'dataDir'>): Promise<Stores> {
  const dir = embeddedDatabaseDir(config.dataDir);
  await mkdir(dir, { recursive: true });
  const client = await PGliteClient.open(dir);
  try {
    await migrate(client);
  } catch (error) {
    await client.close();
    throw error;
  }
  return { ...createSqlStores(client), close: () => client.close() };
}

/**
 * Everything the standalone server runs on: the database, the queue and the dispatcher live in
 * a backend thread (embedded/backend-worker.ts); the main thread gets ports that reach them.
 */
export async function composeStandalone(
  config: Config,
  logger: Logger,
  metrics: Metrics,
): Promise<Ports & { blobs: BlobStore; stop(drainTimeoutMs: number): Promise<void> }> {
  await initializeEmbeddedDatabase(config.dataDir);
  const secretsKey = secretsKeyOf(config, true);
  const blobs = await openBlobStore(config);
  const backend = await startEmbeddedBackend(
    {
      databaseDir: embeddedDatabaseDir(config.dataDir),
      queueDir: join(config.dataDir, 'queue'),
      queueMaxBacklogBytes: config.queueMaxBacklogBytes,
      logLevel: config.logLevel,
      retentionDays: config.eventRetentionDays,
      blobs: { dataDir: config.dataDir, ...(config.s3 ? { s3: config.s3 } : {}) },
      alerting: alertingSettings(config),
      secretsKeyHex: secretsKey?.toString('hex'),
    },
    logger,
    metrics,
  );
  return {
    metadata: backend.metadata,
    alerts: backend.alerts,
    secrets: openSecretBox(secretsKey),
    events: backend.events,
    logs: backend.logs,
    queue: backend.queue,
    blobs,
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
  await mkdir(dir, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    // The same entry point this process runs (bin/errata.js), with a hidden command.
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, 'init-embedded-db', dir], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`creating the database in ${dir} failed (exit ${code})`)),
    );
  });
}

/** The child's side of initializeEmbeddedDatabase. */
export async function createEmbeddedDatabase(dir: string): Promise<void> {
  const client = await PGliteClient.open(dir);
  await migrate(client);
  await client.close();
}

// ---- distributed ----------------------------------------------------------------------------

/** The processes of the distributed mode (not to be confused with an agent token's role). */
export const SERVER_ROLES = ['ingest', 'mcp', 'dispatcher'] as const;
export type ServerRole = (typeof SERVER_ROLES)[number];

/** What each role reads and writes; only these are opened, and /healthz checks exactly these. */
const ROLE_NEEDS: Record<ServerRole, Array<'postgres' | 'clickhouse' | 'kafka'>> = {
  ingest: ['postgres', 'kafka'],
  mcp: ['postgres', 'clickhouse'],
  dispatcher: ['postgres', 'clickhouse', 'kafka'],
};

const SETTING: Record<'postgres' | 'clickhouse' | 'kafka', string> = {
  postgres: 'ERRATA_POSTGRES_URL',
  clickhouse: 'ERRATA_CLICKHOUSE_URL',
  kafka: 'ERRATA_KAFKA_BROKERS',
};

export interface RolePorts {
  metadata: MetadataStore;
  alerts: AlertStore;
  secrets: SecretBox;
  blobs?: BlobStore;
  events?: EventStore;
  logs?: LogStore;
  queue?: Queue;
  /** The dependencies /healthz asks, by name. */
  health: Array<{ name: string; check(): Promise<void> }>;
  close(): Promise<void>;
}

/** Opens the distributed adapters a role needs; a ConfigError names any missing variable. */
export async function composeRole(role: ServerRole, config: Config, logger: Logger, metrics: Metrics): Promise<RolePorts> {
  const missing = ROLE_NEEDS[role].filter((need) => !config[need]).map((need) => SETTING[need]);
  if (missing.length > 0) {
    throw new ConfigError(
      `errata serve ${role} runs on the distributed stores: set ${missing.join(', ')} (the README lists every setting)`,
    );
  }
  const closers: Array<() => Promise<void>> = [];
  const health: RolePorts['health'] = [];
  try {
    const postgres = openPostgres(config, logger);
    closers.push(() => postgres.close());
    const pending = await pendingMigrations(postgres);
    if (pending.length > 0) {
      throw new ConfigError(
        `the Postgres schema is behind this version of Errata (missing ${pending.join(', ')}): run \`errata migrate\` first`,
      );
    }
    const { metadata, alerts } = createSqlStores(postgres);
    health.push({ name: 'postgres', check: () => metadata.ping() });
    const ports: RolePorts = {
      metadata,
      alerts,
      secrets: openSecretBox(secretsKeyOf(config, false)),
      health,
      close: async () => {},
    };

    if (ROLE_NEEDS[role].includes('clickhouse')) {
      const ch = config.clickhouse!;
      const stores = await openClickHouseStores({
        url: ch.url,
        database: ch.database,
        username: ch.username,
        password: ch.password,
        batch: { maxRows: ch.batchRows, maxWaitMs: ch.batchWaitMs },
        // Batch sizes are observed by the pipelines, per write call; failed INSERTs here.
        observe(write) {
          if (write.error) metrics.storeWriteErrors.inc({ store: write.table });
        },
      });
      closers.push(() => stores.close());
      health.push({ name: 'clickhouse', check: () => stores.ping() });
      ports.events = stores.events;
      ports.logs = stores.logs;
    }
    {
      // Every role: ingest stores uploads, the dispatcher reads maps, mcp lists and deletes them.
      const blobs = await openBlobStore(config);
      closers.push(() => blobs.close());
      health.push({ name: 'blobs', check: () => blobs.ping() });
      ports.blobs = blobs;
    }
    if (ROLE_NEEDS[role].includes('kafka')) {
      const k = config.kafka!;
      const queue = await openKafkaQueue({
        brokers: k.brokers,
        clientId: `${k.clientId}-${role}`,
        topicPrefix: k.topicPrefix,
        partitions: k.partitions,
        replicationFactor: k.replicationFactor,
        produceTimeoutMs: k.produceTimeoutMs,
        topics: Object.values(TOPICS),
        logger: logger.child({ component: 'kafka' }),
      });
      closers.push(() => queue.close());
      health.push({ name: 'kafka', check: () => queue.ping() });
      ports.queue = queue;
    }
    // Closed in reverse: consumers and producers before the stores their work lands in.
    ports.close = async () => {
      for (const close of closers.reverse()) await close();
    };
    return ports;
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => {});
    throw error;
  }
}

/** The metadata store of the distributed mode, for `errata migrate` and the admin commands. */
export function openPostgres(config: Config, logger?: Logger): PgPoolClient {
  return PgPoolClient.open({
    url: config.postgres!.url,
    maxConnections: config.postgres!.poolSize,
    onError: (error) => logger?.warn({ err: error }, 'idle Postgres connection failed; the pool replaces it'),
  });
}

/** `errata migrate` in the distributed mode: Postgres migrations, then the ClickHouse tables. */
export async function migrateDistributed(config: Config): Promise<{ postgres: string[]; clickhouse: boolean }> {
  const client = openPostgres(config);
  try {
    const report = await migrate(client);
    if (config.clickhouse) await migrateClickHouse(config.clickhouse);
    return { postgres: report.applied, clickhouse: Boolean(config.clickhouse) };
  } finally {
    await client.close();
  }
}
