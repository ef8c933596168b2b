// EventStore on ClickHouse (distributed): the dispatcher's writes are coalesced into batched
// TabSeparated INSERTs (tab-separated.ts); reads serve the mcp role. Idempotent by (project,
// event id): the first write wins (first-write-wins.ts) and every read dedupes, since merges
// collapse copies only eventually. Retention drops whole days (day-partitions.ts).
import { insertFirstWrites, selectRows, type ReadOptions } from './clickhouse-io.ts';
import type { ClickHouseClient } from '@clickhouse/client';
import type { NormalizedEvent } from '../../core/event/event.ts';
import type { Level } from '../../core/event/level.ts';
import {
  USER_SCAN_EVENTS,
  STATS_RELEASES,
  type DailyCount,
  type EventNeighbours,
  type HourlyCount,
  type EventStore,
  type IssueEventStats,
  type NewEvent,
  type StoredEvent,
} from '../../core/ports/event-store.ts';
import { pingClickHouse } from './clickhouse-ping.ts';
import { tableName } from './clickhouse-schema.ts';
import { join, raw, sql, type Sql } from './clickhouse-sql.ts';
import { dropDaysBefore } from './day-partitions.ts';
import { deleteRows, deleteRowsOnce } from './delete-mutation.ts';
import { FirstWriteVersions } from './first-write-wins.ts';
import { InsertBatcher, type BatchedWriteOptions } from './insert-batcher.ts';
import { nullableText, text, unsigned, UINT32_MAX } from './insert-values.ts';
import { tabSeparatedRows, tsvDateTime, tsvNullableText, tsvText } from './tab-separated.ts';
import { boundMicros, dateTimeOfMicros, fromMicros, toMicros } from './time-columns.ts';

/** A row as inserted; `version` is set per INSERT. */
interface EventInsertRow {
  project_id: number;
  event_id: string;
  issue_id: number;
  timestamp: number;
  timestamp_us: number;
  received_at_us: number;
  level: string;
  title: string;
  culprit: string;
  platform: string;
  environment: string | null;
  release: string | null;
  trace_id: string | null;
  user_key: string | null;
  payload: string;
  version: number;
}

/** A row as read; 64-bit integers arrive as strings from 18.16 and as numbers from newer servers. */
interface EventSelectRow {
  project_id: number;
  event_id: string;
  issue_id: number;
  timestamp_us: string | number;
  received_at_us: string | number;
  level: Level;
  title: string;
  culprit: string;
  platform: string;
  environment: string | null;
  release: string | null;
  trace_id: string | null;
  user_key: string | null;
  payload: string;
}

/** The INSERT's columns, each with its field of a row's line. */
const EVENT_LINES = tabSeparatedRows<EventInsertRow>([
  ['project_id', (r) => String(r.project_id)],
  ['event_id', (r) => tsvText(r.event_id)],
  ['issue_id', (r) => String(r.issue_id)],
  ['timestamp', (r) => tsvDateTime(r.timestamp)],
  ['timestamp_us', (r) => String(r.timestamp_us)],
  ['received_at_us', (r) => String(r.received_at_us)],
  ['level', (r) => tsvText(r.level)],
  ['title', (r) => tsvText(r.title)],
  ['culprit', (r) => tsvText(r.culprit)],
  ['platform', (r) => tsvText(r.platform)],
  ['environment', (r) => tsvNullableText(r.environment)],
  ['release', (r) => tsvNullableText(r.release)],
  ['trace_id', (r) => tsvNullableText(r.trace_id)],
  ['user_key', (r) => tsvNullableText(r.user_key)],
  ['payload', (r) => tsvText(r.payload)],
  ['version', (r) => String(r.version)],
]);

const COLUMNS = raw(`project_id, event_id, issue_id, timestamp_us, received_at_us, level, title, culprit, platform,
  environment, release, trace_id, user_key, payload`);

/** Newest first; event_id breaks ties so that every read picks the same one. */
const NEWEST_FIRST = raw('timestamp_us DESC, received_at_us DESC, event_id DESC');
const OLDEST_FIRST = raw('timestamp_us ASC, received_at_us ASC, event_id ASC');

export class ClickHouseEventStore implements EventStore {
  private readonly table: Sql;
  private readonly versions = new FirstWriteVersions();
  private readonly batcher: InsertBatcher<EventInsertRow>;
  private readonly readLimitSeconds: number | undefined;

  constructor(
    private readonly client: ClickHouseClient,
    private readonly database: string,
    options: BatchedWriteOptions & ReadOptions = {},
  ) {
    this.readLimitSeconds = options.readLimitSeconds;
    this.table = tableName(database, 'events');
    this.batcher = new InsertBatcher(
      (rows) => this.insertBatch(rows),
      options.batch,
      options.report,
      (row) => row.payload.length + row.title.length + row.culprit.length,
    );
  }

  /** The JSON itself: ClickHouse compresses its parts on its own. */
  encodePayload(payloadJson: string): string {
    return payloadJson;
  }

  async insertEvents(events: NewEvent[]): Promise<void> {
    await this.batcher.add(events.map(toInsertRow));
  }

  async getEvent(projectId: number, eventId: string): Promise<StoredEvent | undefined> {
    // Of several copies (before a merge), the largest version is the first write.
    return this.selectOne(sql`SELECT ${COLUMNS} FROM ${this.table}
      WHERE project_id = ${projectId} AND event_id = ${eventId} ORDER BY version DESC LIMIT 1`);
  }

  async latestEventForIssue(projectId: number, issueId: number, environment?: string): Promise<StoredEvent | undefined> {
    // The id first, over the narrow sort columns only; then that event's first write, whole.
    const inEnvironment = environment === undefined ? sql`` : sql` AND environment = ${environment}`;
    return this.selectOne(sql`SELECT ${COLUMNS} FROM ${this.table}
      WHERE project_id = ${projectId} AND issue_id = ${issueId} AND event_id IN (
        SELECT event_id FROM ${this.table} WHERE project_id = ${projectId} AND issue_id = ${issueId}${inEnvironment}
        ORDER BY timestamp_us DESC, received_at_us DESC, event_id DESC LIMIT 1)
      ORDER BY version DESC LIMIT 1`);
  }

  async eventNeighbours(projectId: number, issueId: number, eventId: string): Promise<EventNeighbours> {
    const issue = sql`project_id = ${projectId} AND issue_id = ${issueId}`;
    const me = (
      await this.select<{ timestamp_us: string | number; received_at_us: string | number }>(sql`
        SELECT timestamp_us, received_at_us FROM ${this.table} WHERE ${issue} AND event_id = ${eventId} LIMIT 1`)
    )[0];
    if (!me) return { older: null, newer: null };
    // Spelled out rather than as tuple comparisons, which 18.16 may not order lexicographically.
    const [t, r] = [Number(me.timestamp_us), Number(me.received_at_us)];
    const side = async (op: '<' | '>', order: Sql) => {
      const cmp = raw(op);
      // The plain bound (timestamp_us op= t) is what the sorting key can use; the rest breaks ties.
      const rows = await this.select<{ event_id: string }>(sql`SELECT event_id FROM ${this.table} WHERE ${issue}
        AND timestamp_us ${cmp}= ${t} AND (timestamp_us ${cmp} ${t} OR (timestamp_us = ${t} AND (received_at_us ${cmp} ${r}
          OR (received_at_us = ${r} AND event_id ${cmp} ${eventId}))))
        ORDER BY ${order} LIMIT 1`);
      return rows[0]?.event_id ?? null;
    };
    return {
      older: await side('<', NEWEST_FIRST),
      newer: await side('>', raw('timestamp_us ASC, received_at_us ASC, event_id ASC')),
    };
  }

  async eventsForTrace(projectIds: number[], traceId: string, limit: number): Promise<StoredEvent[]> {
    if (projectIds.length === 0) return [];
    const projects = projectIds.map((id) => sql`${id}`);
    // The table sorts by issue, not trace: this reads the projects' trace_id column, which a
    // trace view (one request's events) can afford. Each event's first write, once.
    const rows = await this.select<EventSelectRow>(sql`SELECT * FROM (
        SELECT ${COLUMNS} FROM ${this.table}
        WHERE project_id IN (${join(projects, ', ')}) AND trace_id = ${traceId.toLowerCase()}
        ORDER BY ${OLDEST_FIRST}, version DESC LIMIT 1 BY project_id, event_id)
      ORDER BY ${OLDEST_FIRST} LIMIT ${limit}`);
    return rows.map(toStoredEvent);
  }

  async latestEventPerUser(projectId: number, issueId: number, limit: number): Promise<StoredEvent[]> {
    // The ids first (the issue's newest events, each once; each user's newest of those; the
    // newest of these); then each one's first write, whole.
    const issue = sql`project_id = ${projectId} AND issue_id = ${issueId}`;
    const rows = await this.select<EventSelectRow>(sql`SELECT ${COLUMNS} FROM ${this.table}
      WHERE ${issue} AND event_id IN (
        SELECT event_id FROM (
          SELECT event_id, timestamp_us, received_at_us FROM (
            SELECT event_id, user_key, timestamp_us, received_at_us FROM ${this.table} WHERE ${issue}
            ORDER BY ${NEWEST_FIRST} LIMIT 1 BY event_id LIMIT ${USER_SCAN_EVENTS})
          WHERE isNotNull(user_key) ORDER BY ${NEWEST_FIRST} LIMIT 1 BY user_key)
        ORDER BY ${NEWEST_FIRST} LIMIT ${limit})
      ORDER BY ${NEWEST_FIRST}, version DESC LIMIT 1 BY event_id`);
    return rows.map(toStoredEvent);
  }

  async issueEventStats(projectId: number, issueId: number, since: number): Promise<IssueEventStats> {
    // Copies of an event share its time and release, so min, max and the distinct releases need no dedupe.
    const rows = await this.select<{
      count: string;
      first: string;
      last: string;
      releases: string[];
      release_count: string;
      users: string;
    }>(sql`
      SELECT toString(uniqExact(event_id)) AS count, toString(uniqExactIf(user_key, user_key IS NOT NULL)) AS users,
        toString(min(timestamp_us)) AS first, toString(max(timestamp_us)) AS last,
        arraySlice(arraySort(groupUniqArray(release)), 1, ${STATS_RELEASES}) AS releases,
        toString(uniqExactIf(release, release IS NOT NULL)) AS release_count
      FROM ${this.table} WHERE project_id = ${projectId} AND issue_id = ${issueId} AND ${from(since)}`);
    const row = rows[0]!;
    const count = Number(row.count);
    return count === 0
      ? { count, firstSeen: null, lastSeen: null, releases: [], releaseCount: 0, users: 0 }
      : {
          count,
          firstSeen: fromMicros(row.first),
          lastSeen: fromMicros(row.last),
          releases: row.releases,
          releaseCount: Number(row.release_count),
          users: Number(row.users),
        };
  }

  async dailyEventCounts(projectId: number, issueId: number, since: number): Promise<DailyCount[]> {
    // `timestamp` is DateTime('UTC'), so toDate gives the UTC day.
    const rows = await this.select<{ day: string; count: string }>(sql`
      SELECT toString(toDate(timestamp)) AS day, toString(uniqExact(event_id)) AS count FROM ${this.table}
      WHERE project_id = ${projectId} AND issue_id = ${issueId} AND ${from(since)} GROUP BY day ORDER BY day`);
    return rows.map((r) => ({ day: r.day, count: Number(r.count) }));
  }

  async hourlyEventCounts(projectId: number, issueIds: number[], since: number): Promise<HourlyCount[]> {
    if (issueIds.length === 0) return [];
    const issues = issueIds.map((id) => sql`${id}`);
    const rows = await this.select<{ issue_id: number; hour: string; count: string }>(sql`
      SELECT issue_id, toString(toUnixTimestamp(toStartOfHour(timestamp))) AS hour, toString(uniqExact(event_id)) AS count
      FROM ${this.table}
      WHERE project_id = ${projectId} AND issue_id IN (${join(issues, ', ')}) AND ${from(since)}
      GROUP BY issue_id, hour ORDER BY hour, issue_id`);
    return rows.map((r) => ({ issueId: Number(r.issue_id), hour: Number(r.hour), count: Number(r.count) }));
  }

  async countEventsByIssue(projectIds: number[], since: number, until: number): Promise<Map<number, number>> {
    if (projectIds.length === 0) return new Map();
    const projects = projectIds.map((p) => sql`${p}`);
    const rows = await this.select<{ issue_id: number; count: string }>(sql`
      SELECT issue_id, toString(uniqExact(project_id, event_id)) AS count FROM ${this.table}
      WHERE project_id IN (${join(projects, ', ')}) AND ${from(since)} AND ${before(until)}
      GROUP BY issue_id`);
    return new Map(rows.map((r) => [Number(r.issue_id), Number(r.count)]));
  }

  /**
   * A mutation, which the server applies in the background: rows still waiting in the batcher
   * go first (they would be written after it, untouched), and it resolves once the mutation is done.
   * One mutation for all the issues: each mutation rewrites the parts it touches, so a bulk delete
   * must not become one per issue.
   */
  async deleteEventsForIssues(projectId: number, issueIds: number[]): Promise<void> {
    if (issueIds.length === 0) return;
    await this.batcher.flush();
    const issues = join(
      issueIds.map((id) => sql`${id}`),
      ', ',
    );
    await deleteRows(this.at(), sql`project_id = ${projectId} AND issue_id IN (${issues})`);
  }

  async deleteEventsOfProject(projectId: number): Promise<void> {
    await this.batcher.flush();
    await deleteRowsOnce(this.at(), sql`project_id = ${projectId}`);
  }

  async issuesWithEvents(projectId: number, issueIds: number[]): Promise<number[]> {
    if (issueIds.length === 0) return [];
    await this.batcher.flush();
    const issues = join(
      issueIds.map((id) => sql`${id}`),
      ', ',
    );
    const rows = await this.select<{ issue_id: number }>(sql`SELECT DISTINCT issue_id FROM ${this.table}
      WHERE project_id = ${projectId} AND issue_id IN (${issues}) ORDER BY issue_id`);
    return rows.map((row) => Number(row.issue_id));
  }

  async countEventsForIssue(projectId: number, issueId: number): Promise<number> {
    const rows = await this.select<{ count: string }>(sql`SELECT toString(uniqExact(event_id)) AS count FROM ${this.table}
      WHERE project_id = ${projectId} AND issue_id = ${issueId}`);
    return Number(rows[0]?.count ?? 0);
  }

  /** Drops whole UTC days that end at or before the cutoff (see day-partitions.ts). */
  async deleteEventsBefore(cutoff: number): Promise<number> {
    return dropDaysBefore(this.client, this.database, 'events', cutoff);
  }

  async ping(): Promise<void> {
    await pingClickHouse(this.client);
  }

  /** Sends the rows still waiting for their batch; the next insert starts a new one. */
  async flush(): Promise<void> {
    await this.batcher.flush();
  }

  /** Flushes, then refuses further writes. Leaves the client open (its owner closes it). */
  async close(): Promise<void> {
    await this.batcher.close();
  }

  private insertBatch(rows: EventInsertRow[]): Promise<void> {
    return insertFirstWrites(this.client, this.table, rows, (r) => `${r.project_id}:${r.event_id}`, this.versions, EVENT_LINES);
  }

  /** The events table, as delete-mutation.ts's deletes take it. */
  private at() {
    return { client: this.client, database: this.database, table: 'events' as const, readLimitSeconds: this.readLimitSeconds };
  }

  private async selectOne(query: Sql): Promise<StoredEvent | undefined> {
    const rows = await this.select<EventSelectRow>(query);
    return rows[0] && toStoredEvent(rows[0]);
  }

  private select<T>(query: Sql): Promise<T[]> {
    return selectRows<T>(this.client, query, this.readLimitSeconds);
  }
}

/** timestamp_us >= since; the same bound on `timestamp` lets the server skip whole day partitions. */
function from(since: number): Sql {
  const micros = boundMicros(since);
  return sql`timestamp_us >= ${micros} AND timestamp >= toDateTime(${dateTimeOfMicros(micros)})`;
}

/** timestamp_us < until, likewise. */
function before(until: number): Sql {
  const micros = boundMicros(until);
  return sql`timestamp_us < ${micros} AND timestamp <= toDateTime(${dateTimeOfMicros(micros)})`;
}

function toInsertRow(e: NewEvent): EventInsertRow {
  const micros = toMicros(e.timestamp);
  return {
    project_id: unsigned(e.projectId, UINT32_MAX, 'projectId'),
    event_id: text(e.eventId),
    issue_id: unsigned(e.issueId, UINT32_MAX, 'issueId'),
    timestamp: dateTimeOfMicros(micros),
    timestamp_us: micros,
    received_at_us: toMicros(e.receivedAt),
    level: text(e.level),
    title: text(e.title),
    culprit: text(e.culprit),
    platform: text(e.platform),
    environment: nullableText(e.environment),
    release: nullableText(e.release),
    trace_id: nullableText(e.traceId),
    user_key: nullableText(e.userKey),
    payload: text(e.encodedPayload),
    version: 0,
  };
}

function toStoredEvent(row: EventSelectRow): StoredEvent {
  return {
    projectId: row.project_id,
    eventId: row.event_id,
    issueId: row.issue_id,
    timestamp: fromMicros(row.timestamp_us),
    receivedAt: fromMicros(row.received_at_us),
    level: row.level,
    title: row.title,
    culprit: row.culprit,
    platform: row.platform,
    environment: row.environment,
    release: row.release,
    traceId: row.trace_id,
    userKey: row.user_key,
    payload: JSON.parse(row.payload) as NormalizedEvent,
  };
}
