// Retention for the ClickHouse stores: tables are partitioned by UTC day, and pruning drops
// every partition whose whole day lies before the cutoff, which is one cheap metadata
// operation instead of a mutation that rewrites parts. So granularity is one day: rows of the
// cutoff's own day stay until that day has passed in full.
import type { ClickHouseClient } from '@clickhouse/client';
import { sql } from './clickhouse-sql.ts';
import { tableName, type ClickHouseTable } from './clickhouse-schema.ts';

const DAY_SECONDS = 86_400;

/** Drops the day partitions that end at or before `cutoff` (float seconds); returns their row count. */
export async function dropDaysBefore(
  client: ClickHouseClient,
  database: string,
  table: ClickHouseTable,
  cutoff: number,
): Promise<number> {
  const result = await client.query({
    query: sql`SELECT partition, toString(sum(rows)) AS rows FROM system.parts
      WHERE database = ${database} AND table = ${table} AND active GROUP BY partition`.text,
    format: 'JSONEachRow',
  });
  const partitions = await result.json<{ partition: string; rows: string }>();
  let dropped = 0;
  for (const { partition, rows } of partitions) {
    const dayStart = partitionDayStart(partition);
    if (dayStart === undefined || dayStart + DAY_SECONDS > cutoff) continue;
    // A part inserted between the listing and the drop goes too, uncounted: it is as old.
    await client.command({ query: sql`ALTER TABLE ${tableName(database, table)} DROP PARTITION ${Number(partition)}`.text });
    dropped += Number(rows);
  }
  return dropped;
}

/** Unix seconds of the start of a `toYYYYMMDD` partition's day; undefined for anything else. */
function partitionDayStart(partition: string): number | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})$/.exec(partition);
  if (!match) return undefined;
  return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / 1000;
}
