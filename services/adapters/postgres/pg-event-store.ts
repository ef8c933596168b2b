// EventStore over SQL (PGlite standalone; also usable on Postgres). Inserts are multi-row and
// idempotent by (project, event id).
import { deflateRawSync, inflateRawSync } from 'node:zlib';
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
import { countedHours, hourParams, HourTally, splitAtHours } from './event-hours.ts';
import { PayloadSegments } from './payload-segments.ts';
import { segmentOfReference } from './reference-sql.ts';
import { chunk, unnestRows, valuesList, type SqlClient, type SqlExecutor } from './sql-client.ts';

// Fast compression with a small window: event payloads are a few KB, so a 4 KB window compresses
// them as well as the default 32 KB one (measured: ratio 0.25 either way), and each call's zlib
// state is ~32 KB instead of ~256 KB. Every call allocates that state anew, and at a thousand
// events a second the larger size kept the garbage collector busy. Inflating needs no options:
// the default window reads streams written with any smaller one.
const DEFLATE = { level: 1, windowBits: 12, memLevel: 5 } as const;

interface EventRow {
  project_id: number;
  event_id: string;
  issue_id: number;
  timestamp: number;
  received_at: number;
  level: Level;
  title: string;
  culprit: string;
  platform: string;
  environment: string | null;
  release: string | null;
  trace_id: string | null;
  user_key: string | null;
  payload_deflated: string;
}

const COLUMNS = `project_id, event_id, issue_id, extract(epoch from timestamp)::float8 AS timestamp,
  extract(epoch from received_at)::float8 AS received_at, level, title, culprit, platform, environment, release,
  trace_id, user_key, payload_deflated`;

// Qualified on purpose: a bare `timestamp` in ORDER BY names COLUMNS' float alias, which no
// index holds, so the newest of a loud issue's events was found by sorting all of them (90 ms
// for 9,000 events in bench:dashboard; 0.4 ms through events_issue_time).
const NEWEST_FIRST = 'events.timestamp DESC, events.received_at DESC, events.event_id DESC';

const CASTS = [
  'integer',
  'text',
  'integer',
  'float8',
  'float8',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
];

/**
 * Event rows one deleting transaction removes at most. The embedded database runs one transaction
 * at a time, so deleting an issue of a million events, or an hour of them at retention, in one
 * held every query (pages, ingest's batches) until it ended; in parts, they run in between.
 */
const DELETE_CHUNK_ROWS = 10_000;

export class PgEventStore implements EventStore {
  /**
   * With `segments` (the standalone server's), payloads are kept in those files and rows hold
   * references; without (Postgres), in the rows. Rows of either kind read back the same.
   */
  constructor(
    private readonly db: SqlClient,
    private readonly segments?: PayloadSegments,
    private readonly deleteChunkRows = DELETE_CHUNK_ROWS,
  ) {}

  /**
   * Deflated, then appended to a payload segment (its reference returned), or base64-encoded for
   * the row. Synchronous, one payload at a time: for payloads of a few KB, zlib's asynchronous form
   * (a stream, a hop to libuv's pool and back) cost twice the CPU (190-235 against 100-125 us per
   * 9 KB payload, all threads counted), and a batch's worth of calls at once each held its zlib
   * state (~40 KB of malloc) until done, tens of megabytes that malloc kept. Handed to the
   * segments as it is made, the payload leaves the heap at once rather than riding along with its
   * batch (they gather at most 256 KB before writing).
   */
  encodePayload(payloadJson: string): string {
    const deflated = deflateRawSync(payloadJson, DEFLATE);
    return this.segments ? this.segments.append(deflated) : deflated.toString('base64');
  }

  /**
   * All rows in one transaction: one commit per batch, not one per statement. The payload segments
   * its rows refer to are synced first, and their newest event times and committed ends raised in
   * the same transaction, so a committed row never points at bytes a crash could lose, a start
   * cut off or retention remove. Payloads no row will refer to go on the erasure list in the same
   * transaction (listUnstoredPayloads); synced, their bytes are on disk before the erasure job
   * overwrites them. When the sync or the transaction fails, the batch's payloads go on the list
   * in another transaction (the batch is stored again with copies of its own), but for any a
   * committed row holds. That guard is for a commit whose answer was lost; segments are only
   * ever given with PGlite, where a transaction that failed is over when the error comes back.
   */
  async insertEvents(events: NewEvent[], unused: string[] = []): Promise<void> {
    if (events.length === 0 && (unused.length === 0 || !this.segments)) return;
    try {
      this.segments?.sync();
      await this.db.transaction(async (tx) => {
        const repeated = await insertEventRows(tx, events);
        await recordSegmentTimes(tx, events, unused);
        if (this.segments) await listUnstoredPayloads(tx, repeated, unused, events);
      });
    } catch (error) {
      if (this.segments) {
        // Best effort, the batch's error being the one to report: where this fails too (the
        // database is gone), the copies stay until their segment goes, or a start cuts them off
        // where no later batch committed past them.
        await this.db.transaction((tx) => listUnstoredPayloads(tx, events, unused, events)).catch(() => {});
      }
      throw error;
    }
  }

  async getEvent(projectId: number, eventId: string): Promise<StoredEvent | undefined> {
    const result = await this.db.query<EventRow>(`SELECT ${COLUMNS} FROM events WHERE project_id = $1 AND event_id = $2`, [
      projectId,
      eventId,
    ]);
    return result.rows[0] && (await this.stored(result.rows[0]));
  }

  async latestEventForIssue(projectId: number, issueId: number, environment?: string): Promise<StoredEvent | undefined> {
    // With an environment the index still walks the issue newest first, stopping at the first match.
    const result = await this.db.query<EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE project_id = $1 AND issue_id = $2
         ${environment === undefined ? '' : 'AND environment = $3'} ORDER BY ${NEWEST_FIRST} LIMIT 1`,
      environment === undefined ? [projectId, issueId] : [projectId, issueId, environment],
    );
    return result.rows[0] && (await this.stored(result.rows[0]));
  }

  async eventNeighbours(projectId: number, issueId: number, eventId: string): Promise<EventNeighbours> {
    // Row comparison against the stored event itself, so no timestamp goes through a float. The
    // bounds are scalar subqueries, which the planner runs first and hands to events_issue_time
    // as where to start; joined to me they were only a filter, and finding that the newest event
    // has no newer one read all of a loud issue's events (80 ms for 9,000).
    const result = await this.db.query<{ older: string | null; newer: string | null }>(
      `WITH me AS MATERIALIZED (SELECT timestamp, received_at, event_id FROM events WHERE project_id = $1 AND issue_id = $2 AND event_id = $3)
       SELECT
         (SELECT e.event_id FROM events e WHERE e.project_id = $1 AND e.issue_id = $2
            AND e.timestamp <= (SELECT timestamp FROM me)
            AND (e.timestamp, e.received_at, e.event_id) < (SELECT timestamp, received_at, event_id FROM me)
            ORDER BY e.timestamp DESC, e.received_at DESC, e.event_id DESC LIMIT 1) AS older,
         (SELECT e.event_id FROM events e WHERE e.project_id = $1 AND e.issue_id = $2
            AND e.timestamp >= (SELECT timestamp FROM me)
            AND (e.timestamp, e.received_at, e.event_id) > (SELECT timestamp, received_at, event_id FROM me)
            ORDER BY e.timestamp, e.received_at, e.event_id LIMIT 1) AS newer`,
      [projectId, issueId, eventId],
    );
    const row = result.rows[0];
    return { older: row?.older ?? null, newer: row?.newer ?? null };
  }

  async countEventsForIssue(projectId: number, issueId: number): Promise<number> {
    const result = await this.db.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM events WHERE project_id = $1 AND issue_id = $2',
      [projectId, issueId],
    );
    return result.rows[0]?.count ?? 0;
  }

  async issuesWithEvents(projectId: number, issueIds: number[]): Promise<number[]> {
    if (issueIds.length === 0) return [];
    // One probe of the (project, issue) index each, not a read of every event of the issues.
    const result = await this.db.query<{ id: number }>(
      `SELECT id FROM unnest($2::int[]) AS id
       WHERE EXISTS (SELECT 1 FROM events WHERE project_id = $1 AND issue_id = id) ORDER BY id`,
      [projectId, [...new Set(issueIds)]],
    );
    return result.rows.map((r) => r.id);
  }

  async eventsForTrace(projectIds: number[], traceId: string, limit: number): Promise<StoredEvent[]> {
    if (projectIds.length === 0) return [];
    const result = await this.db.query<EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE project_id = ANY($1::int[]) AND trace_id = $2
       ORDER BY events.timestamp, events.received_at, events.event_id LIMIT $3`,
      [projectIds, traceId.toLowerCase(), limit],
    );
    return await this.storedAll(result.rows);
  }

  async latestEventPerUser(projectId: number, issueId: number, limit: number): Promise<StoredEvent[]> {
    // The issue's newest events through events_issue_time, each user's newest of those (DISTINCT
    // ON keeps a user's first row in the inner order), then only the chosen rows whole. Sorting
    // every event of the issue with its payload took 1.1 s for 90,000 in the embedded database.
    const result = await this.db.query<EventRow>(
      `WITH recent AS (
         SELECT user_key, timestamp, received_at, event_id FROM events
         WHERE project_id = $1 AND issue_id = $2 ORDER BY ${NEWEST_FIRST} LIMIT $4),
       chosen AS (
         SELECT event_id FROM (
           SELECT DISTINCT ON (user_key) user_key, timestamp, received_at, event_id FROM recent
           WHERE user_key IS NOT NULL ORDER BY user_key, timestamp DESC, received_at DESC, event_id DESC) AS latest
         ORDER BY timestamp DESC, received_at DESC, event_id DESC LIMIT $3)
       SELECT ${COLUMNS} FROM events WHERE project_id = $1 AND event_id IN (SELECT event_id FROM chosen)
       ORDER BY ${NEWEST_FIRST}`,
      [projectId, issueId, limit, USER_SCAN_EVENTS],
    );
    return await this.storedAll(result.rows);
  }

  async issueEventStats(projectId: number, issueId: number, since: number): Promise<IssueEventStats> {
    // COLLATE "C": byte order, as ClickHouse sorts, whatever the database's locale.
    const result = await this.db.query<{
      count: number;
      first_seen: number | null;
      last_seen: number | null;
      releases: string[];
      release_count: number;
      users: number;
    }>(
      `SELECT count(*)::int AS count, count(DISTINCT user_key)::int AS users, extract(epoch from min(timestamp))::float8 AS first_seen,
         extract(epoch from max(timestamp))::float8 AS last_seen,
         coalesce((array_agg(DISTINCT release COLLATE "C" ORDER BY release COLLATE "C")
           FILTER (WHERE release IS NOT NULL))[1:$4], '{}') AS releases,
         count(DISTINCT release)::int AS release_count
       FROM events WHERE project_id = $1 AND issue_id = $2 AND timestamp >= to_timestamp($3::float8)`,
      [projectId, issueId, since, STATS_RELEASES],
    );
    const row = result.rows[0]!;
    return {
      count: row.count,
      firstSeen: row.first_seen,
      lastSeen: row.last_seen,
      releases: row.releases,
      releaseCount: row.release_count,
      users: row.users,
    };
  }

  async dailyEventCounts(projectId: number, issueId: number, since: number): Promise<DailyCount[]> {
    const split = splitAtHours(since);
    const result = await this.db.query<DailyCount>(
      `SELECT to_char(to_timestamp(hour::int8 * 3600) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(n)::int AS count
       FROM (${countedHours({ projects: '$1::integer', issues: '$2::integer[]', hours: ['$3', '$4'], partial: ['$5', '$6'] })}) c
       GROUP BY 1 ORDER BY 1`,
      [projectId, [issueId], ...hourParams(split)],
    );
    return result.rows;
  }

  async hourlyEventCounts(projectId: number, issueIds: number[], since: number): Promise<HourlyCount[]> {
    if (issueIds.length === 0) return [];
    const split = splitAtHours(since);
    const result = await this.db.query<HourlyCount>(
      `SELECT issue_id AS "issueId", (hour::int8 * 3600)::float8 AS hour, sum(n)::int AS count
       FROM (${countedHours({ projects: '$1::integer', issues: '$2::integer[]', hours: ['$3', '$4'], partial: ['$5', '$6'] })}) c
       GROUP BY 1, 2 ORDER BY 2, 1`,
      // Each issue once: its partial hours are counted per id given.
      [projectId, [...new Set(issueIds)], ...hourParams(split)],
    );
    return result.rows;
  }

  async countEventsByIssue(projectIds: number[], since: number, until: number): Promise<Map<number, number>> {
    if (projectIds.length === 0) return new Map();
    const split = splitAtHours(since, until);
    const result = await this.db.query<{ issue_id: number; count: number }>(
      `SELECT issue_id, sum(n)::int AS count
       FROM (${countedHours({ projects: '$1::integer[]', hours: ['$2', '$3'], partial: ['$4', '$5'] })}) c GROUP BY issue_id`,
      [projectIds, ...hourParams(split)],
    );
    return new Map(result.rows.map((r) => [r.issue_id, r.count]));
  }

  /**
   * The rows go. Payloads they referred to in segments are put on the list of payloads to
   * overwrite with zeros, in the same statement, which the backend thread works off
   * (payload-erasures.ts); until then a read of one finds nothing, since its row is gone.
   */
  async deleteEventsForIssues(projectId: number, issueIds: number[]): Promise<void> {
    if (issueIds.length === 0) return;
    await this.deleteErasing('project_id = $1 AND issue_id = ANY($2::int[])', [projectId, issueIds]);
  }

  async deleteEventsOfProject(projectId: number): Promise<void> {
    await this.deleteErasing('project_id = $1', [projectId]);
  }

  /** The events `where` matches (SQL over events' and issue_event_hours' columns), with their hourly counts. */
  private async deleteErasing(where: string, params: unknown[]): Promise<void> {
    // The last part, with the hourly counts, ends it. A failure between parts leaves the issues
    // (or the deleted project's record) there, and the call can be repeated.
    const doomed = `SELECT ctid FROM events WHERE ${where} LIMIT $${params.length + 1}`;
    // Without segments, Postgres, whose rows hold their payloads. (A store is given segments
    // wherever the database may hold references: the standalone server's and its CLI's.)
    const erased = this.segments
      ? `, erased AS (INSERT INTO payload_erasures (reference) SELECT payload_deflated FROM deleted
           WHERE left(payload_deflated, 1) = '@' ON CONFLICT DO NOTHING)`
      : '';
    await this.deleteInParts(
      async (tx, limit) => {
        const part = await tx.query<{ rows: number }>(
          `WITH deleted AS (DELETE FROM events WHERE ctid = ANY(ARRAY(${doomed})) RETURNING payload_deflated)${erased}
           SELECT count(*)::int AS rows FROM deleted`,
          [...params, limit],
        );
        return part.rows[0]!.rows;
      },
      (tx) => tx.query(`DELETE FROM issue_event_hours WHERE ${where}`, params),
    );
  }

  /**
   * Deletes event rows DELETE_CHUNK_ROWS at a time, each part a transaction under the lock of
   * the hourly counts; `finish` runs in the last part's. Returns how many rows went.
   */
  private async deleteInParts(
    deletePart: (tx: SqlExecutor, limit: number) => Promise<number>,
    finish: (tx: SqlExecutor) => Promise<unknown>,
  ): Promise<number> {
    let deleted = 0;
    for (let done = false; !done;) {
      done = await this.db.transaction(async (tx) => {
        await lockEventCounts(tx);
        const rows = await deletePart(tx, this.deleteChunkRows);
        deleted += rows;
        if (rows === this.deleteChunkRows) return false;
        await finish(tx);
        return true;
      });
    }
    return deleted;
  }

  /**
   * The rows older than `cutoff`, then the payload segments no remaining row can refer to: those
   * whose newest event is older too, and those no committed row ever referred to (a crash, or a
   * batch whose transaction failed, leaves such bytes). Segments written today or yesterday stay either way
   * (PayloadSegments.remove). Files first, then their records: a crash in between leaves records
   * of files already gone, which the next run removes. Whole UTC hours go, those before the
   * cutoff's, with their counts in issue_event_hours: an event stays up to an hour past the cutoff
   * (retention runs hourly).
   */
  async deleteEventsBefore(cutoff: number): Promise<number> {
    const hour = Math.floor(cutoff / 3600);
    // The last part takes the hourly counts with it, so no event committed between parts is left
    // without its count or counted without its row.
    const deleted = await this.deleteInParts(
      async (tx, limit) =>
        (
          await tx.query(
            `DELETE FROM events WHERE ctid = ANY(ARRAY(
               SELECT ctid FROM events WHERE timestamp < to_timestamp($1::float8) LIMIT $2))`,
            [hour * 3600, limit],
          )
        ).affectedRows,
      (tx) => tx.query('DELETE FROM issue_event_hours WHERE hour < $1', [hour]),
    );
    try {
      if (this.segments) await this.removeUnreferencedSegments(this.segments, hour * 3600);
    } catch (error) {
      throw Object.assign(error as Error, { pruned: deleted }); // the rows went all the same
    }
    return deleted;
  }

  private async removeUnreferencedSegments(segments: PayloadSegments, cutoff: number): Promise<void> {
    const tracked = await this.db.query<{ name: string; expired: boolean }>(
      'SELECT name, newest_event < to_timestamp($1::float8) AS expired FROM payload_segments',
      [cutoff],
    );
    const known = new Set(tracked.rows.map((r) => r.name));
    const untracked = segments.remove(segments.list().filter((name) => !known.has(name)));
    const { gone, failed } = segments.remove(tracked.rows.filter((r) => r.expired).map((r) => r.name));
    // Erasures still owed in a removed segment go with it, tracked or not (an unused payload's may
    // be untracked): were the clock to go back to its day, a new segment of the same name would
    // hold other payloads at those offsets.
    if (gone.length + untracked.gone.length > 0) {
      await this.db.transaction(async (tx) => {
        await tx.query('DELETE FROM payload_segments WHERE name = ANY($1::text[])', [gone]);
        await tx.query(`DELETE FROM payload_erasures WHERE ${segmentOfReference('reference')} = ANY($1::text[])`, [
          [...untracked.gone, ...gone],
        ]);
      });
    }
    // Told after the others are removed and their records gone, so the retention job's error
    // names the files that stay, run after run, rather than one file keeping every other.
    const stuck = [...untracked.failed, ...failed];
    if (stuck.length > 0) {
      throw new Error(
        `could not remove ${stuck.length} event payload segment file(s) past retention: ` +
          stuck.map(({ segment, error }) => `segment ${segment} (${error.message})`).join('; ') +
          '; fix their permissions or the disk: the next run removes them',
      );
    }
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }

  /**
   * The event of `row`; undefined when its payload went (erased, or its segment removed) after the
   * row was read, as a read racing a deletion or retention sees it. A payload missing while its
   * row is still there is no race: the data directory lost it (copied without `payloads/`, say).
   */
  private async stored(row: EventRow): Promise<StoredEvent | undefined> {
    try {
      const payload = this.payloadBytes(row.payload_deflated);
      if (payload) return toStoredEvent(row, payload);
    } catch (error) {
      // Bytes read while an erasure overwrote them fail to inflate; anything else is rethrown below.
      if (PayloadSegments.isReference(row.payload_deflated) && !(await this.rowExists(row))) return undefined;
      throw error;
    }
    if (!(await this.rowExists(row))) return undefined;
    throw new Error(
      `the payload of event ${row.event_id} (${row.payload_deflated}) is missing from ${this.segments!.dir} while its row remains: ` +
        'the data directory must be copied whole, with the server stopped',
    );
  }

  private async storedAll(rows: EventRow[]): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    for (const row of rows) {
      const event = await this.stored(row);
      if (event) events.push(event);
    }
    return events;
  }

  private async rowExists(row: EventRow): Promise<boolean> {
    const found = await this.db.query('SELECT 1 FROM events WHERE project_id = $1 AND event_id = $2', [
      row.project_id,
      row.event_id,
    ]);
    return found.rows.length > 0;
  }

  private payloadBytes(stored: string): Buffer | undefined {
    if (!PayloadSegments.isReference(stored)) return Buffer.from(stored, 'base64');
    if (!this.segments) throw new Error('an event payload is in a segment file this store was not given');
    return this.segments.read(stored);
  }
}

function toStoredEvent(row: EventRow, deflatedPayload: Buffer): StoredEvent {
  return {
    projectId: row.project_id,
    eventId: row.event_id,
    issueId: row.issue_id,
    timestamp: row.timestamp,
    receivedAt: row.received_at,
    level: row.level,
    title: row.title,
    culprit: row.culprit,
    platform: row.platform,
    environment: row.environment,
    release: row.release,
    traceId: row.trace_id,
    userKey: row.user_key,
    payload: JSON.parse(inflateRawSync(deflatedPayload).toString('utf8')) as NormalizedEvent,
  };
}

/**
 * Raises each referred-to segment's newest event time to the newest of `events` in it, and the
 * committed end of every segment the batch wrote to the furthest of its payloads there: the rows',
 * and the copies no row will refer to (on the erasure list from this transaction on), so that a
 * clean stop leaves no file longer than its committed end. A segment only unused copies went to
 * is raised where it has a record; without one, no start cuts it.
 */
async function recordSegmentTimes(db: SqlExecutor, events: NewEvent[], unused: string[]): Promise<void> {
  const segments = new Map<string, { newest: number | null; end: number }>();
  const note = (reference: string, timestamp: number | null) => {
    if (!PayloadSegments.isReference(reference)) return;
    const name = PayloadSegments.segmentOf(reference);
    const end = PayloadSegments.endOf(reference);
    const known = segments.get(name);
    if (!known) segments.set(name, { newest: timestamp, end });
    else {
      if (timestamp !== null) known.newest = Math.max(known.newest ?? timestamp, timestamp);
      known.end = Math.max(known.end, end);
    }
  };
  for (const e of events) note(e.encodedPayload, e.timestamp);
  for (const reference of unused) note(reference, null);
  if (segments.size === 0) return;
  const rows = [...segments.values()];
  // A row is made only for a segment with an event in it (its newest event time is what retention reads).
  await db.query(
    `INSERT INTO payload_segments (name, newest_event, committed_end)
       SELECT name, to_timestamp(ts), e FROM unnest($1::text[], $2::float8[], $3::bigint[]) AS t (name, ts, e)
       WHERE ts IS NOT NULL
     ON CONFLICT (name) DO UPDATE SET
       newest_event = greatest(payload_segments.newest_event, excluded.newest_event),
       committed_end = greatest(payload_segments.committed_end, excluded.committed_end)`,
    [[...segments.keys()], rows.map((r) => r.newest), rows.map((r) => r.end)],
  );
  const unusedOnly = [...segments].filter(([, r]) => r.newest === null);
  if (unusedOnly.length > 0) {
    await db.query(
      `UPDATE payload_segments s SET committed_end = greatest(s.committed_end, t.e)
       FROM unnest($1::text[], $2::bigint[]) AS t (name, e) WHERE s.name = t.name`,
      [unusedOnly.map(([name]) => name), unusedOnly.map(([, r]) => r.end)],
    );
  }
}

/**
 * Rows a statement: a few dozen, since each statement's payloads pass through the database's
 * message buffers at once, and in PGlite that memory, once grown, stays.
 */
const ROWS_PER_INSERT = 50;

/**
 * Before a transaction deletes events and then their counts: waits for the batches writing counts
 * to commit, and keeps new ones from writing theirs until this one commits. Without it, on
 * Postgres, a batch of old events committing between the two DELETEs left events the first did
 * not see whose counts the second deleted. (The embedded database runs one transaction at a time.)
 * On Postgres, batches then wait for retention's DELETEs. The deletion's statements after it run
 * unprepared, as after any statement that is not DML (preparable.ts): its two DELETEs.
 */
async function lockEventCounts(tx: SqlExecutor): Promise<void> {
  await tx.query('LOCK TABLE issue_event_hours IN SHARE ROW EXCLUSIVE MODE');
}

/**
 * Inserts the rows and adds them to issue_event_hours; returns those of statements that inserted
 * fewer than given (events stored before among them). A statement that inserted all its rows is
 * counted from them as given; one that did not, from the rows this transaction wrote.
 */
async function insertEventRows(db: SqlExecutor, events: NewEvent[]): Promise<NewEvent[]> {
  const repeated: NewEvent[] = [];
  const tally = new HourTally();
  for (const [index, part] of chunk(events, ROWS_PER_INSERT).entries()) {
    const values = valuesList(
      part.map((e) => [
        e.projectId,
        e.eventId,
        e.issueId,
        e.timestamp,
        e.receivedAt,
        e.level,
        e.title,
        e.culprit,
        e.platform,
        e.environment,
        e.release,
        e.traceId,
        e.userKey,
        e.encodedPayload,
      ]),
      CASTS,
    );
    const inserted = await db.query(
      `INSERT INTO events (project_id, event_id, issue_id, timestamp, received_at, level, title, culprit, platform,
           environment, release, trace_id, user_key, payload_deflated)
         SELECT v.project_id, v.event_id, v.issue_id, to_timestamp(v.ts), to_timestamp(v.received), v.level, v.title,
           v.culprit, v.platform, v.environment, v.release, v.trace_id, v.user_key, v.payload
         FROM (VALUES ${values.sql}) AS v (project_id, event_id, issue_id, ts, received, level, title, culprit, platform,
           environment, release, trace_id, user_key, payload)
         ON CONFLICT (project_id, event_id) DO NOTHING`,
      values.params,
      // A full statement's text is the same every time (a loaded server's batches are mostly
      // full ones): kept prepared, a session parses it once and plans it for its first few
      // runs only (then a generic plan), instead of parsing and planning a placeholder per value
      // on every run: a fifth to a quarter of the statement's time in PGlite (docs/benchmarks.md,
      // 2026-12-02 (fourth)). Shorter ones differ in length and run unnamed.
      { keepPrepared: part.length === ROWS_PER_INSERT },
    );
    if (inserted.affectedRows === part.length) {
      for (const e of part) tally.add(e.projectId, e.timestamp, e.issueId);
      continue;
    }
    repeated.push(...part);
    const before = new Set(events.slice(0, index * ROWS_PER_INSERT).map((e) => `${e.projectId}:${e.eventId}`));
    for (const row of await rowsWrittenHere(db, part)) {
      if (!before.has(`${row.project_id}:${row.event_id}`)) tally.add(row.project_id, row.timestamp, row.issue_id);
    }
  }
  await tally.addTo(db);
  return repeated;
}

/**
 * Those of `events` whose row this transaction wrote (an event given twice, or stored before,
 * has one row, and only a row this transaction wrote has its id as xmin): a redelivered batch's
 * rare path, so a batch of new events reads nothing back.
 */
async function rowsWrittenHere(db: SqlExecutor, events: NewEvent[]) {
  const keys = unnestRows(
    events.map((e) => [e.projectId, e.eventId]),
    ['integer', 'text'],
  );
  const result = await db.query<{ project_id: number; event_id: string; issue_id: number; timestamp: number }>(
    `SELECT project_id, event_id, issue_id, extract(epoch FROM timestamp)::float8 AS timestamp FROM events
     WHERE (project_id, event_id) IN (SELECT * FROM ${keys.sql}) AND xmin = pg_current_xact_id()::xid`,
    keys.params,
  );
  return result.rows;
}

/**
 * Puts on the erasure list the segment payloads no row will refer to, so that deleting their issue
 * later leaves no copy behind: those of `candidates` whose event's row holds another payload or
 * none (it was stored before: a redelivered batch; or the batch failed), and `unused` (the
 * caller's: a second copy in its batch, a project gone). Each reference is made for one event
 * (`encodePayload` appends anew each time), but one given both as a row's and as unused is kept,
 * not listed. Runs only when a statement inserted fewer rows than given, the caller passed some,
 * or the batch failed: a batch of new events pays nothing here. An unused payload's segment may be
 * one no row refers to: retention removes it as such, and its owed erasures with it.
 */
async function listUnstoredPayloads(
  db: SqlExecutor,
  candidates: NewEvent[],
  unused: string[],
  stored: NewEvent[],
): Promise<void> {
  const repeats = candidates.filter((e) => PayloadSegments.isReference(e.encodedPayload));
  if (repeats.length > 0) {
    await db.query(
      `INSERT INTO payload_erasures (reference)
         SELECT v.reference FROM unnest($1::integer[], $2::text[], $3::text[]) AS v (project_id, event_id, reference)
         WHERE NOT EXISTS (SELECT 1 FROM events e
           WHERE e.project_id = v.project_id AND e.event_id = v.event_id AND e.payload_deflated = v.reference)
       ON CONFLICT DO NOTHING`,
      [repeats.map((e) => e.projectId), repeats.map((e) => e.eventId), repeats.map((e) => e.encodedPayload)],
    );
  }
  const rows = new Set(stored.map((e) => e.encodedPayload));
  const unusedReferences = unused.filter((reference) => PayloadSegments.isReference(reference) && !rows.has(reference));
  if (unusedReferences.length > 0) {
    await db.query('INSERT INTO payload_erasures (reference) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [
      unusedReferences,
    ]);
  }
}
