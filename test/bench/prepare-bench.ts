// npm run bench:prepare — the CPU part of processing an event, without the database: the
// dispatcher's prepareEvents (read the queued record, parse, normalize, in-app rules, group,
// summarize, serialize the payload) over the ingest benchmark's bodies (70/30 mix of ~2 KB and
// ~20 KB Python errors, 100 fingerprints). Prints, per event, the time (minimum and median over
// ROUNDS passes) and the bytes allocated on V8's heap, which is what the garbage collector then
// works off (V8's sampling heap profiler, counting objects already collected; the contents of
// Buffers are outside it). Asserts nothing about the figures; fails if an event is dropped.
import { Session } from 'node:inspector/promises';
import { encodeQueuedItem } from '../../services/core/pipeline/queued-item.ts';
import { prepareEvents } from '../../services/dispatcher/prepare-events.ts';
import { createLogger } from '../../services/runtime/logger.ts';
import { BODIES, percentile } from './load.ts';
import { withEventId } from './payloads.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const BATCH = 200;
const logger = createLogger('silent');

// Queue records as ingest writes them: the header line, then the event item's payload as sent.
const records = BODIES.map((body, i) => {
  const payload = withEventId(body).split('\n')[2]!;
  const header = {
    v: 1,
    kind: 'event',
    id: String(i).padStart(32, '0'),
    projectId: 1,
    organizationId: 1,
    receivedAt: Date.now() / 1000,
  } as const;
  return { topic: 'events.received', offset: String(i), value: encodeQueuedItem({ header, payload: Buffer.from(payload) }) };
});

async function pass(): Promise<void> {
  for (let i = 0; i < records.length; i += BATCH) {
    const { prepared } = await prepareEvents(records.slice(i, i + BATCH), logger);
    if (prepared.length !== Math.min(BATCH, records.length - i)) throw new Error('an event was dropped');
  }
}

async function allocatedBytesPerEvent(): Promise<number> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await pass();
  await pass();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  let bytes = 0;
  const visit = (node: typeof profile.head): void => {
    bytes += node.selfSize;
    node.children.forEach(visit);
  };
  visit(profile.head);
  return bytes / (2 * records.length);
}

for (let i = 0; i < 3; i++) await pass(); // warm up: V8 optimizes the hot functions
const microseconds: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const started = process.hrtime.bigint();
  await pass();
  microseconds.push(Number(process.hrtime.bigint() - started) / 1000 / records.length);
}
const allocated = await allocatedBytesPerEvent();
console.log(`prepare benchmark: ${records.length} events, batches of ${BATCH}, ${ROUNDS} timed passes`);
console.log(
  `prepareEvents per event: minimum ${Math.min(...microseconds).toFixed(1)} µs, median ${percentile(microseconds, 50).toFixed(1)} µs; ` +
    `allocated ${(allocated / 1024).toFixed(1)} KB`,
);
