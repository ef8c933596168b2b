// At a start, before the first append, each payload segment is cut back to its committed end:
// the end of the last bytes a committed row refers to there, raised with every batch that stores
// rows in it (pg-event-store.ts). What lies past it was written for a batch that never committed
// (a crash came between the write and the commit; the queue hands the batch over again and its
// events get copies of their own), or is a committed batch's copy no row refers to, already on
// the erasure list. Nothing would ever refer to those bytes, and deleting their issue would leave
// them behind until retention removed the segment.
// Then the erasures owed at or past a segment's end go: the next append writes there, and the
// erasure job must not overwrite it.
import type { PayloadSegments } from './payload-segments.ts';
import type { SqlClient } from './sql-client.ts';

const WELL_FORMED = `'^@[0-9]{8}-[0-9]{4}:[0-9]{1,15}:[0-9]{1,9}$'`;
/** In SQL, the offset of the reference in `column`; null where it is malformed (only corruption makes one; the erasure job reports it). */
const offsetOf = (column: string) => `(CASE WHEN ${column} ~ ${WELL_FORMED} THEN split_part(${column}, ':', 2)::bigint END)`;
/** In SQL, where the bytes of the reference in `column` end; null where it is malformed or not a reference. */
const endOf = (column: string) =>
  `(CASE WHEN ${column} ~ ${WELL_FORMED} THEN split_part(${column}, ':', 2)::bigint + split_part(${column}, ':', 3)::bigint END)`;

interface CutOutcome {
  /** Segments cut back, with the bytes each lost. */
  cut: Array<{ segment: string; bytes: number }>;
  /** Segments that could not be cut: their tails stay until retention removes them. */
  failed: Array<{ segment: string; error: Error }>;
}

/** Cuts every segment longer than its committed end back to it; for the writer, before it appends. */
export async function cutUncommittedPayloads(db: SqlClient, segments: PayloadSegments): Promise<CutOutcome> {
  const tracked = await db.query<{ name: string; committed_end: string | number }>(
    'SELECT name, committed_end FROM payload_segments WHERE committed_end IS NOT NULL',
  );
  const outcome: CutOutcome = { cut: [], failed: [] };
  for (const { name, committed_end } of tracked.rows) {
    const size = segments.sizeOf(name);
    if (size === undefined || size <= Number(committed_end)) continue;
    try {
      // A version of Errata from before committed ends (still allowed to serve on this schema)
      // may have stored rows here past it: the rows themselves say where the end is, then.
      const rows = await db.query<{ end: string | number | null }>(
        `SELECT max(${endOf('payload_deflated')}) AS end FROM events WHERE payload_deflated LIKE $1`,
        [`@${name}:%`],
      );
      const end = Math.max(Number(committed_end), Number(rows.rows[0]?.end ?? 0));
      const bytes = segments.cut(name, end);
      if (bytes > 0) outcome.cut.push({ segment: name, bytes });
    } catch (error) {
      outcome.failed.push({ segment: name, error: error as Error });
    }
  }
  // Every segment on disk, cut or not, and at every start: a crash between a cut and this
  // statement leaves it for the next. A file shorter than an erasure owed in it (only a damaged
  // data directory makes one) is covered too.
  const names = segments.list();
  const sizes = names.map((name) => segments.sizeOf(name) ?? 0);
  await db.query(
    `DELETE FROM payload_erasures e USING unnest($1::text[], $2::bigint[]) AS f (name, size)
     WHERE split_part(substr(e.reference, 2), ':', 1) = f.name
       AND ${offsetOf('e.reference')} >= f.size`,
    [names, sizes],
  );
  return outcome;
}
