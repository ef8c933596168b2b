// Builds the ClickHouse EventStore and LogStore for the composition root (distributed mode,
// ERRATA_CLICKHOUSE_URL set): one official client over HTTP, the schema ensured, one insert
// batcher per table. `openClickHouseStoresOn` takes a ready client instead, which is how the
// tests run the same stores on in-process chdb (current ClickHouse) through `chdb/connection`.
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { ClickHouseEventStore } from './clickhouse-event-store.ts';
import { readLimitSeconds } from './clickhouse-io.ts';
import { ClickHouseLogStore } from './clickhouse-log-store.ts';
import { pingClickHouse } from './clickhouse-ping.ts';
import { createClickHouseTables, type ClickHouseTable } from './clickhouse-schema.ts';
import type { BatchLimits } from './insert-batcher.ts';

/** One INSERT, as reported to metrics; `error` is set when it failed (never shown to clients). */
export interface ClickHouseWrite {
  table: ClickHouseTable;
  rows: number;
  seconds: number;
  error?: unknown;
}

export interface ClickHouseStoreSettings {
  database: string;
  /** How writes are coalesced; defaults 5000 rows / 200 ms. */
  batch?: BatchLimits;
  observe?: (write: ClickHouseWrite) => void;
  /** Create the database and tables when missing (default true). */
  ensureSchema?: boolean;
  /** How long the server may take over a read (selectRows); openClickHouseStores sets it from the request timeout. */
  readLimitSeconds?: number;
}

interface ClickHouseServerSettings {
  url: string;
  username?: string;
  password?: string;
  /** Per request; default 30 s. */
  requestTimeoutMs?: number;
  /**
   * How INSERT bodies travel; default 'none': gzipping them at zlib's default level took about a
   * fifth of the dispatcher's CPU per event (docs/benchmarks.md). 'gzip' (level 1, about a fifth
   * of the bytes) is for a ClickHouse across a slow or metered link.
   */
  compression?: 'none' | 'gzip';
}

interface ClickHouseConnectionSettings extends ClickHouseServerSettings, ClickHouseStoreSettings {}

export interface ClickHouseStores {
  events: ClickHouseEventStore;
  logs: ClickHouseLogStore;
  /** Rejects when the server does not answer a query. */
  ping(): Promise<void>;
  /** Sends the writes still waiting for their batch, then closes the client. */
  close(): Promise<void>;
}

/** Creates the official HTTP client; SQL is kept to what ClickHouse 18.16 accepts. */
export function createClickHouseClient(settings: ClickHouseServerSettings): ClickHouseClient {
  return createClient({
    url: settings.url,
    username: settings.username ?? 'default',
    password: settings.password ?? '',
    request_timeout: settings.requestTimeoutMs ?? 30_000,
    compression: { request: settings.compression === 'gzip' ? { codec: 'gzip', level: 1 } : false, response: false },
    application: 'errata',
    // Failures reach the caller as errors and are logged there, with context; not on stderr too.
    log: { level: ClickHouseLogLevel.OFF },
  });
}

/**
 * Creates the database and both tables when missing, on a connection of its own made from the
 * settings (`errata migrate`); idempotent. A client you already hold: `createClickHouseTables`.
 */
export async function migrateClickHouse(settings: ClickHouseServerSettings & { database: string }): Promise<void> {
  const client = createClickHouseClient(settings);
  try {
    await createClickHouseTables(client, settings.database);
  } finally {
    await client.close();
  }
}

export async function openClickHouseStores(settings: ClickHouseConnectionSettings): Promise<ClickHouseStores> {
  const limitSeconds = readLimitSeconds(settings.requestTimeoutMs ?? 30_000);
  return openClickHouseStoresOn(createClickHouseClient(settings), { ...settings, readLimitSeconds: limitSeconds });
}

/** The stores on a client built elsewhere (chdb in tests). They own it: close() closes it. */
export async function openClickHouseStoresOn(
  client: ClickHouseClient,
  settings: ClickHouseStoreSettings,
): Promise<ClickHouseStores> {
  try {
    if (settings.ensureSchema ?? true) await createClickHouseTables(client, settings.database);
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  const report = (table: ClickHouseTable) => (write: Omit<ClickHouseWrite, 'table'>) => settings.observe?.({ table, ...write });
  const { batch, readLimitSeconds } = settings;
  const events = new ClickHouseEventStore(client, settings.database, { batch, readLimitSeconds, report: report('events') });
  const logs = new ClickHouseLogStore(client, settings.database, { batch, readLimitSeconds, report: report('logs') });
  return {
    events,
    logs,
    ping: () => pingClickHouse(client),
    async close() {
      try {
        await Promise.all([events.close(), logs.close()]);
      } finally {
        await client.close();
      }
    },
  };
}
