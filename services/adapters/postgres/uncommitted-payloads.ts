// At a start, before the first append, each payload segment is cut back to its committed end:
// the end of the last bytes a committed batch wrote there (its rows' payloads and the copies it
// listed for erasure), raised with every batch that stores rows (pg-event-store.ts). What lies
// past it was written for a batch that never committed: a crash came between the write and the
// commit, and the queue hands the batch over again, its events getting copies of their own.
// Nothing would ever refer to those bytes, and deleting their issue would leave them behind until
// retention removed the segment. Then the erasures owed that reach past a file's end go: the next
// append writes there, and the erasure job must not overwrite it.
import type { PayloadSegments } from './payload-segments.ts';
import { endOfReference, segmentOfReference } from './reference-sql.ts';
import type { SqlClient } from './sql-client.ts';

interface CutOutcome {
  /** Segments cut back, with the bytes each lost. */
  cut: Array<{ segment: string; bytes: number }>;
  /** Segments shorter than what committed rows refer to (a damaged data directory), grown with zeros. */
  grown: Array<{ segment: string; bytes: number }>;
  /** Segments that could not be cut or grown: their tails stay until retention removes them. */
  failed: Array<{ segment: string; error: Error }>;
  /** Erasures owed past a file's end whose bytes before it could not be overwritten; let go all the same. */
  unerased: Array<{ segment: string; payloads: number; error: Error }>;
}

/**
 * Sets every segment whose length is not its committed end to it, or to the furthest bytes a row
 * refers to where that is further; for the writer, before it appends. A file that cannot be
 * looked at fails the start: appending to it could put a payload under an erasure owed there.
 */
export async function cutUncommittedPayloads(db: SqlClient, segments: PayloadSegments): Promise<CutOutcome> {
  const tracked = await db.query<{ name: string; committed_end: string | number }>(
    'SELECT name, committed_end FROM payload_segments WHERE committed_end IS NOT NULL',
  );
  const outcome: CutOutcome = { cut: [], grown: [], failed: [], unerased: [] };
  const mismatched = new Map<string, { size: number; committedEnd: number }>();
  for (const { name, committed_end } of tracked.rows) {
    const size = segments.sizeOf(name);
    if (size !== undefined && size !== Number(committed_end)) mismatched.set(name, { size, committedEnd: Number(committed_end) });
  }
  if (mismatched.size > 0) {
    // A version of Errata from before committed ends (still allowed to serve on this schema) may
    // have stored rows past one: the rows say where the end is, then. One pass over the events,
    // reading only the start of a payload kept in the row (a reference is the whole value).
    const rows = await db.query<{ name: string; end: string | number | null }>(
      `SELECT substr(payload_deflated, 2, 13) AS name, max(${endOfReference('payload_deflated')}) AS end FROM events
       WHERE substr(payload_deflated, 1, 1) = '@' AND substr(payload_deflated, 2, 13) = ANY($1::text[])
       GROUP BY 1`,
      [[...mismatched.keys()]],
    );
    const rowEnds = new Map(rows.rows.map((r) => [r.name, Number(r.end ?? 0)]));
    for (const [name, { size, committedEnd }] of mismatched) {
      const end = Math.max(committedEnd, rowEnds.get(name) ?? 0);
      try {
        if (size > end) outcome.cut.push({ segment: name, bytes: segments.cut(name, end) });
        else if (size < end) outcome.grown.push({ segment: name, bytes: segments.grow(name, end) });
      } catch (error) {
        outcome.failed.push({ segment: name, error: error as Error });
      }
    }
  }
  outcome.unerased = await dropErasuresPastEnds(db, segments);
  return outcome;
}

/**
 * The erasures owed that reach past their file's end (a failed batch's payloads that reached the
 * disk in part, in a file no start cut): the next append writes at the end, so what they cover
 * there would be overwritten. Their bytes before the end are erased now, before any append, and
 * they go from the list either way, even where that erasing failed (returned, to be reported).
 * At every start, after the cuts: a crash between the two leaves it for the next.
 */
async function dropErasuresPastEnds(db: SqlClient, segments: PayloadSegments): Promise<CutOutcome['unerased']> {
  const files: Array<[string, number]> = [];
  for (const name of segments.list()) {
    const size = segments.sizeOf(name);
    if (size !== undefined) files.push([name, size]);
  }
  const reaching = await db.query<{ reference: string }>(
    `SELECT e.reference FROM payload_erasures e JOIN unnest($1::text[], $2::bigint[]) AS f (name, size)
       ON ${segmentOfReference('e.reference')} = f.name
     WHERE ${endOfReference('e.reference')} > f.size`,
    [files.map(([name]) => name), files.map(([, size]) => size)],
  );
  const references = reaching.rows.map((r) => r.reference);
  if (references.length === 0) return [];
  const { failed } = segments.erase(references);
  await db.query('DELETE FROM payload_erasures WHERE reference = ANY($1::text[])', [references]);
  return failed;
}
