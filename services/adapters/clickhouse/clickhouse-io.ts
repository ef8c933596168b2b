// The two ways the ClickHouse stores reach the server, one place each: an INSERT that keeps
// the first write of every id (see first-write-wins.ts) and a SELECT of JSON rows. Both turn
// the server's outages into UnavailableError (clickhouse-errors.ts).
import type { ClickHouseClient } from '@clickhouse/client';
import { classifyClickHouseError } from './clickhouse-errors.ts';
import type { Sql } from './clickhouse-sql.ts';
import { firstOfEach, type FirstWriteVersions } from './first-write-wins.ts';

/** Inserts the first row of each key, all stamped with this INSERT's version. */
export async function insertFirstWrites<Row extends { version: number }>(
  client: ClickHouseClient,
  table: Sql,
  rows: Row[],
  key: (row: Row) => string,
  versions: FirstWriteVersions,
): Promise<void> {
  const version = versions.next();
  const unique = firstOfEach(rows, key);
  for (const row of unique) row.version = version;
  await client
    .insert({ table: table.text, values: unique, format: 'JSONEachRow' })
    .catch((error: unknown) => Promise.reject(classifyClickHouseError(error)));
}

export async function selectRows<T>(client: ClickHouseClient, query: Sql): Promise<T[]> {
  const result = await client
    .query({ query: query.text, format: 'JSONEachRow' })
    .catch((error: unknown) => Promise.reject(classifyClickHouseError(error)));
  return result.json<T>();
}
