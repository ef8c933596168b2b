// The payloads of deleted events, overwritten in their segment files after the deletion commits.
// Deleting an issue records its events' references in payload_erasures in the statement that
// deletes the rows (PgEventStore.deleteEventsForIssues), on whichever thread deletes; the
// backend thread, the segments' only writer, works the list off here, so that the deleting
// request never waits for the overwriting (an issue of a hundred thousand events is as many
// writes) and a crash or an I/O error before it leaves the erasure owed, not forgotten.
import type { PayloadSegments } from './payload-segments.ts';
import type { SqlClient } from './sql-client.ts';

/** References overwritten, and synced, before the list is told: a few MB of writes at most. */
const ERASED_PER_ROUND = 1000;

/**
 * Overwrites every payload on the list with zeros, round by round, and takes each round off the
 * list once its bytes are synced: a crash between the two erases them again, which is harmless.
 * Returns how many were erased. The database answers other work between rounds.
 */
export async function erasePendingPayloads(
  db: SqlClient,
  segments: PayloadSegments,
  perRound = ERASED_PER_ROUND,
): Promise<number> {
  let erased = 0;
  for (;;) {
    const pending = await db.query<{ reference: string }>('SELECT reference FROM payload_erasures LIMIT $1', [perRound]);
    if (pending.rows.length === 0) return erased;
    const references = pending.rows.map((r) => r.reference);
    segments.erase(references);
    await db.query('DELETE FROM payload_erasures WHERE reference = ANY($1::text[])', [references]);
    erased += references.length;
  }
}
