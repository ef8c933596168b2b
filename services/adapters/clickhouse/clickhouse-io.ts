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
    .catch((error: unknown) => Promise.reject(classifyReadError(error)));
  return result.json<T>();
}

/**
 * A read the server stopped at its time limit (max_execution_time, set with the client's request
 * timeout in open-clickhouse.ts) says so: a search over a wide window is the usual cause, and
 * retrying the same one is no cure. Everything else as classifyClickHouseError has it.
 */
function classifyReadError(error: unknown): unknown {
  if (clickHouseErrorCode(error) !== TIMEOUT_EXCEEDED) return classifyClickHouseError(error);
  return new UnavailableError(
    'the event store (ClickHouse) stopped this read at its time limit: narrow it (a shorter time window, ' +
      'a project, a level) or retry when the store is less busy',
    { cause: error },
  );
}
