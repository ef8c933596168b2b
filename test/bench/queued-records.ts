// The benchmark's bodies as the local queue hands them to the dispatcher: what bench:prepare and
// bench:events-insert feed to prepareEvents, so both start from the records ingest writes.
import { encodeQueuedItem, TOPICS } from '../../services/core/pipeline/queued-item.ts';
import { BODIES } from './load.ts';
import { withEventId } from './payloads.ts';

/** One queue record: the header line ingest writes, then `payload` (an event item) as sent. */
export function queueRecord(payload: string, i: number) {
  const header = {
    v: 1,
    kind: 'event',
    id: String(i).padStart(32, '0'),
    projectId: 1,
    organizationId: 1,
    receivedAt: Date.now() / 1000,
  } as const;
  return { topic: TOPICS.events, offset: String(i), value: encodeQueuedItem({ header, payload: Buffer.from(payload) }) };
}

/** The event item of each of the ingest benchmark's 2,000 bodies, each with a fresh event id. */
export function benchmarkRecords(): ReturnType<typeof queueRecord>[] {
  return BODIES.map((body, i) => queueRecord(withEventId(body).split('\n')[2]!, i));
}
