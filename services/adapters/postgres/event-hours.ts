// issue_event_hours (migration 0024): stored events per issue and UTC hour, added to as a batch's
// rows are inserted (HourTally) and taken from by the database as rows are deleted. A window of
// time is counted from it for its whole hours and from the events themselves for the partial hours
// at its ends (splitAtHours, countedHours). Both SQL event stores (PGlite, Postgres) do so.
import { unnestRows, type SqlExecutor } from './sql-client.ts';

const HOUR = 3600;
/** The column is an integer: no hour after this one. */
const MAX_HOUR = 2 ** 31 - 1;

interface HourSplit {
  /** Whole hours since the epoch, first included, end excluded; first == end when there are none. */
  first: number;
  end: number;
  /** The parts of partial hours, [since, until) in float seconds, each within one hour; none, one or two. */
  partial: Array<[number, number]>;
}

/** Seconds from the Unix epoch to Postgres's, which to_timestamp() counts microseconds from. */
const POSTGRES_EPOCH = 946_684_800;

/**
 * The hour a float-seconds timestamp is stored under, as Postgres files it: to_timestamp() keeps
 * whole microseconds since its epoch, rounding half to even (rint), so a moment less than half a
 * microsecond before an hour belongs to that hour.
 */
export function hourOf(timestamp: number): number {
  const micros = (timestamp - POSTGRES_EPOCH) * 1e6;
  let whole = Math.round(micros);
  if (whole - micros === 0.5 && whole % 2 !== 0) whole -= 1; // Math.round takes half up
  return Math.floor((whole + POSTGRES_EPOCH * 1e6) / (HOUR * 1e6));
}

/** Events per (project, hour, issue), gathered over a batch and added to issue_event_hours in one statement. */
export class HourTally {
  private readonly rows = new Map<string, [projectId: number, hour: number, issueId: number, count: number]>();

  add(projectId: number, timestamp: number, issueId: number): void {
    const hour = hourOf(timestamp);
    const key = `${projectId}:${hour}:${issueId}`;
    const row = this.rows.get(key);
    if (row) row[3] += 1;
    else this.rows.set(key, [projectId, hour, issueId, 1]);
  }

  /** In key order, as every writer adds them, so two batches never wait on each other in a cycle. */
  async addTo(db: SqlExecutor): Promise<void> {
    if (this.rows.size === 0) return;
    const sorted = [...this.rows.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    const values = unnestRows(sorted, ['integer', 'integer', 'integer', 'integer']);
    await db.query(
      `INSERT INTO issue_event_hours (project_id, hour, issue_id, count) SELECT * FROM ${values.sql}
       ON CONFLICT (project_id, hour, issue_id) DO UPDATE SET count = issue_event_hours.count + EXCLUDED.count`,
      values.params,
    );
  }
}

/** [since, until) (float seconds; until Infinity for "from since on") cut where whole hours begin and end. */
export function splitAtHours(since: number, until = Infinity): HourSplit {
  if (until <= since) return { first: 0, end: 0, partial: [] };
  const first = Math.ceil(since / HOUR);
  const end = until === Infinity ? MAX_HOUR : Math.floor(until / HOUR);
  if (end < first) return { first: 0, end: 0, partial: [[since, until]] }; // within one hour
  const partial: Array<[number, number]> = [];
  if (since < first * HOUR) partial.push([since, first * HOUR]);
  if (end !== MAX_HOUR && end * HOUR < until) partial.push([end * HOUR, until]);
  return { first, end, partial };
}

/**
 * Rows (issue_id, hour, n) adding up to the events of a window split by splitAtHours: its whole
 * hours read from issue_event_hours, its partial hours counted from the events, issue by issue
 * through events_issue_time, for the given issues or else for those issue_event_hours counts in
 * that hour. `projects` names a parameter holding one id (`$1::integer`) or an array of them
 * (`$1::integer[]`), `issues` an array; `hours` the first and end hour, `partial` the arrays of
 * each partial part's since and until.
 */
export function countedHours(q: {
  projects: string;
  issues?: string;
  hours: [string, string];
  partial: [string, string];
}): string {
  const inProjects = (column: string) =>
    q.projects.endsWith('[]') ? `${column} = ANY(${q.projects})` : `${column} = ${q.projects}`;
  const partialIssues = q.issues
    ? `unnest(${q.issues}) AS i (issue_id)`
    : `LATERAL (SELECT h.issue_id FROM issue_event_hours h WHERE ${inProjects('h.project_id')} AND h.hour = floor(r.since / 3600)::int) i`;
  return `SELECT issue_id, hour, count AS n FROM issue_event_hours
    WHERE ${inProjects('project_id')}${q.issues ? ` AND issue_id = ANY(${q.issues})` : ''}
      AND hour >= ${q.hours[0]}::int AND hour < ${q.hours[1]}::int
    UNION ALL
    SELECT i.issue_id, floor(r.since / 3600)::int, c.n FROM unnest(${q.partial[0]}::float8[], ${q.partial[1]}::float8[]) AS r (since, until)
      CROSS JOIN ${partialIssues}
      CROSS JOIN LATERAL (SELECT count(*) AS n FROM events e WHERE e.issue_id = i.issue_id AND ${inProjects('e.project_id')}
        AND e.timestamp >= to_timestamp(r.since) AND e.timestamp < to_timestamp(r.until)) c
    WHERE c.n > 0`;
}

/** countedHours' parameters for a split: first hour, end hour, the partial parts' starts and ends. */
export function hourParams(split: HourSplit): unknown[] {
  return [split.first, split.end, split.partial.map((p) => p[0]), split.partial.map((p) => p[1])];
}
