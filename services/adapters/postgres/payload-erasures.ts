// The payloads of deleted events, overwritten in their segment files after the deletion commits.
// Deleting an issue records its events' references in payload_erasures in the statement that
// deletes the rows (PgEventStore.deleteEventsForIssues), on whichever thread deletes; the
// backend thread, the segments' only writer, works the list off here, so that the deleting
// request never waits for the overwriting (an issue of a hundred thousand events is as many
// writes) and a crash or an I/O error before it leaves the erasure owed, not forgotten.
import type { PayloadSegments } from './payload-segments.ts';
import type { SqlClient } from './sql-client.ts';

/** References overwritten, and synced, before the list is told: typically a few MB of writes. */
const ERASED_PER_ROUND = 1000;

interface ErasureProgress {
  /** Payloads overwritten with zeros. */
  overwritten: number;
  /** Taken off the list without writing: their segment was gone (removed by retention). */
  gone: number;
}

/**
 * Overwrites the payloads on the list with zeros, round by round, and takes each round off the
 * list once its bytes are synced: a crash between the two erases them again, which is harmless.
 * Stops when the list is empty, or between rounds once `shouldStop` says so (a server stopping;
 * the rest stays owed). The database answers other work between rounds.
 */
export async function erasePendingPayloads(
  db: SqlClient,
  segments: PayloadSegments,
  { perRound = ERASED_PER_ROUND, shouldStop = () => false }: { perRound?: number; shouldStop?: () => boolean } = {},
): Promise<ErasureProgress> {
  const progress = { overwritten: 0, gone: 0 };
  while (!shouldStop()) {
    const pending = await db.query<{ reference: string }>('SELECT reference FROM payload_erasures LIMIT $1', [perRound]);
    if (pending.rows.length === 0) break;
    const references = pending.rows.map((r) => r.reference);
    const overwritten = segments.erase(references);
    await db.query('DELETE FROM payload_erasures WHERE reference = ANY($1::text[])', [references]);
    progress.overwritten += overwritten;
    progress.gone += references.length - overwritten;
  }
  return progress;
}
