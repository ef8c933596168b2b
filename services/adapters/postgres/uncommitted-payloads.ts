// At a start, before the first append, each payload segment is cut back to its committed end:
// the end of the last bytes a committed row refers to there, raised with every batch that stores
// rows in it (pg-event-store.ts). What lies past it was written for a batch that never committed,
// a crash coming between the write and the commit. The queue hands that batch over again and its
// events get copies of their own, so nothing would ever refer to these bytes, and deleting their
// issue would leave them behind until retention removed the segment. Erasures owed past a
// committed end go with the bytes: the next append writes there, and the erasure job must not
// overwrite it.
import type { PayloadSegments } from './payload-segments.ts';
import type { SqlClient } from './sql-client.ts';

interface CutOutcome {
  /** Segments cut back, with the bytes each lost. */
  cut: Array<{ segment: string; bytes: number }>;
  /** Segments that could not be cut: their erasures stay owed, and their tails until retention. */
  failed: Array<{ segment: string; error: Error }>;
}

/** Cuts every segment with a committed end back to it; for the writer, before it appends. */
export async function cutUncommittedPayloads(db: SqlClient, segments: PayloadSegments): Promise<CutOutcome> {
  const tracked = await db.query<{ name: string; committed_end: string | number }>(
    'SELECT name, committed_end FROM payload_segments WHERE committed_end IS NOT NULL',
  );
  const present = new Set(segments.list());
  const outcome: CutOutcome = { cut: [], failed: [] };
  for (const { name, committed_end } of tracked.rows) {
    if (!present.has(name)) continue;
    try {
      const bytes = segments.cut(name, Number(committed_end));
      if (bytes > 0) outcome.cut.push({ segment: name, bytes });
    } catch (error) {
      outcome.failed.push({ segment: name, error: error as Error });
    }
  }
  // After the cuts, and at every start: a crash between the two leaves this for the next. A
  // malformed reference (only corruption makes one) is left to the erasure job to report.
  await db.query(
    `DELETE FROM payload_erasures e USING payload_segments s
     WHERE s.committed_end IS NOT NULL AND s.name <> ALL($1::text[])
       AND split_part(substr(e.reference, 2), ':', 1) = s.name
       AND (CASE WHEN e.reference ~ '^@[0-9]{8}-[0-9]{4}:[0-9]{1,15}:[0-9]{1,9}$'
            THEN split_part(e.reference, ':', 2)::bigint END) >= s.committed_end`,
    [outcome.failed.map((f) => f.segment)],
  );
  return outcome;
}
