// The two ways the ClickHouse stores reach the server, one place each: an INSERT that keeps
// the first write of every id (see first-write-wins.ts), as JSONEachRow or as TabSeparated
// lines the store writes itself (tab-separated.ts), and a SELECT of JSON rows. Both turn
// the server's outages into UnavailableError (clickhouse-errors.ts).
import type { ClickHouseClient } from '@clickhouse/client';
import { UnavailableError } from '../../core/errors.ts';
import { classifyClickHouseError, clickHouseErrorCode } from './clickhouse-errors.ts';
import type { Sql } from './clickhouse-sql.ts';
import { firstOfEach, type FirstWriteVersions } from './first-write-wins.ts';
import { tabSeparatedBody, type TabSeparatedRows } from './tab-separated.ts';

const TIMEOUT_EXCEEDED = '159';
const TOO_SLOW = '160';

/** Inserts the first row of each key, all stamped with this INSERT's version; as JSONEachRow unless `lines` is given. */
export async function insertFirstWrites<Row extends { version: number }>(
  client: ClickHouseClient,
  table: Sql,
  rows: Row[],
  key: (row: Row) => string,
  versions: FirstWriteVersions,
  lines?: TabSeparatedRows<Row>,
): Promise<void> {
  const version = versions.next();
  const unique = firstOfEach(rows, key);
  for (const row of unique) row.version = version;
  const insert = lines
    ? client.insert({
        table: table.text,
        columns: lines.columns,
        values: tabSeparatedBody(unique.map((row) => lines.line(row))),
        format: 'TabSeparated',
      })
    : client.insert({ table: table.text, values: unique, format: 'JSONEachRow' });
  await insert.catch((error: unknown) => Promise.reject(classifyClickHouseError(error)));
}

/**
 * Rows of a SELECT. With `limitSeconds` the server stops the read after that long: without a
 * limit, a log search the client (and the person or agent behind it) had given up on at its
 * request timeout went on reading on the server, and a few such searches held its cores for
 * minutes. Per read, never on the client: INSERTs and commands keep the server's own settings.
 */
export async function selectRows<T>(client: ClickHouseClient, query: Sql, limitSeconds?: number): Promise<T[]> {
  const settings = limitSeconds
    ? {
        max_execution_time: limitSeconds,
        // Servers before 24.1 also stopped a read whose run time they estimated past the limit,
        // after this many seconds (10 by default), often wrongly; 0 turns the estimate off.
        timeout_before_checking_execution_speed: 0,
      }
    : undefined;
  const result = await client
    .query({ query: query.text, format: 'JSONEachRow', ...(settings ? { clickhouse_settings: settings } : {}) })
    .catch((error: unknown) => Promise.reject(classifyReadError(error, limitSeconds)));
  return result.json<T>();
}

/** The stores' options beside their write batching: how long the server may take over a read. */
export interface ReadOptions {
  readLimitSeconds?: number | undefined;
}

/** A read's time limit on the server: a second under the client's request timeout, so its error, not the client's, arrives. */
export function readLimitSeconds(requestTimeoutMs: number): number {
  return Math.max(1, Math.floor(requestTimeoutMs / 1000) - 1);
}

/**
 * A read the server stopped at its time limit (or, on older servers, by its estimate of it) says
 * so: a search over a wide window is the usual cause, and retrying the same one is no cure.
 * Everything else as classifyClickHouseError has it.
 */
function classifyReadError(error: unknown, limitSeconds: number | undefined): unknown {
  const code = clickHouseErrorCode(error);
  if (code !== TIMEOUT_EXCEEDED && code !== TOO_SLOW) return classifyClickHouseError(error);
  return new UnavailableError(
    `ClickHouse stopped this read at its time limit (${limitSeconds ?? '?'} s): a search reads less over a shorter ` +
      'time window or with a level, text or trace to match; or retry when the store is less busy',
    { cause: error },
  );
}
