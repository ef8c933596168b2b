// npm run bench:prepare — the CPU part of processing an event, without the database: the
// dispatcher's prepareEvents (read the queued record, parse, normalize, in-app rules, group,
// summarize, serialize the payload, left as JSON: the distributed store's form; the embedded
// store's deflating is bench:events-insert's) over the ingest benchmark's bodies (70/30 mix of ~2
// KB and ~20 KB Python errors, 100 fingerprints). Prints, per event, the time (minimum and median
// over ROUNDS passes) and the bytes allocated on V8's heap, which is what the garbage collector
// then works off (V8's sampling heap profiler, counting objects already collected; the contents of
// Buffers are outside it). Then the time for events built to make grouping's message
// parameterization slow: 25 exceptions without a stack trace (MAX_EXCEPTIONS, the most that
// normalizing keeps), each value two 1,024-character lines (the most that is parameterized) of one
// shape; and native events of 2,000 frames named by 512 "&". Asserts nothing about the figures;
// fails if an event is dropped.
import { randomUUID } from 'node:crypto';
import { Session } from 'node:inspector/promises';
import { prepareEvents } from '../../services/dispatcher/prepare-events.ts';
import { createLogger } from '../../services/runtime/logger.ts';
import { percentile } from './load.ts';
import { benchmarkRecords, queueRecord } from './queued-records.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const BATCH = 200;
const logger = createLogger('silent');

const records = benchmarkRecords();

async function pass(batch = records): Promise<void> {
  for (let i = 0; i < batch.length; i += BATCH) {
    const { prepared } = await prepareEvents(batch.slice(i, i + BATCH), { encodePayload: (json) => json, logger });
    if (prepared.length !== Math.min(BATCH, batch.length - i)) throw new Error('an event was dropped');
  }
}

/** Shapes of line that were slow to parameterize, each repeated to 1,024 characters. */
const HOSTILE_LINES: Record<string, string> = {
  'digits then a letter': `${'1'.repeat(1023)}x`,
  '"a." repeated': 'a.'.repeat(512),
  '"-1" repeated': '-1'.repeat(512),
  '"1-" repeated': '1-'.repeat(512),
  '"a.1" repeated': 'a.1'.repeat(342).slice(0, 1024),
};

function hostileRecords(line: string): ReturnType<typeof queueRecord>[] {
  return Array.from({ length: 20 }, (_, i) => {
    const values = Array.from({ length: 25 }, (_, k) => ({ type: `Hostile${k}`, value: `${line}\n${line}` }));
    return queueRecord(
      JSON.stringify({ event_id: randomUUID().replaceAll('-', ''), platform: 'python', exception: { values } }),
      i,
    );
  });
}

/**
 * Native frames named by 512 `&` (the longest name kept), 8 exceptions of 250 frames: each name's
 * trailing qualifiers were taken off one pattern run at a time, each run reading the whole name.
 */
function hostileNativeRecords(): ReturnType<typeof queueRecord>[] {
  const frames = Array.from({ length: 250 }, (_, line) => ({ function: '&'.repeat(512), lineno: line + 1, in_app: true }));
  const values = Array.from({ length: 8 }, (_, k) => ({ type: `Native${k}`, value: 'x', stacktrace: { frames } }));
  return Array.from({ length: 5 }, (_, i) =>
    queueRecord(JSON.stringify({ event_id: randomUUID().replaceAll('-', ''), platform: 'native', exception: { values } }), i),
  );
}

/** Milliseconds per event: minimum and median over ROUNDS passes. */
async function hostileMilliseconds(batch: ReturnType<typeof queueRecord>[]): Promise<[number, number]> {
  await pass(batch);
  const milliseconds: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = process.hrtime.bigint();
    await pass(batch);
    milliseconds.push(Number(process.hrtime.bigint() - started) / 1e6 / batch.length);
  }
  return [Math.min(...milliseconds), percentile(milliseconds, 50)];
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
for (const [shape, line] of Object.entries(HOSTILE_LINES)) {
  const [minimum, median] = await hostileMilliseconds(hostileRecords(line));
  console.log(`hostile messages, ${shape}: minimum ${minimum.toFixed(2)} ms, median ${median.toFixed(2)} ms per event`);
}
{
  const [minimum, median] = await hostileMilliseconds(hostileNativeRecords());
  console.log(
    `hostile native frames, 2,000 named by 512 "&": minimum ${minimum.toFixed(2)} ms, median ${median.toFixed(2)} ms per event`,
  );
}
