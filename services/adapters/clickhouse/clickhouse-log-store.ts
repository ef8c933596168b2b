// LogStore on ClickHouse (distributed): batched JSONEachRow INSERTs from the dispatcher, search
// for the mcp role, newest first with keyset pagination on (timestamp, id). Idempotent by
// (project, record id) like the event store: first write wins, reads skip later copies.
import { insertFirstWrites, selectRows, type ReadOptions } from './clickhouse-io.ts';
import type { ClickHouseClient } from '@clickhouse/client';
import type { LogAttribute, LogLevel, LogRecord } from '../../core/logs/log-record.ts';
import { UserInputError } from '../../core/errors.ts';
import {
  COMPARISON_OPERATORS,
  type LogFilter,
  type LogQuery,
  type LogStore,
  type LogVolume,
  type LogVolumeCounts,
} from '../../core/ports/log-store.ts';
import { storableText } from '../../core/storable-text.ts';
import { decodeLogCursor, encodeLogCursor } from '../../core/logs/log-cursor.ts';
import type { Page } from '../../core/ports/page.ts';
import { pingClickHouse } from './clickhouse-ping.ts';
import { tableName } from './clickhouse-schema.ts';
import { join, raw, sql, type Sql } from './clickhouse-sql.ts';
import { dropDaysBefore } from './day-partitions.ts';
import { deleteRowsOnce } from './delete-mutation.ts';
import { FirstWriteVersions } from './first-write-wins.ts';
import { InsertBatcher, type BatchedWriteOptions } from './insert-batcher.ts';
import { nullableText, text, unsigned, UINT32_MAX, UINT8_MAX } from './insert-values.ts';
import { boundMicros, dateTimeOfMicros, fromMicros, toMicros } from './time-columns.ts';
import { DECIMAL_NUMBER } from '../../core/search/log-search.ts';

interface LogInsertRow {
  project_id: number;
  id: string;
  timestamp: number;
  timestamp_us: number;
  observed_at_us: number;
  trace_id: string | null;
  span_id: string | null;
  level: string;
  severity_number: number;
  body: string;
  attributes: string;
  attribute_keys: string[];
  attribute_values: string[];
  release: string | null;
  environment: string | null;
  version: number;
}

interface LogSelectRow {
  project_id: number;
  id: string;
  timestamp_us: string | number;
  observed_at_us: string | number;
  trace_id: string | null;
  span_id: string | null;
  level: LogLevel;
  severity_number: number;
  body: string;
  attributes: string;
  release: string | null;
  environment: string | null;
}

const COLUMNS = raw(`project_id, id, timestamp_us, observed_at_us, trace_id, span_id, level, severity_number, body,
  attributes, release, environment`);

export class ClickHouseLogStore implements LogStore {
  private readonly table: Sql;
  private readonly versions = new FirstWriteVersions();
  private readonly batcher: InsertBatcher<LogInsertRow>;
  private readonly readLimitSeconds: number | undefined;

  constructor(
    private readonly client: ClickHouseClient,
    private readonly database: string,
    options: BatchedWriteOptions & ReadOptions = {},
  ) {
    this.readLimitSeconds = options.readLimitSeconds;
    this.table = tableName(database, 'logs');
    // The attributes travel twice: as their JSON and as the key and value columns.
    this.batcher = new InsertBatcher(
      (rows) => this.insertBatch(rows),
      options.batch,
      options.report,
      (row) => row.body.length + 2 * row.attributes.length,
    );
  }

  async insertLogs(records: LogRecord[]): Promise<void> {
    await this.batcher.add(records.map(toInsertRow));
  }

  async searchLogs(query: LogQuery): Promise<Page<LogRecord>> {
    const limit = Math.max(1, Math.floor(query.limit));
    const filters = searchFilters(query);
    const oldest = query.order === 'oldest';
    // Copies of one record share (timestamp_us, id), so they stay together in either direction.
    const direction = raw(oldest ? 'ASC' : 'DESC');
    let after = query.cursor ? logKey(decodeLogCursor<number>(query.cursor, query.order, 'integer')) : undefined;
    // Copies of a record (written twice, not merged yet) sit next to each other in this order,
    // the first write first. Skipping the later ones here, instead of `LIMIT 1 BY id`, keeps the
    // LIMIT a top-N read; when copies ate into a page, the next query continues after them.
    const want = limit + 1;
    const rows: LogSelectRow[] = [];
    const seen = new Set<string>();
    for (;;) {
      const conditions = after ? [...filters, afterKey(after, oldest)] : filters;
      const batch = await this.select(sql`SELECT ${COLUMNS} FROM ${this.table} WHERE ${join(conditions, ' AND ')}
        ORDER BY timestamp_us ${direction}, id ${direction}, version DESC LIMIT ${want}`);
      for (const row of batch) {
        if (seen.has(row.id) || rows.length === want) continue;
        seen.add(row.id);
        rows.push(row);
      }
      const last = batch[batch.length - 1];
      if (rows.length === want || batch.length < want || !last) break;
      after = { micros: Number(last.timestamp_us), id: last.id };
    }
    const page = rows.slice(0, limit);
    const end = page[page.length - 1];
    return {
      items: page.map(toLogRecord),
      nextCursor: rows.length > limit && end ? encodeLogCursor(query.order, Number(end.timestamp_us), end.id) : undefined,
    };
  }

  async logVolume(filter: LogFilter & { since: number; until: number }, bucketSeconds: number): Promise<LogVolumeCounts> {
    // In float seconds, as the Postgres store counts them: buckets start at since + n * bucketSeconds
    // for any window, where microseconds of a window from before 1685 pass a safe integer.
    const rows = await selectRows<{ bucket: string; level: LogLevel; count: string }>(
      this.client,
      sql`SELECT toString(toInt64(floor((timestamp_us / 1000000 - ${filter.since}) / ${bucketSeconds}))) AS bucket, level,
          toString(uniqExact(id)) AS count
        FROM ${this.table} WHERE ${join(searchFilters(filter), ' AND ')}
        GROUP BY bucket, level ORDER BY toInt64(bucket), level`,
      this.readLimitSeconds,
    );
    // Copies of a record (not merged yet) share its id, time and level: uniqExact counts each id once.
    // ClickHouse counts a whole window of a day's partitions fast enough: bounded only by the read's time limit.
    const counts = rows.map((row) => ({
      start: filter.since + Number(row.bucket) * bucketSeconds,
      level: row.level,
      count: Number(row.count),
    }));
    return { counts };
  }

  /** Drops whole UTC days that end at or before the cutoff (see day-partitions.ts). */
  async deleteLogsBefore(cutoff: number): Promise<number> {
    return dropDaysBefore(this.client, this.database, 'logs', cutoff);
  }

  async deleteLogsOfProject(projectId: number): Promise<void> {
    await this.batcher.flush();
    const at = { client: this.client, database: this.database, table: 'logs' as const, readLimitSeconds: this.readLimitSeconds };
    await deleteRowsOnce(at, sql`project_id = ${projectId}`);
  }

  async ping(): Promise<void> {
    await pingClickHouse(this.client);
  }

  async flush(): Promise<void> {
    await this.batcher.flush();
  }

  async close(): Promise<void> {
    await this.batcher.close();
  }

  private insertBatch(rows: LogInsertRow[]): Promise<void> {
    return insertFirstWrites(this.client, this.table, rows, (r) => `${r.project_id}:${r.id}`, this.versions);
  }

  private select(query: Sql): Promise<LogSelectRow[]> {
    return selectRows<LogSelectRow>(this.client, query, this.readLimitSeconds);
  }
}

interface LogKey {
  micros: number;
  id: string;
}

/**
 * A search with a NUL finds it as ingest stores it, U+FFFD (as on Postgres, whose SQL client
 * replaces it in every parameter), and as ClickHouse can hold it; a lone surrogate is replaced
 * by the literal's own escaping (clickhouse-sql.ts), so either way nothing breaks the query.
 */
function searchFilters(query: LogFilter): Sql[] {
  const filters = [
    query.moreProjectIds?.length
      ? sql`project_id IN (${join(
          [query.projectId, ...query.moreProjectIds].map((id) => sql`${id}`),
          ', ',
        )})`
      : sql`project_id = ${query.projectId}`,
  ];
  if (query.levels && query.levels.length > 0) filters.push(sql`has(${query.levels}, level)`);
  if (query.text) {
    const forms = textForms(query.text).map((text) => sql`positionCaseInsensitiveUTF8(body, ${text}) > 0`);
    filters.push(sql`(${join(forms, ' OR ')})`);
  }
  if (query.traceId) filters.push(sql`trace_id = ${query.traceId.toLowerCase()}`);
  if (query.environment !== undefined) filters.push(sql`environment = ${query.environment}`);
  for (const [key, value] of Object.entries(query.attributes ?? {})) {
    const [k, v] = [anyOf(raw('k'), textForms(key)), anyOf(raw('v'), textForms(value))];
    filters.push(sql`arrayExists((k, v) -> ${k} AND ${v}, attribute_keys, attribute_values)`);
  }
  for (const { key, operator, value } of query.comparisons ?? []) {
    // The operator is spliced into the SQL: only the four the port names. The value must read
    // as a number as the Postgres store's pattern says; toFloat64OrZero then cannot misread it.
    if (!COMPARISON_OPERATORS.includes(operator)) throw new Error(`not a comparison operator: ${String(operator)}`);
    const k = anyOf(raw('k'), textForms(key));
    filters.push(
      sql`arrayExists((k, v) -> ${k} AND match(v, ${DECIMAL_NUMBER}) AND toFloat64OrZero(v) ${raw(operator)} ${value}, attribute_keys, attribute_values)`,
    );
  }
  // Each bound also on the whole-second `timestamp`: that column partitions the table, so the
  // server skips the days outside the window without opening them.
  if (query.since !== undefined) {
    const since = boundMicros(query.since);
    filters.push(sql`timestamp_us >= ${since}`, sql`timestamp >= toDateTime(${dateTimeOfMicros(since)})`);
  }
  if (query.until !== undefined) {
    const until = boundMicros(query.until);
    filters.push(sql`timestamp_us <= ${until}`, sql`timestamp <= toDateTime(${dateTimeOfMicros(until)})`);
  }
  return filters;
}

/** The text as given and, when it holds a NUL, as ingest would have stored it. */
function textForms(text: string): string[] {
  return text.includes('\u0000') ? [text, storableText(text)] : [text];
}

/** `(column = a OR column = b)`: plain equality, which 18.16 runs inside a lambda as 26.x does. */
function anyOf(column: Sql, forms: string[]): Sql {
  const equalities = forms.map((form) => sql`${column} = ${form}`);
  return sql`(${join(equalities, ' OR ')})`;
}

/** Strictly after the key in the page's order. 18.16 cannot compare tuples, hence spelled out. */
function afterKey(key: LogKey, oldest: boolean): Sql {
  if (oldest) {
    return sql`(timestamp_us > ${key.micros} OR (timestamp_us = ${key.micros} AND id > ${key.id}))
    AND timestamp >= toDateTime(${dateTimeOfMicros(key.micros)})`;
  }
  return sql`(timestamp_us < ${key.micros} OR (timestamp_us = ${key.micros} AND id < ${key.id}))
    AND timestamp <= toDateTime(${dateTimeOfMicros(key.micros)})`;
}

function logKey([micros, id]: [number, string]): LogKey {
  return { micros, id };
}

function toInsertRow(r: LogRecord): LogInsertRow {
  const micros = toMicros(r.timestamp);
  const keys: string[] = [];
  const values: string[] = [];
  for (const [key, attribute] of Object.entries(r.attributes)) {
    const value = attributeText(attribute);
    if (value === undefined) continue;
    keys.push(text(key));
    values.push(text(value));
  }
  return {
    project_id: unsigned(r.projectId, UINT32_MAX, 'projectId'),
    id: text(r.id),
    timestamp: dateTimeOfMicros(micros),
    timestamp_us: micros,
    observed_at_us: toMicros(r.observedAt),
    trace_id: nullableText(r.traceId),
    span_id: nullableText(r.spanId),
    level: r.level,
    severity_number: unsigned(r.severityNumber, UINT8_MAX, 'severityNumber'),
    body: text(r.body),
    // JSON.stringify escapes unpaired surrogates, so this text is always valid UTF-8.
    attributes: JSON.stringify(r.attributes),
    attribute_keys: keys,
    attribute_values: values,
    release: nullableText(r.release),
    environment: nullableText(r.environment),
    version: 0,
  };
}

/**
 * An attribute's value as text for equality filters, as Postgres's `->> 'value'` gives it:
 * strings as they are, numbers and booleans as JSON text, null (or nothing) never matching.
 */
function attributeText(attribute: LogAttribute): string | undefined {
  const value = attribute?.value;
  if (typeof value === 'string') return value;
  const json = JSON.stringify(value);
  return json === undefined || json === 'null' ? undefined : json;
}

function toLogRecord(row: LogSelectRow): LogRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    timestamp: fromMicros(row.timestamp_us),
    observedAt: fromMicros(row.observed_at_us),
    traceId: row.trace_id,
    spanId: row.span_id,
    level: row.level,
    severityNumber: row.severity_number,
    body: row.body,
    attributes: JSON.parse(row.attributes) as Record<string, LogAttribute>,
    release: row.release,
    environment: row.environment,
  };
}
