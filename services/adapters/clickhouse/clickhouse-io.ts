// The two ways the ClickHouse stores reach the server, one place each: an INSERT that keeps
// the first write of every id (see first-write-wins.ts), as JSONEachRow or as TabSeparated
// lines the store writes itself (tab-separated.ts), and a SELECT of JSON rows. Both turn
// the server's outages into UnavailableError (clickhouse-errors.ts).
import type { ClickHouseClient } from '@clickhouse/client';
import { classifyClickHouseError } from './clickhouse-errors.ts';
import type { Sql } from './clickhouse-sql.ts';
import { firstOfEach, type FirstWriteVersions } from './first-write-wins.ts';
import { tabSeparatedBody, type TabSeparatedRows } from './tab-separated.ts';

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

export async function selectRows<T>(client: ClickHouseClient, query: Sql): Promise<T[]> {
  const result = await client
    .query({ query: query.text, format: 'JSONEachRow' })
    .catch((error: unknown) => Promise.reject(classifyClickHouseError(error)));
  return result.json<T>();
}
