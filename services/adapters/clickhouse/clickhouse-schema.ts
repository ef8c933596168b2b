// The ClickHouse tables behind the EventStore and LogStore, created idempotently by
// `errata migrate` and again when a role starts. Only SQL that ClickHouse 18.16 (Debian) and
// current releases both accept: no DateTime64, LowCardinality, Map, TTL, skip indexes or CODECs.
import type { ClickHouseClient } from '@clickhouse/client';
import { identifier, sql, type Sql } from './clickhouse-sql.ts';

export type ClickHouseTable = 'events' | 'logs';

/** `database`.`table`, quoted. */
export function tableName(database: string, table: ClickHouseTable): Sql {
  return sql`${identifier(database)}.${identifier(table)}`;
}

/*
 * Both tables, and why they look the way they do:
 * - `timestamp` (whole seconds) only partitions by UTC day, so retention drops whole days; the
 *   exact time is `timestamp_us`, integer microseconds (the precision Postgres keeps), which
 *   reads back as the same float seconds without relying on float text parsing either side.
 * - ReplacingMergeTree(version) collapses rows with the same sorting key in background merges,
 *   keeping the largest version. Writers give earlier writes larger versions, so, as in the SQL
 *   stores, the first write of an id wins. Merges only happen eventually and only within a
 *   partition, so every read dedupes on its own as well.
 * - events sort by issue first: the latest event and its count are the common reads.
 *   A lookup by event id alone scans the project's event_id column (cheap next to the payloads).
 * - logs sort by time within a project: search is newest first with keyset pagination.
 * - The redundant attribute_keys/attribute_values arrays hold each log attribute's value as
 *   text, for equality filters; 18.16 has no JSON functions that could read `attributes` safely.
 */
const TABLES: Record<ClickHouseTable, string> = {
  events: `(
    project_id UInt32,
    event_id String,
    issue_id UInt32,
    timestamp DateTime('UTC'),
    timestamp_us Int64,
    received_at_us Int64,
    level String,
    title String,
    culprit String,
    platform String,
    environment Nullable(String),
    release Nullable(String),
    trace_id Nullable(String),
    user_key Nullable(String),
    payload String,
    version UInt64
  )
  ENGINE = ReplacingMergeTree(version)
  PARTITION BY toYYYYMMDD(timestamp)
  ORDER BY (project_id, issue_id, timestamp_us, event_id)`,
  logs: `(
    project_id UInt32,
    id String,
    timestamp DateTime('UTC'),
    timestamp_us Int64,
    observed_at_us Int64,
    trace_id Nullable(String),
    span_id Nullable(String),
    level String,
    severity_number UInt8,
    body String,
    attributes String,
    attribute_keys Array(String),
    attribute_values Array(String),
    release Nullable(String),
    environment Nullable(String),
    version UInt64
  )
  ENGINE = ReplacingMergeTree(version)
  PARTITION BY toYYYYMMDD(timestamp)
  ORDER BY (project_id, timestamp_us, id)`,
};

/** Creates the database and both tables when missing; safe to run any number of times, concurrently. */
export async function createClickHouseTables(client: ClickHouseClient, database: string): Promise<void> {
  await client.command({ query: sql`CREATE DATABASE IF NOT EXISTS ${identifier(database)}`.text });
  for (const table of Object.keys(TABLES) as ClickHouseTable[]) {
    await client.command({ query: `CREATE TABLE IF NOT EXISTS ${tableName(database, table).text} ${TABLES[table]}` });
  }
}
