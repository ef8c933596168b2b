// The payloads of deleted events, overwritten in their segment files after the deletion commits,
// and the copies no row refers to (PgEventStore.insertEvents lists them with the batch).
// Deleting an issue records its events' references in payload_erasures in the statement that
// deletes the rows (PgEventStore.deleteEventsForIssues), on whichever thread deletes; the
// backend thread, the segments' only writer, works the list off here, so that the deleting
// request never waits for the overwriting (an issue of a hundred thousand events is as many
// writes) and a crash or an I/O error before it leaves the erasure owed, not forgotten.
import { PayloadSegments, type ErasureOutcome } from './payload-segments.ts';
import { segmentOfReference } from './reference-sql.ts';
import type { SqlClient } from './sql-client.ts';

/** References overwritten, and synced, before the list is told: typically a few MB of writes. */
const ERASED_PER_ROUND = 1000;

interface ErasureProgress {
  /** Payloads overwritten with zeros. */
  overwritten: number;
  /** Taken off the list without writing: their segment was gone (removed by retention). */
  gone: number;
  /** Segments that could not be opened or written: their payloads stay on the list, owed. */
  failed: ErasureOutcome['failed'];
}

/**
 * Overwrites the payloads on the list with zeros, round by round, and takes each round off the
 * list once its bytes are synced: a crash between the two erases them again, which is harmless.
 * A segment that cannot be opened or written keeps its payloads on the list, and later rounds of
 * this run pass over it, so one bad file does not hold up the others; the next run tries it again.
 * Stops when the list is empty (but for those), or between rounds once `shouldStop` says so (a
 * server stopping; the rest stays owed). The database answers other work between rounds.
 */
export async function erasePendingPayloads(
  db: SqlClient,
  segments: PayloadSegments,
  { perRound = ERASED_PER_ROUND, shouldStop = () => false }: { perRound?: number; shouldStop?: () => boolean } = {},
): Promise<ErasureProgress> {
  const progress: ErasureProgress = { overwritten: 0, gone: 0, failed: [] };
  const passedOver: string[] = [];
  while (!shouldStop()) {
    const pending = await db.query<{ reference: string }>(
      `SELECT reference FROM payload_erasures WHERE ${segmentOfReference('reference')} <> ALL($2::text[]) LIMIT $1`,
      [perRound, passedOver],
    );
    if (pending.rows.length === 0) break;
    const references = pending.rows.map((r) => r.reference);
    const { overwritten, failed } = segments.erase(references);
    for (const { segment } of failed) passedOver.push(segment);
    const done = references.filter((reference) => !passedOver.includes(PayloadSegments.segmentOf(reference)));
    await db.query('DELETE FROM payload_erasures WHERE reference = ANY($1::text[])', [done]);
    progress.overwritten += overwritten;
    progress.gone += done.length - overwritten;
    progress.failed.push(...failed);
  }
  return progress;
}
