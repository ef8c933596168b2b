// The lifecycle side of recording occurrences: after existing issues are counted, their new
// events may regress a resolved issue or end a snooze (core/issues/lifecycle.ts decides). Runs
// inside the occurrence transaction, on rows locked in issue-id order.
import { transitionOnEvents, type IssueState, type ResolutionMarker } from '../../core/issues/lifecycle.ts';
import type { Occurrence } from '../../core/issues/occurrence.ts';
import type { IssueStatus } from '../../core/ports/metadata-store.ts';
import { insertActivity, SYSTEM_ACTOR, type NewActivity } from './issue-activity.ts';
import { jsonParam, valuesList, type SqlExecutor } from './sql-client.ts';

interface StateRow {
  id: number;
  project_id: number;
  status: IssueStatus;
  resolution: ResolutionMarker | null;
  snooze_until: Date | null;
}

/** Applies what the events do to each issue's state; returns the events that regressed an issue. */
export async function applyEventTransitions(tx: SqlExecutor, byIssue: Map<number, Occurrence[]>): Promise<Set<string>> {
  const regressions = new Set<string>();
  if (byIssue.size === 0) return regressions;
  const states = await tx.query<StateRow>(
    `SELECT id, project_id, status, resolution, snooze_until FROM issues
     WHERE id = ANY($1::int[]) AND status IN ('resolved', 'snoozed') ORDER BY id FOR NO KEY UPDATE`,
    [[...byIssue.keys()]],
  );
  if (states.rows.length === 0) return regressions;
  const firstSeen = await releaseFirstSeen(tx, states.rows, byIssue);
  const activity: NewActivity[] = [];
  for (const row of states.rows) {
    const events = [...byIssue.get(row.id)!].sort((a, b) => a.timestamp - b.timestamp);
    const state: IssueState = { status: row.status, resolution: row.resolution, snoozeUntil: row.snooze_until };
    const transition = transitionOnEvents(state, events, (version) => firstSeen.get(`${row.project_id}:${version}`));
    if (!transition) continue;
    const { event } = transition;
    const regressed = transition.activity === 'regression';
    await tx.query(
      `UPDATE issues SET status = $2, resolution = $3::jsonb, snooze_until = $4,
         regressed_at = CASE WHEN $5 THEN to_timestamp($6::float8) ELSE regressed_at END,
         regression_release = CASE WHEN $5 THEN $7 ELSE regression_release END
       WHERE id = $1`,
      [
        row.id,
        transition.state.status,
        transition.state.resolution && jsonParam(transition.state.resolution),
        transition.state.snoozeUntil,
        regressed,
        event.timestamp,
        event.release,
      ],
    );
    if (regressed) regressions.add(`${event.projectId}:${event.eventId}`);
    activity.push({
      issueId: row.id,
      actor: SYSTEM_ACTOR,
      kind: transition.activity,
      // Only the event id: its release is captured text, kept on the issue (regression_release).
      details: { eventId: event.eventId },
    });
  }
  await insertActivity(tx, activity);
  return regressions;
}

/** First-seen times (ms) of the releases the markers and the events name, keyed project:version. */
async function releaseFirstSeen(
  tx: SqlExecutor,
  rows: StateRow[],
  byIssue: Map<number, Occurrence[]>,
): Promise<Map<string, number>> {
  const pairs = new Map<string, [number, string]>();
  const want = (projectId: number, version: string | null | undefined) => {
    if (version) pairs.set(`${projectId}:${version}`, [projectId, version]);
  };
  for (const row of rows) {
    want(row.project_id, row.resolution?.release);
    for (const o of byIssue.get(row.id)!) want(row.project_id, o.release);
  }
  const found = new Map<string, number>();
  if (pairs.size === 0) return found;
  const values = valuesList([...pairs.values()], ['integer', 'text']);
  const result = await tx.query<{ project_id: number; version: string; first_seen: Date }>(
    `SELECT r.project_id, r.version, r.first_seen FROM (VALUES ${values.sql}) AS v (project_id, version)
     JOIN releases r ON r.project_id = v.project_id AND r.version = v.version`,
    values.params,
  );
  for (const r of result.rows) found.set(`${r.project_id}:${r.version}`, r.first_seen.getTime());
  return found;
}
