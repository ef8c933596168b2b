// The backend thread overwrites the payloads of deleted issues' events, and copies no row refers
// to (payload-erasures.ts): at start, which finishes what a crash interrupted, and then every few
// seconds. A deleted event's row is gone at once; its bytes follow within the interval. An empty
// list costs one read of an empty table. A segment file that cannot be opened or written is
// logged and tried again at the next run, the others erased meanwhile. Stopping does not wait
// for a long list: the run ends after its round, and the rest stays owed to the next start.
import { erasePendingPayloads } from '../../adapters/postgres/payload-erasures.ts';
import type { PayloadSegments } from '../../adapters/postgres/payload-segments.ts';
import type { SqlClient } from '../../adapters/postgres/sql-client.ts';
import type { Logger } from '../logger.ts';
import { repeatEvery } from '../repeat.ts';

const INTERVAL_MS = 10_000;

export function startPayloadErasureJob(
  client: SqlClient,
  segments: PayloadSegments,
  logger: Logger,
  { intervalMs = INTERVAL_MS, perRound }: { intervalMs?: number; perRound?: number } = {},
): { stop(): Promise<void> } {
  let stopping = false;
  const job = repeatEvery({ name: 'payload erasure', intervalMs, logger }, async () => {
    const { overwritten, gone, failed } = await erasePendingPayloads(client, segments, { perRound, shouldStop: () => stopping });
    if (overwritten > 0 || gone > 0)
      logger.info({ overwritten, gone }, 'payloads of deleted events, or copies not stored, overwritten');
    for (const { segment, payloads, error } of failed) {
      logger.warn(
        { err: error, segment, payloads },
        'payloads not overwritten: their segment file could not be opened or written (fix its permissions or the disk); they stay owed and are tried again',
      );
    }
  });
  return {
    stop: async () => {
      stopping = true;
      await job.stop();
    },
  };
}
