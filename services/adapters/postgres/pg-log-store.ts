// LogStore over SQL (PGlite standalone; also usable on Postgres). Newest first, keyset
// pagination on (timestamp, id); inserts idempotent by record id.
import type { LogAttribute, LogLevel, LogRecord } from '../../core/logs/log-record.ts';
import {
  COMPARISON_OPERATORS,
  SEARCH_SCAN_RECORDS,
  type LogFilter,
  type LogPage,
  type LogQuery,
  type LogStore,
  type LogVolume,
  type LogVolumeCounts,
} from '../../core/ports/log-store.ts';
import { decodeLogCursor, encodeLogCursor } from '../../core/logs/log-cursor.ts';
import type { CursorKey } from '../../core/ports/page.ts';
import { chunk, containsPattern, jsonParam, valuesList, type SqlClient, type SqlExecutor } from './sql-client.ts';
import { deletePartSql, deleteWhileFull } from './delete-in-parts.ts';
import { DECIMAL_NUMBER, searchesContent } from '../../core/search/log-search.ts';

interface LogRow {
  project_id: number;
  id: string;
  timestamp: number;
  timestamp_cursor: string;
  observed_at: number;
  trace_id: string | null;
  span_id: string | null;
  level: LogLevel;
  severity_number: number;
  body: string;
  attributes: Record<string, LogAttribute>;
  release: string | null;
  environment: string | null;
}

/** A record's time as a cursor holds it: to the microsecond, in UTC, as decodeCursor's `time` reads it. */
const TIMESTAMP_CURSOR = `to_char(timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS timestamp_cursor`;

// ORDER BY names the table's columns qualified: a bare `timestamp` there would be this float
// alias, which no index has, and the window's every row would be read and sorted.
const COLUMNS = `project_id, id, extract(epoch from timestamp)::float8 AS timestamp, ${TIMESTAMP_CURSOR},
  extract(epoch from observed_at)::float8 AS observed_at, trace_id, span_id, level, severity_number, body, attributes,
  release, environment`;

const CASTS = ['integer', 'text', 'float8', 'float8', 'text', 'text', 'text', 'integer', 'text', 'jsonb', 'text', 'text'];

/** The records a histogram of a search by text or attributes reads at most (see countNewestRows). */
const VOLUME_SCAN_LIMIT = 20_000;

/** Records per INSERT: a full one's text (1,200 placeholders) is the same each time. */
const ROWS_PER_INSERT = 100;

/** The last record a bounded search reads. */
interface ScanBound {
  timestamp: number;
  timestamp_cursor: string;
  id: string;
}

/** DECIMAL_NUMBER with an exponent of at most three digits: numeric holds every such number. */
const STORED_NUMBER = '^-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]{1,3})?$';

/** Records deleted per statement when a deleted project's go. */
const DELETE_PART_ROWS = 10_000;

export class PgLogStore implements LogStore {
  constructor(
    private readonly db: SqlClient,
    private readonly volumeScanLimit = VOLUME_SCAN_LIMIT,
    private readonly searchScanLimit = SEARCH_SCAN_RECORDS,
  ) {}

  async insertLogs(records: LogRecord[]): Promise<void> {
    for (const part of chunk(records, ROWS_PER_INSERT)) {
      const values = valuesList(
        part.map((r) => [
          r.projectId,
          r.id,
          r.timestamp,
          r.observedAt,
          r.traceId,
          r.spanId,
          r.level,
          r.severityNumber,
          r.body,
          jsonParam(r.attributes),
          r.release,
          r.environment,
        ]),
        CASTS,
      );
      // The per-minute counts grow by the records this statement inserted, not by duplicates.
      await this.db.query(
        `WITH inserted AS (
           INSERT INTO logs (project_id, id, timestamp, observed_at, trace_id, span_id, level, severity_number, body,
             attributes, release, environment)
           SELECT v.project_id, v.id, to_timestamp(v.ts), to_timestamp(v.observed), v.trace_id, v.span_id, v.level,
             v.severity_number, v.body, v.attributes, v.release, v.environment
           FROM (VALUES ${values.sql}) AS v (project_id, id, ts, observed, trace_id, span_id, level, severity_number, body,
             attributes, release, environment)
           ON CONFLICT (project_id, id) DO NOTHING
           RETURNING project_id, timestamp, level, environment)
         ${ADD_TO_VOLUME} FROM inserted GROUP BY 1, 2, 3, 4
         ON CONFLICT (project_id, minute, level, environment) DO UPDATE SET records = log_volume.records + excluded.records`,
        values.params,
        // Kept prepared, a full statement is parsed about once a session (again only if other
        // statements pushed it out) and planned for its first few runs only, where unnamed each
        // run parsed and planned 1,200 placeholders: about 30% of the insert's CPU on PGlite
        // (docs/benchmarks.md, 2026-12-02 (fifth)). Shorter ones differ in length and run
        // unnamed, as in PgEventStore.
        { keepPrepared: part.length === ROWS_PER_INSERT },
      );
    }
  }

  async searchLogs(query: LogQuery): Promise<LogPage> {
    const oldest = query.order === 'oldest';
    const order = `ORDER BY logs.timestamp ${oldest ? 'ASC' : 'DESC'}, logs.id ${oldest ? 'ASC' : 'DESC'}`;
    const cursor = query.cursor ? decodeLogCursor<string>(query.cursor, query.order, 'time') : undefined;
    // A search by text, attributes, level or environment tests each record (no index holds
    // them): it reads at most searchScanLimit of the window's records in the page's order, then
    // stops (see scanBound). Records are read lazily, so a page that fills early reads no further
    // than it did unbounded; a rare level (fatal) read the whole window, a million records a day.
    const { text, attributes, comparisons, levels, environment, ...rest } = query;
    const bounded = (searchesContent(query) || Boolean(levels?.length) || environment !== undefined) && !query.traceId;
    const window = windowConditions(bounded ? rest : query, cursor, oldest);
    const { conditions, params } = bounded
      ? filterConditions(
          {
            projectId: query.projectId,
            moreProjectIds: query.moreProjectIds,
            text,
            attributes,
            comparisons,
            levels,
            ...(environment !== undefined ? { environment } : {}),
          },
          window.params,
        )
      : window;
    let from = 'logs';
    if (bounded) {
      params.push(this.searchScanLimit);
      from = `(SELECT * FROM logs WHERE ${window.conditions.join(' AND ')} ${order} LIMIT $${params.length}) AS logs`;
    }
    params.push(query.limit + 1);
    const select = `SELECT ${COLUMNS} FROM ${from} WHERE ${conditions.join(' AND ')} ${order} LIMIT $${params.length}`;
    // A page is the first matches in time order: read through the time index until it is full.
    // Guessing few matches for a text or attribute filter (from sampled statistics), the planner
    // may instead read and sort the whole window: 1.5 s for a day of a million records, against
    // 16 ms. A trace's records are few, and its own index finds them faster than time order.
    if (query.traceId) return page(await this.db.query<LogRow>(select, params), query);
    return this.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_sort = off');
      const found = page(await tx.query<LogRow>(select, params), query);
      if (found.nextCursor || !bounded) return found;
      const bound = await scanBound(tx, rest, cursor, oldest, this.searchScanLimit);
      if (!bound) return found;
      return {
        ...found,
        nextCursor: encodeLogCursor(query.order, bound.timestamp_cursor, bound.id),
        searchedTo: bound.timestamp,
      };
    });
  }

  async logVolume(filter: LogFilter & { since: number; until: number }, bucketSeconds: number): Promise<LogVolumeCounts> {
    if (countedPerMinute(filter, bucketSeconds)) return { counts: await this.countMinutes(filter, bucketSeconds) };
    // A trace's records are few, found through their index: counted whole.
    if (!searchesContent(filter) || filter.traceId) return { counts: await this.countRows(filter, bucketSeconds) };
    return this.countNewestRows(filter, bucketSeconds);
  }

  /** logVolume from the per-minute counts, for a filter of levels and environment alone. */
  private async countMinutes(filter: LogFilter & { since: number; until: number }, bucketSeconds: number): Promise<LogVolume[]> {
    // Whole minutes from the per-minute counts; the minute `until` falls in from its rows (bucket
    // boundaries fall on minutes, so a minute is in one bucket).
    const lastMinute = Math.floor(filter.until / 60) * 60;
    // $2 is where buckets start, as given; the bounds are what a timestamp holds.
    const params: unknown[] = [filter.projectId, filter.since, timeBound(lastMinute), bucketSeconds, timeBound(filter.since)];
    const conditions = ['project_id = $1', 'minute >= to_timestamp($5::float8)', 'minute < to_timestamp($3::float8)'];
    if (filter.levels && filter.levels.length > 0) {
      params.push(filter.levels);
      conditions.push(`level = ANY($${params.length}::text[])`);
    }
    if (filter.environment !== undefined) {
      params.push(filter.environment);
      conditions.push(`environment = $${params.length}`);
    }
    const minutes = await this.db.query<{ bucket: number; level: LogLevel; count: number }>(
      `SELECT floor((extract(epoch FROM minute) - $2::float8) / $4::float8)::int AS bucket, level, sum(records)::int AS count
       FROM log_volume WHERE ${conditions.join(' AND ')} GROUP BY 1, 2`,
      params,
    );
    const whole = minutes.rows.map((row) => ({
      start: filter.since + row.bucket * bucketSeconds,
      level: row.level,
      count: row.count,
    }));
    // Also when `until` is that minute's start: a record at exactly `until` is in the window.
    const rest =
      lastMinute <= filter.until
        ? await this.countRows({ ...filter, since: Math.max(filter.since, lastMinute) }, bucketSeconds, filter.since)
        : [];
    return mergeVolumes([...whole, ...rest]);
  }

  /**
   * logVolume of a search by text or attributes: those are tested row by row, so it reads at
   * most the window's newest `volumeScanLimit` records (through the time index) and says from
   * when it counted. One page view then costs PGlite, which answers one query at a time, a
   * bounded moment, not seconds of everyone's ingest. Having read exactly the limit, it says it
   * was bounded: it cannot tell whether older records were left.
   */
  private async countNewestRows(
    filter: LogFilter & { since: number; until: number },
    bucketSeconds: number,
  ): Promise<LogVolumeCounts> {
    const { projectId, levels, environment, since, until, text, attributes, comparisons } = filter;
    const window = filterConditions({ projectId, levels, environment, since, until });
    const content = filterConditions({ projectId, text, attributes, comparisons }, window.params);
    const params = content.params;
    params.push(this.volumeScanLimit, since, bucketSeconds);
    const [limit, origin, bucket] = [params.length - 2, params.length - 1, params.length];
    const result = await this.db.query<{ bucket: number; level: LogLevel; count: number; read: number; oldest: number }>(
      `WITH recent AS (
         SELECT project_id, timestamp, level, body, attributes FROM logs WHERE ${window.conditions.join(' AND ')}
         ORDER BY logs.timestamp DESC, logs.id DESC LIMIT $${limit})
       SELECT floor((extract(epoch FROM timestamp) - $${origin}::float8) / $${bucket}::float8)::int AS bucket, level,
         (count(*) FILTER (WHERE ${content.conditions.join(' AND ')}))::int AS count, count(*)::int AS read,
         extract(epoch FROM min(timestamp))::float8 AS oldest
       FROM recent GROUP BY 1, 2 ORDER BY 1, 2`,
      params,
    );
    const counts = result.rows
      .filter((row) => row.count > 0)
      .map((row) => ({ start: since + row.bucket * bucketSeconds, level: row.level, count: row.count }));
    const read = result.rows.reduce((sum, row) => sum + row.read, 0);
    if (read < this.volumeScanLimit) return { counts };
    return { counts, countedSince: Math.min(...result.rows.map((row) => row.oldest)) };
  }

  /** logVolume by reading every matching row; buckets start at `origin` (the window's start). */
  private async countRows(
    filter: LogFilter & { since: number; until: number },
    bucketSeconds: number,
    origin = filter.since,
  ): Promise<LogVolume[]> {
    const { conditions, params } = filterConditions(filter);
    params.push(origin, bucketSeconds);
    const [since, bucket] = [params.length - 1, params.length];
    const result = await this.db.query<{ bucket: number; level: LogLevel; count: number }>(
      `SELECT floor((extract(epoch FROM timestamp) - $${since}::float8) / $${bucket}::float8)::int AS bucket, level,
         count(*)::int AS count
       FROM logs WHERE ${conditions.join(' AND ')} GROUP BY 1, 2 ORDER BY 1, 2`,
      params,
    );
    return result.rows.map((row) => ({ start: origin + row.bucket * bucketSeconds, level: row.level, count: row.count }));
  }

  async deleteLogsBefore(cutoff: number): Promise<number> {
    const minute = Math.floor(cutoff / 60) * 60;
    return this.db.transaction(async (tx) => {
      const deleted = await tx.query('DELETE FROM logs WHERE timestamp < to_timestamp($1::float8)', [cutoff]);
      await tx.query('DELETE FROM log_volume WHERE minute <= to_timestamp($1::float8)', [minute]);
      // The cutoff's own minute lost only its earlier records: count what is left of it again.
      await tx.query(
        `${ADD_TO_VOLUME} FROM logs
         WHERE timestamp >= to_timestamp($1::float8) AND timestamp < to_timestamp($1::float8 + 60) GROUP BY 1, 2, 3, 4`,
        [minute],
      );
      return deleted.affectedRows;
    });
  }

  async deleteLogsOfProject(projectId: number): Promise<void> {
    // In parts (a project may have millions of records), then the counts.
    const part = deletePartSql('logs', 'project_id = $1', DELETE_PART_ROWS);
    await deleteWhileFull(DELETE_PART_ROWS, async () => (await this.db.query(part, [projectId])).affectedRows);
    await this.db.query('DELETE FROM log_volume WHERE project_id = $1', [projectId]);
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }
}

// A window's bounds come from any date Date.parse reads (the Logs page's `from` and `to`,
// search_logs'), and to_timestamp refuses those past Postgres's range (4713 BC to 294276 AD)
// with an error. Stored records are plausible times (ingest refuses the rest), so a bound
// beyond the years 1 to 9999 matches the same records as that year's end.
const FIRST_SECOND = -62_135_596_800;
const LAST_SECOND = 253_402_300_799;

/** A query bound to_timestamp takes, matching the same records as the bound given. */
function timeBound(seconds: number): number {
  return Math.min(LAST_SECOND, Math.max(FIRST_SECOND, seconds));
}

/** The first `limit` rows of a search's result, and a cursor to read on when it holds one more. */
function page(result: { rows: LogRow[] }, query: Pick<LogQuery, 'limit' | 'order'>): LogPage {
  const rows = result.rows.slice(0, query.limit);
  const last = rows[rows.length - 1];
  const items = rows.map(toLogRecord);
  return result.rows.length > query.limit && last
    ? { items, nextCursor: encodeLogCursor(query.order, last.timestamp_cursor, last.id) }
    : { items };
}

/**
 * The last record a search by text or attributes read, when it read all it may and the window
 * holds more: the `scanLimit`-th of the window after the cursor, in the page's order. Every
 * record read is tested row by row, and PGlite answers one query at a time: a search that matched
 * nothing in a day of a million records held every other query, ingest's included, for seconds.
 */
async function scanBound(
  db: SqlExecutor,
  filter: LogFilter,
  cursor: CursorKey | undefined,
  oldest: boolean,
  scanLimit: number,
): Promise<ScanBound | undefined> {
  const direction = oldest ? 'ASC' : 'DESC';
  const { conditions, params } = windowConditions(filter, cursor, oldest);
  params.push(scanLimit - 1);
  // Two rows: the last one read, and whether any is left after it. A window of exactly
  // scanLimit records was read whole, and needs no page after it.
  const result = await db.query<ScanBound>(
    `SELECT extract(epoch from timestamp)::float8 AS timestamp,
       ${TIMESTAMP_CURSOR}, id
     FROM logs WHERE ${conditions.join(' AND ')}
     ORDER BY logs.timestamp ${direction}, logs.id ${direction} OFFSET $${params.length} LIMIT 2`,
    params,
  );
  return result.rows.length === 2 ? result.rows[0] : undefined;
}

/** A filter's conditions, and the records after the cursor in the page's order. */
function windowConditions(filter: LogFilter, cursor: CursorKey | undefined, oldest: boolean) {
  const window = filterConditions(filter);
  if (cursor) {
    window.params.push(cursor[0], cursor[1]);
    const n = window.params.length;
    window.conditions.push(`(timestamp, id) ${oldest ? '>' : '<'} ($${n - 1}::timestamptz, $${n})`);
  }
  return window;
}

/**
 * The WHERE conditions of a filter and their parameters, numbered after `params` (which they
 * extend; more may be pushed after).
 */
function filterConditions(query: LogFilter, params: unknown[] = []): { conditions: string[]; params: unknown[] } {
  const conditions = query.moreProjectIds?.length
    ? [`project_id = ANY($${params.push([query.projectId, ...query.moreProjectIds])}::integer[])`]
    : [`project_id = $${params.push(query.projectId)}`];
  const add = (condition: (n: number) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(params.length));
  };
  if (query.levels && query.levels.length > 0) add((n) => `level = ANY($${n}::text[])`, query.levels);
  if (query.text) add((n) => `body ILIKE $${n}`, containsPattern(query.text));
  if (query.traceId) add((n) => `trace_id = $${n}`, query.traceId.toLowerCase());
  if (query.environment !== undefined) add((n) => `environment = $${n}`, query.environment);
  if (query.since !== undefined) add((n) => `timestamp >= to_timestamp($${n}::float8)`, timeBound(query.since));
  if (query.until !== undefined) add((n) => `timestamp <= to_timestamp($${n}::float8)`, timeBound(query.until));
  for (const [key, value] of Object.entries(query.attributes ?? {})) {
    params.push(key, value);
    // ->> 'value' renders numbers and booleans as text, so "42" matches an integer 42.
    conditions.push(`attributes -> $${params.length - 1} ->> 'value' = $${params.length}`);
  }
  for (const { key, operator, value } of query.comparisons ?? []) {
    // The operator is spliced into the SQL: only the four the port names.
    if (!COMPARISON_OPERATORS.includes(operator)) throw new Error(`not a comparison operator: ${String(operator)}`);
    params.push(key, value);
    const text = `(attributes -> $${params.length - 1} ->> 'value')`;
    // CASE, not AND: Postgres may evaluate an AND's sides in either order, and the cast must
    // only see text that reads as a number (the same text ClickHouse's toFloat64OrNull accepts,
    // with an exponent of at most three digits). As numeric, not float8: one stored "1e999"
    // was out of float8's range and failed every comparison search over its window.
    conditions.push(`CASE WHEN ${text} ~ '${STORED_NUMBER}' THEN ${text}::numeric END ${operator} $${params.length}::numeric`);
  }
  return { conditions, params };
}

/** The start of a statement adding the counts of selected rows (with project_id, timestamp, level, environment) to log_volume. */
const ADD_TO_VOLUME = `INSERT INTO log_volume (project_id, minute, level, environment, records)
  SELECT project_id, to_timestamp(floor(extract(epoch FROM timestamp) / 60) * 60), level, coalesce(environment, ''), count(*)::int`;

/**
 * Whether log_volume can answer: a filter of levels and environment alone (the counts know no
 * text or attributes), buckets of whole minutes from a minute's start. An empty environment is
 * left to the rows, since the counts file records without one under ''.
 */
function countedPerMinute(filter: LogFilter & { since: number }, bucketSeconds: number): boolean {
  return (
    !searchesContent(filter) &&
    !filter.traceId &&
    // The per-minute counts are read by one project's id.
    !filter.moreProjectIds?.length &&
    filter.environment !== '' &&
    bucketSeconds % 60 === 0 &&
    filter.since % 60 === 0
  );
}

/** Sums the counts of the same bucket and level; oldest first, then by level. */
function mergeVolumes(volumes: LogVolume[]): LogVolume[] {
  const merged = new Map<string, LogVolume>();
  for (const v of volumes) {
    const key = `${v.start} ${v.level}`;
    const seen = merged.get(key);
    if (seen) seen.count += v.count;
    else merged.set(key, { ...v });
  }
  return [...merged.values()].sort((a, b) => a.start - b.start || a.level.localeCompare(b.level));
}

function toLogRecord(row: LogRow): LogRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    timestamp: row.timestamp,
    observedAt: row.observed_at,
    traceId: row.trace_id,
    spanId: row.span_id,
    level: row.level,
    severityNumber: row.severity_number,
    body: row.body,
    attributes: row.attributes,
    release: row.release,
    environment: row.environment,
  };
}
