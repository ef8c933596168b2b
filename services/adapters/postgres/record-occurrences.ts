// The issue side of the path of an event, in SQL: one transaction per batch that
//   0. locks the batch's projects against their delete, leaving out the events of those gone;
//   1. takes an advisory lock on every (project, hash) and (project, event id) of the batch, in
//      sorted order, so two dispatchers never create one issue twice, never count one event
//      twice, and never wait on each other in a cycle;
//   2. looks up which event ids were counted before (processed_events), so a redelivered
//      event is recognised and counted nothing twice;
//   3. finds each group's issue by any of its hashes, creating the missing ones (project rows
//      locked in project order), then updates existing issues in issue-id order;
//   4. records releases and remembers the counted event ids with their issues and with the
//      facts alerts follow from (new issue, regression, new release, counts), which a
//      redelivery gets back as they were;
//   5. adds the counted events' tag values to their issues' tag summaries.
import {
  aggregateOccurrences,
  mergeGroups,
  type Occurrence,
  type OccurrenceGroup,
  type OccurrenceResult,
} from '../../core/issues/occurrence.ts';
import { formatShortId } from '../../core/projects/short-id.ts';
import { MAX_ISSUE_ENVIRONMENTS } from '../../core/ports/issue-store.ts';
import { applyEventTransitions } from './event-transitions.ts';
import { chunk, jsonParam, unnestRows, valuesList, type SqlExecutor } from './sql-client.ts';
import { compareText } from '../../core/compare-text.ts';
import { lockProjectsShared } from './project-locks.ts';

/** Rows a statement over unnest() arrays takes: no placeholder limit applies, this bounds one message. */
const ROWS_PER_STATEMENT = 5000;

export async function recordOccurrences(tx: SqlExecutor, batch: Occurrence[]): Promise<OccurrenceResult[]> {
  const live = await lockLiveProjects(tx, batch);
  const unique = new Map<string, Occurrence>();
  for (const occurrence of batch) {
    const key = eventKey(occurrence.projectId, occurrence.eventId);
    if (!unique.has(key) && live.has(occurrence.projectId)) unique.set(key, occurrence);
  }
  await lockHashesAndEvents(tx, [...unique.values()]);
  // Under those locks, an event id already recorded stays recorded and no one else records it
  // meanwhile. The event id is locked as well as its hashes: two deliveries of one event can
  // carry different hashes (one symbolicated and one not, grouping rules changed between), and
  // each counted it, in two issues.
  const results = new Map<string, OccurrenceResult>();
  for (const recorded of await findRecordedEvents(tx, [...unique.values()])) {
    results.set(eventKey(recorded.projectId, recorded.eventId), recorded);
  }
  const fresh = [...unique.values()].filter((o) => !results.has(eventKey(o.projectId, o.eventId)));

  const upserted = await upsertIssues(tx, aggregateOccurrences(fresh));
  const regressions = await applyEventTransitions(tx, occurrencesOfExistingIssues(upserted, fresh));
  const newReleases = firstEventPerRelease(fresh, await recordReleases(tx, fresh));
  await recordEnvironments(tx, fresh);
  const counted: OccurrenceResult[] = [];
  for (const { group, issue } of upserted) {
    for (const eventId of group.eventIds) {
      counted.push({
        projectId: group.projectId,
        eventId,
        issueId: issue.id,
        shortId: issue.shortId,
        isNewIssue: issue.created && eventId === group.earliest.eventId,
        isDuplicate: false,
        isRegression: regressions.has(eventKey(group.projectId, eventId)),
        isNewRelease: newReleases.has(eventKey(group.projectId, eventId)),
        countBefore: issue.timesSeen - issue.batchCount,
        countAfter: issue.timesSeen,
      });
    }
  }
  await rememberEvents(tx, counted);
  await recordTagValues(tx, counted, fresh);
  for (const result of counted) results.set(eventKey(result.projectId, result.eventId), result);
  return batch.map((o) => results.get(eventKey(o.projectId, o.eventId))).filter((r): r is OccurrenceResult => r !== undefined);
}

/**
 * The batch's projects that exist, locked against their delete until the batch commits
 * (project-locks.ts). A project's delete cascades to its issues; a batch that had locked some of
 * them and then needed the project row (its releases' foreign key) waited on the delete while the
 * delete waited on it, and Postgres aborted one of the two. Now the delete waits for the batch,
 * and a batch after the delete finds the project gone and counts its events nowhere
 * (project_missing).
 */
async function lockLiveProjects(tx: SqlExecutor, batch: Occurrence[]): Promise<Set<number>> {
  const ids = [...new Set(batch.map((o) => o.projectId))];
  await lockProjectsShared(tx, ids);
  const result = await tx.query<{ id: number }>('SELECT id FROM projects WHERE id = ANY($1::int[])', [ids]);
  return new Set(result.rows.map((row) => row.id));
}

/** The batch's events per issue that existed before it: only those can regress or wake up. */
function occurrencesOfExistingIssues(
  upserted: Array<{ group: OccurrenceGroup; issue: UpsertedIssue }>,
  fresh: Occurrence[],
): Map<number, Occurrence[]> {
  const byEvent = new Map(fresh.map((o) => [eventKey(o.projectId, o.eventId), o]));
  const byIssue = new Map<number, Occurrence[]>();
  for (const { group, issue } of upserted) {
    if (issue.created) continue;
    const list = byIssue.get(issue.id) ?? [];
    for (const eventId of group.eventIds) list.push(byEvent.get(eventKey(group.projectId, eventId))!);
    byIssue.set(issue.id, list);
  }
  return byIssue;
}

/**
 * One row of `table` by its primary key (project_id, `key`) for each row of the unnest() `v`
 * beside it: an index probe per row, at any size of the table. Joined plainly to a batch of 250,
 * the planner hashed the whole table instead while it held from a few thousand rows to a few
 * tens of thousands: in PGlite 7.7-17.6 ms a lookup against processed_events of 5,000 to 20,000
 * rows, 3.2-3.9 ms probed. Where the planner chose well, probing costs up to about a millisecond
 * more (docs/benchmarks.md, 2026-11-30). LIMIT keeps the planner from flattening the subquery
 * back into that join.
 */
function byPrimaryKey(table: 'processed_events' | 'issue_hashes', key: 'event_id' | 'hash'): string {
  return `SELECT * FROM ${table} t WHERE t.project_id = v.project_id AND t.${key} = v.${key} LIMIT 1`;
}

function eventKey(projectId: number, eventId: string): string {
  return `${projectId}:${eventId}`;
}

function hashKey(projectId: number, hash: string): string {
  return `${projectId}:${hash}`;
}

/** Every (project, hash) and (project, event id) of the batch, locked in one sorted order by every transaction. */
async function lockHashesAndEvents(tx: SqlExecutor, occurrences: Occurrence[]): Promise<void> {
  await lockHashKeys(
    tx,
    occurrences.flatMap((o) => [...o.hashes.map((hash) => hashKey(o.projectId, hash)), `${o.projectId}:event:${o.eventId}`]),
  );
}

/** The lock on each (project, hash) key (or event id), taken in one sorted order by everyone who takes them. */
export async function lockHashKeys(tx: SqlExecutor, keys: string[]): Promise<void> {
  const sorted = [...new Set(keys)].sort();
  if (sorted.length === 0) return;
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) AS k', [sorted]);
}

interface UpsertedIssue {
  id: number;
  shortId: string;
  created: boolean;
  /** The issue's event count after this batch, and how many of those the batch added. */
  timesSeen: number;
  batchCount: number;
}

/** Each group with its issue, found by any hash or created; groups of deleted projects are left out. */
async function upsertIssues(
  tx: SqlExecutor,
  groups: OccurrenceGroup[],
): Promise<Array<{ group: OccurrenceGroup; issue: UpsertedIssue }>> {
  const known = await issuesByHash(tx, groups);
  const issueOf = (group: OccurrenceGroup) =>
    group.hashes.map((hash) => known.get(hashKey(group.projectId, hash))).find((id) => id !== undefined);
  const out: Array<{ group: OccurrenceGroup; issue: UpsertedIssue }> = [];
  // New issues first, project by project; a later group may find one made here by a shared hash.
  const updates = new Map<number, OccurrenceGroup[]>();
  for (const group of [...groups].sort((a, b) => a.projectId - b.projectId)) {
    const issueId = issueOf(group);
    if (issueId !== undefined) {
      updates.set(issueId, [...(updates.get(issueId) ?? []), group]);
      continue;
    }
    const issue = await createIssue(tx, group);
    if (!issue) continue; // the project was deleted while its events waited in the queue
    await linkHashes(tx, [{ group, issueId: issue.id }], known);
    out.push({ group, issue });
  }
  // Then every existing issue in one statement (the common case: an issue seen before).
  const entries = [...updates].map(([issueId, same]) => ({ issueId, group: mergeGroups(same), groups: same }));
  const updated = await updateIssues(tx, entries);
  await linkHashes(tx, entries, known);
  for (const entry of entries) {
    const issue = updated.get(entry.issueId);
    if (issue) for (const group of entry.groups) out.push({ group, issue });
  }
  return out;
}

async function issuesByHash(tx: SqlExecutor, groups: OccurrenceGroup[]): Promise<Map<string, number>> {
  const known = new Map<string, number>();
  const pairs = groups.flatMap((g) => g.hashes.map((hash) => [g.projectId, hash]));
  for (const part of chunk(pairs, ROWS_PER_STATEMENT)) {
    const values = unnestRows(part, ['integer', 'text']);
    const rows = await tx.query<{ project_id: number; hash: string; issue_id: number }>(
      `SELECT h.project_id, h.hash, h.issue_id FROM ${values.sql} AS v (project_id, hash)
       CROSS JOIN LATERAL (${byPrimaryKey('issue_hashes', 'hash')}) h`,
      values.params,
    );
    for (const row of rows.rows) known.set(hashKey(row.project_id, row.hash), row.issue_id);
  }
  return known;
}

async function linkHashes(
  tx: SqlExecutor,
  entries: Array<{ group: OccurrenceGroup; issueId: number }>,
  known: Map<string, number>,
): Promise<void> {
  const rows: Array<[number, string, number]> = [];
  for (const { group, issueId } of entries) {
    for (const hash of group.hashes) {
      const key = hashKey(group.projectId, hash);
      if (known.has(key)) continue;
      known.set(key, issueId);
      rows.push([group.projectId, hash, issueId]);
    }
  }
  for (const part of chunk(rows, ROWS_PER_STATEMENT)) {
    const values = unnestRows(part, ['integer', 'text', 'integer']);
    await tx.query(
      `INSERT INTO issue_hashes (project_id, hash, issue_id) SELECT * FROM ${values.sql} ON CONFLICT DO NOTHING`,
      values.params,
    );
  }
}

async function createIssue(tx: SqlExecutor, group: OccurrenceGroup): Promise<UpsertedIssue | undefined> {
  const counter = await tx.query<{ issue_counter: number; slug: string }>(
    'UPDATE projects SET issue_counter = issue_counter + 1 WHERE id = $1 RETURNING issue_counter, slug',
    [group.projectId],
  );
  const project = counter.rows[0];
  if (!project) return undefined;
  const { latest } = group;
  const inserted = await tx.query<{ id: number }>(
    `INSERT INTO issues (project_id, short_number, title, culprit, level, status, type, metadata, first_seen,
       last_seen, times_seen, user_count, environments, first_release, last_release, first_released_at, last_released_at)
     VALUES ($1, $2, $3, $4, $5, 'unresolved', $6, $7::jsonb, to_timestamp($8::float8), to_timestamp($9::float8),
       $10, $11, $12::text[], $13, $14, to_timestamp($15::float8), to_timestamp($16::float8))
     RETURNING id`,
    [
      group.projectId,
      project.issue_counter,
      latest.title,
      latest.culprit,
      latest.level,
      latest.type,
      jsonParam(latest.metadata),
      group.firstSeen,
      group.lastSeen,
      group.count,
      group.userKeys.length,
      group.environments.slice(0, MAX_ISSUE_ENVIRONMENTS),
      group.earliestReleased?.release ?? null,
      group.latestReleased?.release ?? null,
      group.earliestReleased?.timestamp ?? null,
      group.latestReleased?.timestamp ?? null,
    ],
  );
  const id = inserted.rows[0]!.id;
  await insertNewUsers(
    tx,
    group.userKeys.map((key) => [id, key] as [number, string]),
  );
  return {
    id,
    shortId: formatShortId(project.slug, project.issue_counter),
    created: true,
    timesSeen: group.count,
    batchCount: group.count,
  };
}

/** Existing issues, one row each (groups already merged), updated in one statement per chunk. */
async function updateIssues(
  tx: SqlExecutor,
  entries: Array<{ issueId: number; group: OccurrenceGroup }>,
): Promise<Map<number, UpsertedIssue>> {
  const updated = new Map<number, UpsertedIssue>();
  if (entries.length === 0) return updated;
  // In issue-id order too: each insert key-share-locks its issue row.
  const newUsers = await insertNewUsers(
    tx,
    entries
      .flatMap(({ issueId, group }) => group.userKeys.map((key) => [issueId, key] as [number, string]))
      .sort((a, b) => a[0] - b[0]),
  );
  // Issue-id order, so concurrent batches lock issue rows in the same order.
  const sorted = [...entries].sort((a, b) => a.issueId - b.issueId);
  for (const part of chunk(sorted, ROWS_PER_STATEMENT)) {
    const values = unnestRows(
      part.map(({ issueId, group }) => [
        issueId,
        group.count,
        newUsers.get(issueId) ?? 0,
        group.firstSeen,
        group.lastSeen,
        group.latest.title,
        group.latest.culprit,
        group.latest.level,
        jsonParam(group.latest.metadata),
        jsonParam(group.environments),
        // The releases of the oldest and the newest event that has one, and when they were.
        group.earliestReleased?.release ?? null,
        group.latestReleased?.release ?? null,
        group.earliestReleased?.timestamp ?? null,
        group.latestReleased?.timestamp ?? null,
      ]),
      [
        'integer',
        'integer',
        'integer',
        'float8',
        'float8',
        'text',
        'text',
        'text',
        'jsonb',
        'jsonb',
        'text',
        'text',
        'float8',
        'float8',
      ],
    );
    // SET expressions see the row as it was, so "newer than last_seen" compares with the old value.
    // `i.id = ANY($1)` repeats the join's ids for the planner: joined to the rows alone, it
    // hashed every issue of every project instead (32-46 ms against 14-25 for 126 issues among
    // 20,000 in PGlite; record-occurrences-plans.test.ts). Over unnest() rather than a VALUES
    // list: 1.2 ms less Postgres CPU a transaction of 58 events, 4-9% less in PGlite for
    // batches of 10 and 250 (docs/benchmarks.md, "2026-11-30 (third)"). The environments come
    // as one JSON array per row, since unnest() takes one-dimensional columns only; an issue keeps
    // the first MAX_ISSUE_ENVIRONMENTS.
    const rows = await tx.query<{ id: number; short_number: number; slug: string; times_seen: number }>(
      `UPDATE issues i SET
         times_seen = i.times_seen + v.count,
         user_count = i.user_count + v.new_users,
         first_seen = LEAST(i.first_seen, to_timestamp(v.first_seen)),
         last_seen = GREATEST(i.last_seen, to_timestamp(v.last_seen)),
         title = CASE WHEN to_timestamp(v.last_seen) >= i.last_seen THEN v.title ELSE i.title END,
         culprit = CASE WHEN to_timestamp(v.last_seen) >= i.last_seen THEN v.culprit ELSE i.culprit END,
         level = CASE WHEN to_timestamp(v.last_seen) >= i.last_seen THEN v.level ELSE i.level END,
         metadata = CASE WHEN to_timestamp(v.last_seen) >= i.last_seen THEN v.metadata ELSE i.metadata END,
         environments = CASE WHEN cardinality(i.environments) >= ${MAX_ISSUE_ENVIRONMENTS} THEN i.environments
           ELSE (i.environments || ARRAY(SELECT e FROM jsonb_array_elements_text(v.environments) AS e
             WHERE NOT e = ANY(i.environments)))[1:${MAX_ISSUE_ENVIRONMENTS}] END,
         first_release = CASE WHEN ${EARLIER_RELEASE} THEN v.first_release ELSE i.first_release END,
         first_released_at = CASE WHEN ${EARLIER_RELEASE} THEN to_timestamp(v.first_released_at) ELSE i.first_released_at END,
         last_release = CASE WHEN ${LATER_RELEASE} THEN v.last_release ELSE i.last_release END,
         last_released_at = CASE WHEN ${LATER_RELEASE} THEN to_timestamp(v.last_released_at) ELSE i.last_released_at END
       FROM ${values.sql} AS v (id, count, new_users, first_seen, last_seen, title, culprit, level, metadata, environments,
         first_release, last_release, first_released_at, last_released_at),
         projects p
       WHERE i.id = v.id AND p.id = i.project_id AND i.id = ANY($1::integer[])
       RETURNING i.id, i.short_number, p.slug, i.times_seen`,
      values.params,
    );
    const added = new Map(part.map(({ issueId, group }) => [issueId, group.count]));
    for (const row of rows.rows)
      updated.set(row.id, {
        id: row.id,
        shortId: formatShortId(row.slug, row.short_number),
        created: false,
        timesSeen: row.times_seen,
        batchCount: added.get(row.id)!,
      });
  }
  return updated;
}

/**
 * Whether the batch's oldest (newest) event with a release is older (newer) than the one that set
 * the issue's first (last) release: by their times, whatever order batches arrive in. An issue
 * from before migration 0034 has no such time, and compares with its first or last event.
 */
const EARLIER_RELEASE = `v.first_release IS NOT NULL AND (i.first_release IS NULL
  OR to_timestamp(v.first_released_at) < COALESCE(i.first_released_at, i.first_seen))`;
const LATER_RELEASE = `v.last_release IS NOT NULL AND (i.last_release IS NULL
  OR to_timestamp(v.last_released_at) >= COALESCE(i.last_released_at, i.last_seen))`;

/** Records (issue, user) pairs not seen before; returns how many were new per issue. */
async function insertNewUsers(tx: SqlExecutor, pairs: Array<[number, string]>): Promise<Map<number, number>> {
  const added = new Map<number, number>();
  for (const part of chunk(pairs, ROWS_PER_STATEMENT)) {
    const values = unnestRows(part, ['integer', 'text']);
    const rows = await tx.query<{ issue_id: number }>(
      `INSERT INTO issue_users (issue_id, user_key) SELECT * FROM ${values.sql} ON CONFLICT DO NOTHING RETURNING issue_id`,
      values.params,
    );
    for (const row of rows.rows) added.set(row.issue_id, (added.get(row.issue_id) ?? 0) + 1);
  }
  return added;
}

/** Records the batch's releases; returns the `project:version` keys seen for the first time. */
async function recordReleases(tx: SqlExecutor, occurrences: Occurrence[]): Promise<Set<string>> {
  const seen = new Map<string, { projectId: number; version: string; first: number; last: number }>();
  for (const o of occurrences) {
    if (!o.release) continue;
    const key = `${o.projectId}:${o.release}`;
    const entry = seen.get(key);
    if (!entry) seen.set(key, { projectId: o.projectId, version: o.release, first: o.timestamp, last: o.timestamp });
    else {
      entry.first = Math.min(entry.first, o.timestamp);
      entry.last = Math.max(entry.last, o.timestamp);
    }
  }
  if (seen.size === 0) return new Set();
  // In (project, version) order, as every dispatcher upserts them: two batches holding one
  // release each and waiting for the other's deadlocked, and one of them was retried.
  const values = valuesList(
    [...seen.values()]
      .sort((a, b) => a.projectId - b.projectId || compareText(a.version, b.version))
      .map((r) => [r.projectId, r.version, r.first, r.last]),
    ['integer', 'text', 'float8', 'float8'],
  );
  // xmax is 0 on a row this statement inserted, and set on one it updated.
  const rows = await tx.query<{ project_id: number; version: string; inserted: boolean }>(
    `INSERT INTO releases (project_id, version, first_seen, last_seen)
     SELECT v.project_id, v.version, to_timestamp(v.first_seen), to_timestamp(v.last_seen)
     FROM (VALUES ${values.sql}) AS v (project_id, version, first_seen, last_seen)
     WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = v.project_id)
     ON CONFLICT (project_id, version) DO UPDATE SET
       first_seen = LEAST(releases.first_seen, EXCLUDED.first_seen),
       last_seen = GREATEST(releases.last_seen, EXCLUDED.last_seen)
     RETURNING project_id, version, (xmax = 0) AS inserted`,
    values.params,
  );
  return new Set(rows.rows.filter((r) => r.inserted).map((r) => `${r.project_id}:${r.version}`));
}

/** Most tags counted per event: an event may carry thousands, and each is a row to write. */
const MAX_COUNTED_TAGS = 50;

/**
 * Counted whatever else an event carries: the issue's events per environment and per release
 * are read from them (get_issue_context, the issue page). Sorted in with the rest, `release`
 * fell past the first 50 keys of an event with many tags, and its releases went uncounted.
 */
const ALWAYS_COUNTED = ['environment', 'release'];

/** The tag keys of an event that are counted: environment and release, then the others in order, 50 in all. */
function countedKeys(tags: Record<string, string>): string[] {
  const always = ALWAYS_COUNTED.filter((key) => Object.hasOwn(tags, key));
  const others = Object.keys(tags)
    .filter((key) => !ALWAYS_COUNTED.includes(key))
    .sort();
  return [...always, ...others.slice(0, MAX_COUNTED_TAGS - always.length)];
}

/** Adds each counted event's tag values (countedKeys) to its issue's summary. */
async function recordTagValues(tx: SqlExecutor, counted: OccurrenceResult[], fresh: Occurrence[]): Promise<void> {
  const byEvent = new Map(fresh.map((o) => [eventKey(o.projectId, o.eventId), o]));
  const rows = new Map<string, [issueId: number, key: string, value: string, count: number]>();
  for (const result of counted) {
    const tags = byEvent.get(eventKey(result.projectId, result.eventId))!.tags;
    for (const key of countedKeys(tags)) {
      const id = JSON.stringify([result.issueId, key, tags[key]]);
      const row = rows.get(id);
      if (row) row[3] += 1;
      else rows.set(id, [result.issueId, key, tags[key]!, 1]);
    }
  }
  // In (issue, key, value) order, as every dispatcher writes them, so none waits on another in a cycle.
  const sorted = [...rows.values()].sort((a, b) => a[0] - b[0] || compareText(a[1], b[1]) || compareText(a[2], b[2]));
  for (const part of chunk(sorted, ROWS_PER_STATEMENT)) {
    const values = unnestRows(part, ['integer', 'text', 'text', 'integer']);
    await tx.query(
      `INSERT INTO issue_tag_values (issue_id, key, value, count) SELECT * FROM ${values.sql}
       ON CONFLICT (issue_id, key, value) DO UPDATE SET count = issue_tag_values.count + EXCLUDED.count`,
      values.params,
    );
  }
}

/** Records the environments the batch's events came with (the Issues page's filter lists them). */
async function recordEnvironments(tx: SqlExecutor, occurrences: Occurrence[]): Promise<void> {
  const seen = new Map<string, [number, string]>();
  for (const o of occurrences) if (o.environment) seen.set(`${o.projectId}:${o.environment}`, [o.projectId, o.environment]);
  if (seen.size === 0) return;
  // In (project, environment) order, as releases are, for the same reason.
  const values = valuesList(
    [...seen.values()].sort((a, b) => a[0] - b[0] || compareText(a[1], b[1])),
    ['integer', 'text'],
  );
  await tx.query(
    `INSERT INTO project_environments (project_id, environment)
     SELECT v.project_id, v.environment FROM (VALUES ${values.sql}) AS v (project_id, environment)
     WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = v.project_id)
     ON CONFLICT DO NOTHING`,
    values.params,
  );
}

/** Event keys of the earliest event of each new release: the one that brought it. */
function firstEventPerRelease(occurrences: Occurrence[], newReleases: Set<string>): Set<string> {
  const first = new Map<string, Occurrence>();
  for (const o of occurrences) {
    const key = `${o.projectId}:${o.release}`;
    if (!o.release || !newReleases.has(key)) continue;
    const current = first.get(key);
    if (!current || o.timestamp < current.timestamp) first.set(key, o);
  }
  return new Set([...first.values()].map((o) => eventKey(o.projectId, o.eventId)));
}

/** Marks the events counted, with their issue: what makes a redelivery a no-op. */
async function rememberEvents(tx: SqlExecutor, results: OccurrenceResult[]): Promise<void> {
  const sorted = [...results].sort((a, b) => a.projectId - b.projectId || compareText(a.eventId, b.eventId));
  for (const part of chunk(sorted, ROWS_PER_STATEMENT)) {
    const values = unnestRows(
      part.map((r) => [
        r.projectId,
        r.eventId,
        r.issueId,
        r.isNewIssue,
        r.isRegression,
        r.isNewRelease,
        r.countBefore,
        r.countAfter,
      ]),
      ['integer', 'text', 'integer', 'boolean', 'boolean', 'boolean', 'integer', 'integer'],
    );
    await tx.query(
      `INSERT INTO processed_events
         (project_id, event_id, issue_id, is_new_issue, is_regression, is_new_release, count_before, count_after)
       SELECT * FROM ${values.sql} ON CONFLICT DO NOTHING`,
      values.params,
    );
  }
}

async function findRecordedEvents(tx: SqlExecutor, occurrences: Occurrence[]): Promise<OccurrenceResult[]> {
  const found: OccurrenceResult[] = [];
  for (const part of chunk(occurrences, ROWS_PER_STATEMENT)) {
    const values = unnestRows(
      part.map((o) => [o.projectId, o.eventId]),
      ['integer', 'text'],
    );
    const rows = await tx.query<RecordedEventRow>(
      `SELECT pe.project_id, pe.event_id, pe.issue_id, i.short_number, p.slug, pe.is_new_issue, pe.is_regression,
         pe.is_new_release, pe.count_before, pe.count_after, i.id IS NULL AS issue_deleted
       FROM ${values.sql} AS v (project_id, event_id)
       CROSS JOIN LATERAL (${byPrimaryKey('processed_events', 'event_id')}) pe
       LEFT JOIN issues i ON i.id = pe.issue_id
       LEFT JOIN projects p ON p.id = i.project_id
       WHERE pe.issue_id IS NOT NULL`,
      values.params,
    );
    for (const r of rows.rows) {
      found.push({
        projectId: r.project_id,
        eventId: r.event_id,
        issueId: r.issue_id,
        // The counted event ids of a deleted issue stay (until retention) to say so.
        ...(r.issue_deleted ? { issueDeleted: true as const } : {}),
        shortId: r.issue_deleted ? '' : formatShortId(r.slug!, r.short_number!),
        isNewIssue: r.is_new_issue,
        isDuplicate: true,
        isRegression: r.is_regression,
        isNewRelease: r.is_new_release,
        countBefore: r.count_before,
        countAfter: r.count_after,
      });
    }
  }
  return found;
}

interface RecordedEventRow {
  project_id: number;
  event_id: string;
  issue_id: number;
  short_number: number | null;
  slug: string | null;
  issue_deleted: boolean;
  is_new_issue: boolean;
  is_regression: boolean;
  is_new_release: boolean;
  count_before: number;
  count_after: number;
}
