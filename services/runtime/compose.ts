// The ONLY place that picks adapters (with embedded/backend-worker.ts, the standalone backend
// thread it starts, which must build its own). Standalone: PGlite for metadata, events and
// logs (one database in <data dir>/db, owned by the backend thread) and the local write-ahead
// queue (<data dir>/queue: appended to by the HTTP thread, consumed by the backend thread); the
// CLI without a server opens the database itself (openStores). The distributed adapters
// (Postgres, ClickHouse, Kafka, S3) will be chosen here from their ERRATA_* variables, behind
// the same ports; no domain or role code changes.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGliteClient } from '../adapters/pglite/pglite-client.ts';
import { migrate } from '../adapters/postgres/migrate.ts';
import { PgEventStore } from '../adapters/postgres/pg-event-store.ts';
import { PgLogStore } from '../adapters/postgres/pg-log-store.ts';
import { PgMetadataStore } from '../adapters/postgres/pg-metadata-store.ts';
import type { EventStore } from '../core/ports/event-store.ts';
import type { LogStore } from '../core/ports/log-store.ts';
import type { MetadataStore } from '../core/ports/metadata-store.ts';
import type { Queue } from '../core/ports/queue.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { startEmbeddedBackend } from './embedded/backend.ts';
import type { Metrics } from './metrics.ts';

export interface Stores {
  metadata: MetadataStore;
  events: EventStore;
  logs: LogStore;
  close(): Promise<void>;
}

export interface Ports extends Stores {
  queue: Queue;
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
  return {
    metadata: new PgMetadataStore(client),
    events: new PgEventStore(client),
    logs: new PgLogStore(client),
    close: () => client.close(),
  };
}

/**
 * Everything the standalone server runs on: the database, the queue and the dispatcher live in
 * a backend thread (embedded/backend-worker.ts); the main thread gets ports that reach them.
 */
export async function composeStandalone(
  config: Config,
  logger: Logger,
  metrics: Metrics,
): Promise<Ports & { stop(drainTimeoutMs: number): Promise<void> }> {
  await initializeEmbeddedDatabase(config.dataDir);
  const backend = await startEmbeddedBackend(
    {
      databaseDir: embeddedDatabaseDir(config.dataDir),
      queueDir: join(config.dataDir, 'queue'),
      queueMaxBacklogBytes: config.queueMaxBacklogBytes,
      logLevel: config.logLevel,
      retentionDays: config.eventRetentionDays,
    },
    logger,
    metrics,
  );
  return {
    metadata: backend.metadata,
    events: backend.events,
    logs: backend.logs,
    queue: backend.queue,
    stop: (drainTimeoutMs) => backend.stop(drainTimeoutMs),
    close: () => backend.stop(0),
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
