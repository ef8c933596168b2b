// Writes to an issue's activity log, from triage actions and from the event pipeline alike.
import type { ActivityKind } from '../../core/issues/lifecycle.ts';
import { chunk, jsonParam, valuesList, type SqlExecutor } from './sql-client.ts';

/** The actor of changes no token made: regressions, snoozes ending. */
export const SYSTEM_ACTOR = 'errata';

export interface NewActivity {
  issueId: number;
  /** The caller's clock when it has one (triage, snooze expiry); the database's otherwise. */
  at?: Date;
  actor: string;
  kind: ActivityKind;
  details: Record<string, unknown>;
}

export async function insertActivity(tx: SqlExecutor, entries: NewActivity[]): Promise<void> {
  for (const part of chunk(entries, 1000)) {
    const values = valuesList(
      part.map((e) => [e.issueId, e.at ?? null, e.actor, e.kind, jsonParam(e.details)]),
      ['integer', 'timestamptz', 'text', 'text', 'jsonb'],
    );
    await tx.query(
      `INSERT INTO issue_activity (issue_id, at, actor, kind, details)
       SELECT v.issue_id, COALESCE(v.at, now()), v.actor, v.kind, v.details
       FROM (VALUES ${values.sql}) AS v (issue_id, at, actor, kind, details)`,
      values.params,
    );
  }
}
