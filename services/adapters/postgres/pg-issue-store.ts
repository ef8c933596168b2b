// IssueStore over SQL (PGlite standalone, Postgres distributed): issues and their occurrences
// (record-occurrences.ts), activity, snoozes, releases and the counted event ids. A slice of
// PgMetadataStore; it does not own the SqlClient.
import type { ActivityKind } from '../../core/issues/lifecycle.ts';
import type { Occurrence, OccurrenceResult } from '../../core/issues/occurrence.ts';
import type {
  DeletedIssue,
  Issue,
  IssueActivity,
  IssueChange,
  IssueListQuery,
  IssueOutline,
  IssueQuery,
  IssueSort,
  IssueStore,
  Release,
  ReleaseCounts,
  TagSummary,
} from '../../core/ports/issue-store.ts';
import { UserInputError } from '../../core/errors.ts';
import { formatShortId } from '../../core/projects/short-id.ts';
import { decodeCursor, encodeCursor, peekCursor, type Page } from '../../core/ports/page.ts';
import { ISSUE_SORTS, MAX_ISSUE_ENVIRONMENTS } from '../../core/ports/issue-store.ts';
import { insertActivity, SYSTEM_ACTOR } from './issue-activity.ts';
import { lockProjectsShared } from './project-locks.ts';
import { lockHashKeys, recordOccurrences } from './record-occurrences.ts';
import { ISSUE_COLUMNS, toIssue, type IssueRow } from './rows.ts';
import { chunk, containsPattern, jsonParam, type SqlClient } from './sql-client.ts';

/** Counted event ids forgotten in one statement, at most. */
const FORGET_BATCH = 50_000;

export class PgIssueStore implements IssueStore {
  constructor(private readonly db: SqlClient) {}

  recordOccurrences(batch: Occurrence[]): Promise<OccurrenceResult[]> {
    if (batch.length === 0) return Promise.resolve([]);
    return this.db.transaction((tx) => recordOccurrences(tx, batch));
  }

  async listIssues(query: IssueListQuery): Promise<Page<Issue>> {
    const { conditions, params } = issueConditions(query);
    const sort = query.sort ?? 'lastSeen';
    const order = SORTS[sort];
    if (query.cursor) {
      const [key, id] = decodeSortCursor(query.cursor, sort);
      params.push(key, id);
      conditions.push(`(${order.column}, i.id) < ($${params.length - 1}::${order.type}, $${params.length})`);
    }
    params.push(query.limit + 1);
    const result = await this.db.query<IssueRow & { sort_key: string | number }>(
      `SELECT ${ISSUE_COLUMNS}, ${order.key} AS sort_key FROM issues i JOIN projects p ON p.id = i.project_id
       WHERE ${conditions.join(' AND ')} ORDER BY ${order.column} DESC, i.id DESC LIMIT $${params.length}`,
      params,
    );
    const rows = result.rows.slice(0, query.limit);
    const last = rows[rows.length - 1];
    return {
      items: rows.map(toIssue),
      nextCursor: result.rows.length > query.limit && last ? encodeSortCursor(sort, last.sort_key, last.id) : undefined,
    };
  }

  async countIssues(query: IssueQuery): Promise<number> {
    const { conditions, params } = issueConditions(query);
    const result = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM issues i WHERE ${conditions.join(' AND ')}`,
      params,
    );
    return result.rows[0]!.n;
  }

  async listEnvironments(projectId: number, limit: number): Promise<string[]> {
    const result = await this.db.query<{ environment: string }>(
      `SELECT environment FROM project_environments WHERE project_id = $1 ORDER BY environment LIMIT $2`,
      [projectId, limit],
    );
    return result.rows.map((r) => r.environment);
  }

  async listIssueOutlines(projectId: number, limit: number): Promise<IssueOutline[]> {
    // One JSON text of arrays rather than 500 rows of eight columns: reading rows field by field
    // was most of this read's time (10 ms for 500 issues on PGlite; 4 ms as one text), and
    // whole issues with their jsonb were twice that again.
    const result = await this.db.query<{ outlines: string }>(
      `SELECT coalesce(json_agg(json_build_array(o.id, p.slug, o.short_number, o.title, o.status, o.times_seen,
           o.metadata->>'type', o.metadata->>'filename', o.metadata->>'function') ORDER BY o.last_seen DESC, o.id DESC), '[]')::text AS outlines
       FROM (SELECT * FROM issues i WHERE i.project_id = $1 ORDER BY i.last_seen DESC, i.id DESC LIMIT $2) AS o
       JOIN projects p ON p.id = o.project_id`,
      [projectId, limit],
    );
    const rows = JSON.parse(result.rows[0]!.outlines) as OutlineRow[];
    return rows.map(([id, slug, shortNumber, title, status, count, type, filename, fn]) => ({
      id,
      shortId: formatShortId(slug, shortNumber),
      title,
      status,
      count,
      // Absent keys stay absent, as in Issue.metadata, so an outline compares like the issue.
      metadata: {
        ...(type !== null && { type }),
        ...(filename !== null && { filename }),
        ...(fn !== null && { function: fn }),
      },
    }));
  }

  async tagSummary(issueId: number, maxKeys: number, maxValues: number): Promise<TagSummary[]> {
    const result = await this.db.query<{ key: string; total: number; value: string; count: number }>(
      `WITH keys AS (
         SELECT key, sum(count)::int AS total FROM issue_tag_values WHERE issue_id = $1
         GROUP BY key ORDER BY total DESC, key COLLATE "C" LIMIT $2),
       ranked AS (
         SELECT t.key, t.value, t.count,
           row_number() OVER (PARTITION BY t.key ORDER BY t.count DESC, t.value COLLATE "C") AS rank
         FROM issue_tag_values t JOIN keys USING (key) WHERE t.issue_id = $1)
       SELECT keys.key, keys.total, ranked.value, ranked.count FROM keys JOIN ranked USING (key)
       WHERE ranked.rank <= $3 ORDER BY keys.total DESC, keys.key COLLATE "C", ranked.rank`,
      [issueId, maxKeys, maxValues],
    );
    const summary: TagSummary[] = [];
    for (const row of result.rows) {
      let last = summary.at(-1);
      if (last?.key !== row.key) summary.push((last = { key: row.key, total: row.total, values: [] }));
      last.values.push({ value: row.value, count: row.count });
    }
    return summary;
  }

  async findIssue(projectId: number, shortNumber: number): Promise<Issue | undefined> {
    const result = await this.db.query<IssueRow>(
      `SELECT ${ISSUE_COLUMNS} FROM issues i JOIN projects p ON p.id = i.project_id
       WHERE i.project_id = $1 AND i.short_number = $2`,
      [projectId, shortNumber],
    );
    return result.rows[0] && toIssue(result.rows[0]);
  }

  async getIssue(id: number): Promise<Issue | undefined> {
    const result = await this.db.query<IssueRow>(
      `SELECT ${ISSUE_COLUMNS} FROM issues i JOIN projects p ON p.id = i.project_id WHERE i.id = $1`,
      [id],
    );
    return result.rows[0] && toIssue(result.rows[0]);
  }

  async mutedIssues(issueIds: number[], at: Date): Promise<Set<number>> {
    if (issueIds.length === 0) return new Set();
    const result = await this.db.query<{ id: number }>(
      `SELECT id FROM issues WHERE id = ANY($1::int[])
         AND (status = 'ignored' OR (status = 'snoozed' AND snooze_until > $2))`,
      [issueIds, at],
    );
    return new Set(result.rows.map((row) => row.id));
  }

  changeIssues(projectId: number, issueIds: number[], change: IssueChange): Promise<number[]> {
    if (issueIds.length === 0) return Promise.resolve([]);
    return this.db.transaction(async (tx) => {
      // The old status comes from a locking read in id order, so "changed" is exact under
      // concurrency. NO KEY UPDATE: keys do not change, and a plain FOR UPDATE would also block
      // (and deadlock with) the event pipeline inserting users and hashes of these issues.
      const changed = await tx.query<{ id: number; changed: boolean }>(
        `WITH old AS (
           SELECT id, status FROM issues WHERE project_id = $1 AND id = ANY($2::int[]) ORDER BY id FOR NO KEY UPDATE
         )
         UPDATE issues i SET status = $3, resolution = $4::jsonb, snooze_until = $5
         FROM old WHERE i.id = old.id
         RETURNING i.id, old.status <> $3 AS changed`,
        [
          projectId,
          issueIds,
          change.state.status,
          change.state.resolution && jsonParam(change.state.resolution),
          change.state.snoozeUntil,
        ],
      );
      const ids = changed.rows.map((r) => r.id);
      await insertActivity(
        tx,
        ids.map((id) => ({ issueId: id, at: change.at, actor: change.actor, kind: change.kind, details: change.details })),
      );
      return changed.rows.filter((r) => r.changed).map((r) => r.id);
    });
  }

  deleteIssues(projectId: number, issueIds: number[]): Promise<number[]> {
    if (issueIds.length === 0) return Promise.resolve([]);
    return this.db.transaction(async (tx) => {
      // First, as everyone writing the project's issues: the project's delete waits for this.
      await lockProjectsShared(tx, [projectId]);
      // The event pipeline's lock on each of the issues' hashes (record-occurrences.ts, same keys,
      // same order): a batch that found one of these issues finishes first, and the next one
      // finds no issue and starts a new one, instead of updating a row that is gone.
      const hashes = await tx.query<{ key: string }>(
        `SELECT project_id || ':' || hash AS key FROM issue_hashes WHERE project_id = $1 AND issue_id = ANY($2::int[])`,
        [projectId, issueIds],
      );
      await lockHashKeys(
        tx,
        hashes.rows.map((r) => r.key),
      );
      // Hashes, users and activity go by cascade. The counted event ids stay, until retention
      // forgets them, as the deletion's tombstones: a batch retried, or read again from the
      // queue, counted their events again, in a new issue (record-occurrences.ts). Rows locked in
      // id order, as changeIssues locks them: in the table's order the two could deadlock.
      const deleted = await tx.query<{ id: number }>(
        `DELETE FROM issues WHERE id IN (
           SELECT id FROM issues WHERE project_id = $1 AND id = ANY($2::int[]) ORDER BY id FOR UPDATE) RETURNING id`,
        [projectId, issueIds],
      );
      // Their alerts not yet sent are withdrawn: they would link to a page that answers 404. One
      // being sent now (claimed) goes on, since its attempt is recorded against its row.
      await tx.query(
        `DELETE FROM alert_deliveries
         WHERE project_id = $1 AND issue_id = ANY($2::int[]) AND status IN ('pending', 'held')
           AND (claimed_until IS NULL OR claimed_until <= now())`,
        [projectId, issueIds],
      );
      await tx.query(
        `INSERT INTO deleted_issues (project_id, issue_id) SELECT $1, id FROM unnest($2::int[]) AS id
         ON CONFLICT (project_id, issue_id) DO UPDATE SET deleted_at = now()`,
        [projectId, deleted.rows.map((r) => r.id)],
      );
      return deleted.rows.map((r) => r.id);
    });
  }

  async listDeletedIssues(before: Date, limit: number): Promise<DeletedIssue[]> {
    const result = await this.db.query<{ project_id: number; issue_id: number }>(
      'SELECT project_id, issue_id FROM deleted_issues WHERE deleted_at < $1 ORDER BY deleted_at LIMIT $2',
      [before, limit],
    );
    return result.rows.map((r) => ({ projectId: r.project_id, issueId: r.issue_id }));
  }

  async forgetDeletedIssues(issues: DeletedIssue[]): Promise<void> {
    for (const part of chunk(issues, 1000)) {
      await this.db.query(
        `DELETE FROM deleted_issues d USING unnest($1::int[], $2::int[]) AS v (project_id, issue_id)
         WHERE d.project_id = v.project_id AND d.issue_id = v.issue_id`,
        [part.map((i) => i.projectId), part.map((i) => i.issueId)],
      );
    }
  }

  async listIssueActivity(issueId: number, limit: number): Promise<IssueActivity[]> {
    const result = await this.db.query<{
      id: number;
      issue_id: number;
      at: Date;
      actor: string;
      kind: ActivityKind;
      details: Record<string, unknown>;
    }>('SELECT * FROM issue_activity WHERE issue_id = $1 ORDER BY id DESC LIMIT $2', [issueId, limit]);
    return result.rows.map((r) => ({
      id: r.id,
      issueId: r.issue_id,
      at: r.at,
      actor: r.actor,
      kind: r.kind,
      details: r.details,
    }));
  }

  expireSnoozes(now: Date): Promise<number> {
    return this.db.transaction(async (tx) => {
      const expired = await tx.query<{ id: number; snooze_until: Date }>(
        `WITH due AS (
           SELECT id, snooze_until FROM issues WHERE status = 'snoozed' AND snooze_until <= $1 ORDER BY id FOR NO KEY UPDATE
         )
         UPDATE issues i SET status = 'unresolved', snooze_until = NULL FROM due WHERE i.id = due.id
         RETURNING i.id, due.snooze_until`,
        [now],
      );
      await insertActivity(
        tx,
        expired.rows.map((r) => ({
          issueId: r.id,
          at: now,
          actor: SYSTEM_ACTOR,
          kind: 'snooze_expired' as const,
          details: { snoozeUntil: r.snooze_until.toISOString() },
        })),
      );
      return expired.rows.length;
    });
  }

  async listReleases(projectId: number, limit: number): Promise<Release[]> {
    const result = await this.db.query<ReleaseRow>(
      'SELECT * FROM releases WHERE project_id = $1 ORDER BY first_seen DESC, version LIMIT $2',
      [projectId, limit],
    );
    return result.rows.map(toRelease);
  }

  async countReleases(projectId: number): Promise<number> {
    const result = await this.db.query<{ n: number }>('SELECT count(*)::int AS n FROM releases WHERE project_id = $1', [
      projectId,
    ]);
    return result.rows[0]!.n;
  }

  async findRelease(projectId: number, version: string): Promise<Release | undefined> {
    const result = await this.db.query<ReleaseRow>('SELECT * FROM releases WHERE project_id = $1 AND version = $2', [
      projectId,
      version,
    ]);
    return result.rows[0] && toRelease(result.rows[0]);
  }

  async releaseCounts(projectId: number, versions: string[]): Promise<Map<string, ReleaseCounts>> {
    const counts = new Map(versions.map((v) => [v, { events: 0, newIssues: 0, regressions: 0 }]));
    if (versions.length === 0) return counts;
    // Three grouped reads over the project's issues, each narrowed to the versions asked.
    const [events, fresh, regressed] = await Promise.all([
      this.db.query<{ version: string; n: number }>(
        `SELECT t.value AS version, sum(t.count)::int AS n FROM issue_tag_values t JOIN issues i ON i.id = t.issue_id
         WHERE i.project_id = $1 AND t.key = 'release' AND t.value = ANY($2::text[]) GROUP BY t.value`,
        [projectId, versions],
      ),
      this.db.query<{ version: string; n: number }>(
        `SELECT first_release AS version, count(*)::int AS n FROM issues
         WHERE project_id = $1 AND first_release = ANY($2::text[]) GROUP BY first_release`,
        [projectId, versions],
      ),
      this.db.query<{ version: string; n: number }>(
        `SELECT regression_release AS version, count(*)::int AS n FROM issues
         WHERE project_id = $1 AND regression_release = ANY($2::text[]) GROUP BY regression_release`,
        [projectId, versions],
      ),
    ]);
    for (const r of events.rows) counts.get(r.version)!.events = r.n;
    for (const r of fresh.rows) counts.get(r.version)!.newIssues = r.n;
    for (const r of regressed.rows) counts.get(r.version)!.regressions = r.n;
    return counts;
  }

  async forgetProcessedEventsBefore(cutoff: number, batchSize = FORGET_BATCH): Promise<number> {
    // One DELETE of an hour's ids at a fleet's rate held its transaction for minutes, kept vacuum
    // from the whole table meanwhile and wrote its WAL in one burst; these go a slice at a time,
    // oldest first, each starting where the last ended (from the table's start, each slice read
    // past every row the slices before it had deleted and vacuum had not yet removed).
    const size = Math.max(1, Math.floor(batchSize));
    let forgotten = 0;
    let from: string | null = null;
    for (;;) {
      const result: { rows: Array<{ n: number; last: string | null }> } = await this.db.query(
        `WITH slice AS (
           SELECT project_id, event_id, received_at FROM processed_events
           WHERE received_at < to_timestamp($1::float8) AND ($3::timestamptz IS NULL OR received_at >= $3::timestamptz)
           ORDER BY received_at LIMIT $2
         ), gone AS (
           DELETE FROM processed_events p USING slice s
           WHERE p.project_id = s.project_id AND p.event_id = s.event_id RETURNING s.received_at
         )
         SELECT count(*)::int AS n, max(received_at)::text AS last FROM gone`,
        [cutoff, size, from],
      );
      const { n, last } = result.rows[0]!;
      forgotten += n;
      if (n < size) return forgotten;
      from = last;
    }
  }
}

interface ReleaseRow {
  project_id: number;
  version: string;
  first_seen: Date;
  last_seen: Date;
}

type OutlineRow = [
  id: number,
  projectSlug: string,
  shortNumber: number,
  title: string,
  status: IssueOutline['status'],
  count: number,
  type: string | null,
  filename: string | null,
  fn: string | null,
];

const toRelease = (r: ReleaseRow): Release => ({
  projectId: r.project_id,
  version: r.version,
  firstSeen: r.first_seen,
  lastSeen: r.last_seen,
});

/** The WHERE clause (over issues i) and its parameters for a query's filters. */
function issueConditions(query: IssueQuery): { conditions: string[]; params: unknown[] } {
  const conditions = ['i.project_id = $1'];
  const params: unknown[] = [query.projectId];
  const add = (condition: (n: number) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(params.length));
  };
  const status = query.status ?? 'unresolved';
  if (status !== 'all') add((n) => `i.status = $${n}`, status);
  if (query.level) add((n) => `i.level = $${n}`, query.level);
  if (query.text) add((n) => `(i.title ILIKE $${n} OR i.culprit ILIKE $${n})`, containsPattern(query.text));
  if (query.firstSeenSince) add((n) => `i.first_seen >= $${n}`, query.firstSeenSince);
  if (query.lastSeenSince) add((n) => `i.last_seen >= $${n}`, query.lastSeenSince);
  if (query.regressedSince) add((n) => `i.regressed_at >= $${n}`, query.regressedSince);
  if (query.firstRelease) add((n) => `i.first_release = $${n}`, query.firstRelease);
  if (query.regressionRelease) add((n) => `i.regression_release = $${n}`, query.regressionRelease);
  if (query.resolvedInRelease) add((n) => `i.resolution->>'release' = $${n}`, query.resolvedInRelease);
  if (query.environment) add((n) => `$${n}::text = ANY(i.environments)`, query.environment);
  const exclude = query.exclude ?? {};
  if (exclude.statuses?.length) add((n) => `NOT (i.status = ANY($${n}::text[]))`, exclude.statuses);
  if (exclude.levels?.length) add((n) => `NOT (i.level = ANY($${n}::text[]))`, exclude.levels);
  // An issue whose list is full (MAX_ISSUE_ENVIRONMENTS) may have been seen in any environment
  // since: it cannot be shown to be outside one, so excluding any leaves it out too. Before, a
  // bulk delete of `!environment:staging` could take issues that were seen in staging.
  if (exclude.environments?.length) {
    add(
      (n) => `NOT (i.environments && $${n}::text[]) AND cardinality(i.environments) < ${MAX_ISSUE_ENVIRONMENTS}`,
      exclude.environments,
    );
  }
  if (exclude.firstReleases?.length) {
    add((n) => `(i.first_release IS NULL OR NOT (i.first_release = ANY($${n}::text[])))`, exclude.firstReleases);
  }
  return { conditions, params };
}

// Each order is keyset-paged on (column, id), both descending. Times travel in the cursor as
// exact text (a JS Date would lose the microseconds, and the next page would repeat a row).
const exactTime = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const SORTS: Record<IssueSort, { column: string; key: string; type: string }> = {
  lastSeen: { column: 'i.last_seen', key: exactTime('i.last_seen'), type: 'timestamptz' },
  firstSeen: { column: 'i.first_seen', key: exactTime('i.first_seen'), type: 'timestamptz' },
  events: { column: 'i.times_seen', key: 'i.times_seen', type: 'integer' },
  users: { column: 'i.user_count', key: 'i.user_count', type: 'integer' },
};

// The lastSeen cursor keeps the shape it always had ([time, id]), so cursors handed out before
// the other orders existed still work; the others name their order, so a cursor of one order
// given with another is refused instead of paging from the wrong place.
function encodeSortCursor(sort: IssueSort, key: string | number, id: number): string {
  return sort === 'lastSeen' ? encodeCursor([key, id]) : encodeCursor([sort, key, id]);
}

function decodeSortCursor(cursor: string, sort: IssueSort): [string | number, number] {
  // Said in both directions: a lastSeen cursor has no name, but its shape tells it apart.
  const from = sortOfCursor(cursor);
  if (from !== undefined && from !== sort) {
    throw new UserInputError(`this cursor pages issues by ${from}, not ${sort}: start again from the first page`);
  }
  if (sort === 'lastSeen') {
    const [key, id] = decodeCursor(cursor, ['time', 'int4']);
    return [key!, id as number];
  }
  const keyType = SORTS[sort].type === 'integer' ? 'int4' : 'time';
  const [named, key, id] = decodeCursor(cursor, ['string', keyType, 'int4']);
  if (named !== sort) {
    throw new UserInputError(`this cursor pages issues by ${String(named)}, not ${sort}: start again from the first page`);
  }
  return [key!, id as number];
}

/** The order a cursor of ours came from; undefined for anything else (decodeCursor refuses it). */
function sortOfCursor(cursor: string): IssueSort | undefined {
  const key = peekCursor(cursor);
  if (!key) return undefined;
  if (key.length === 2) return 'lastSeen';
  const named = key[0] as IssueSort;
  return key.length === 3 && ISSUE_SORTS.includes(named) ? named : undefined;
}
