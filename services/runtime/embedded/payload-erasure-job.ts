// The backend thread overwrites the payloads of deleted issues' events (payload-erasures.ts): at
// start, which finishes what a crash interrupted, and then every few seconds. A deleted event's
// row is gone at once; its bytes follow within the interval. An empty list costs one indexed
// read of an empty table.
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
  intervalMs = INTERVAL_MS,
): { stop(): Promise<void> } {
  return repeatEvery({ name: 'payload erasure', intervalMs, logger }, async () => {
    const erased = await erasePendingPayloads(client, segments);
    if (erased > 0) logger.info({ erased }, "deleted events' payloads overwritten");
  });
}
