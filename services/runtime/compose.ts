// The ONLY place that picks adapters. Standalone: PGlite for metadata, events and logs (one
// database in <data dir>/db) and the local write-ahead queue (<data dir>/queue). The
// distributed adapters (Postgres, ClickHouse, Kafka, S3) will be chosen here from their
// ERRATA_* variables, behind the same ports; nothing outside this file changes.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalQueue } from '../adapters/local-queue/local-queue.ts';
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

const BIN = fileURLToPath(new URL('../../bin/errata.js', import.meta.url));

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

/** Everything the standalone server runs on. */
export async function composeStandalone(config: Config, logger: Logger, metrics: Metrics): Promise<Ports> {
  await initializeEmbeddedDatabase(config.dataDir);
  const stores = await openStores(config);
  const queue = new LocalQueue(join(config.dataDir, 'queue'), {
    maxBacklogBytes: config.queueMaxBacklogBytes,
    onHandlerError(error, topic) {
      metrics.pipelineBatchErrors.inc({ topic });
      logger.error({ err: error, topic }, 'batch failed; retrying');
    },
  });
  return {
    ...stores,
    queue,
    async close() {
      await queue.close();
      await stores.close();
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
    const child = spawn(process.execPath, [BIN, 'init-embedded-db', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`creating the database in ${dir} failed (exit ${code})`))));
  });
}

/** The child's side of initializeEmbeddedDatabase. */
export async function createEmbeddedDatabase(dir: string): Promise<void> {
  const client = await PGliteClient.open(dir);
  await migrate(client);
  await client.close();
}
