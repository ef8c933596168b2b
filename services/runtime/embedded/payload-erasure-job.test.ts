// The backend thread's erasure job: at start it overwrites what a deletion before a crash left on
// the list, and afterwards what each new deletion adds, within its interval; its log names how
// many payloads it overwrote, and warns of a segment it could not write, erasing the others;
// stopping does not wait for a long list.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../../test/fixtures/new-event.ts';
import { eventually } from '../../../test/support/standalone-server.ts';
import { PGliteClient } from '../../adapters/pglite/pglite-client.ts';
import { migrate } from '../../adapters/postgres/migrate.ts';
import { PayloadSegments } from '../../adapters/postgres/payload-segments.ts';
import { PgEventStore } from '../../adapters/postgres/pg-event-store.ts';
import { createLogger } from '../logger.ts';
import { startPayloadErasureJob } from './payload-erasure-job.ts';

const dir = mkdtempSync(join(tmpdir(), 'errata-erasure-job-'));
let db: PGliteClient;
let writer: PayloadSegments;
let store: PgEventStore;

beforeAll(async () => {
  db = await PGliteClient.open(join(dir, 'db'));
  await migrate(db);
  writer = await PayloadSegments.open(join(dir, 'payloads'), { mode: 'writer' });
  store = new PgEventStore(db, writer);
});

afterAll(async () => {
  writer.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function storeEvent(issueId: number): Promise<string> {
  const eventId = randomUUID().replaceAll('-', '');
  const event = newEvent(store, {
    projectId: 1,
    eventId,
    issueId,
    timestamp: Date.now() / 1000,
    encodedPayload: store.encodePayload(JSON.stringify({ event_id: eventId, secret: `of issue ${issueId}` })),
  });
  await store.insertEvents([event]);
  return event.encodedPayload;
}

function isZeroed(reference: string): boolean {
  const [, segment, offset, length] = /^@([^:]+):(\d+):(\d+)$/.exec(reference)!;
  const bytes = readFileSync(join(dir, 'payloads', `${segment}.seg`)).subarray(Number(offset), Number(offset) + Number(length));
  return bytes.every((b) => b === 0);
}

describe('startPayloadErasureJob', () => {
  it('erases what was owed before it started at once, then what each deletion adds', async () => {
    const owed = await storeEvent(1);
    const later = await storeEvent(2);
    const kept = await storeEvent(3);
    await store.deleteEventsForIssues(1, [1]); // as before a crash: listed, not yet overwritten
    expect(isZeroed(owed)).toBe(false);

    const log = new PassThrough();
    const lines: string[] = [];
    log.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n')));
    const job = startPayloadErasureJob(db, writer, createLogger('info', log), { intervalMs: 50 });
    try {
      await eventually(async () => isZeroed(owed) || undefined, 'the owed payload erased', 5_000);
      expect(isZeroed(later)).toBe(false);
      await store.deleteEventsForIssues(1, [2]);
      await eventually(async () => isZeroed(later) || undefined, 'the deleted payload erased', 5_000);
    } finally {
      await job.stop();
    }
    expect(isZeroed(kept)).toBe(false);
    const logged = lines.map((line) => JSON.parse(line) as { overwritten?: number; gone?: number });
    expect(logged.map(({ overwritten, gone }) => ({ overwritten, gone }))).toEqual([
      { overwritten: 1, gone: 0 },
      { overwritten: 1, gone: 0 },
    ]);
  });

  it('warns of a segment file it cannot write, names it, and erases the others meanwhile', async () => {
    const stuck = '@20000103-0000:0:10';
    mkdirSync(join(dir, 'payloads', '20000103-0000.seg'));
    await db.query('INSERT INTO payload_erasures (reference) VALUES ($1)', [stuck]);
    const owed = await storeEvent(20);
    await store.deleteEventsForIssues(1, [20]);

    const log = new PassThrough();
    const lines: string[] = [];
    log.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n')));
    const job = startPayloadErasureJob(db, writer, createLogger('info', log), { intervalMs: 60_000, perRound: 1 });
    const warning = () => lines.map((line) => JSON.parse(line)).find((entry) => entry.level === 'warn');
    try {
      await eventually(async () => warning(), 'a warning', 5_000);
    } finally {
      await job.stop();
      rmSync(join(dir, 'payloads', '20000103-0000.seg'), { recursive: true });
      await db.query('DELETE FROM payload_erasures WHERE reference = $1', [stuck]);
    }
    expect(isZeroed(owed)).toBe(true);
    expect(warning()).toMatchObject({
      segment: '20000103-0000',
      payloads: 1,
      err: expect.objectContaining({ code: 'EISDIR' }),
      msg: expect.stringMatching(/could not be opened or written .* stay owed/),
    });
  });

  it('stops between rounds rather than after the whole list, which stays owed', async () => {
    const owed: string[] = [];
    for (let i = 0; i < 20; i++) owed.push(await storeEvent(10));
    await store.deleteEventsForIssues(1, [10]);
    const job = startPayloadErasureJob(db, writer, createLogger('silent'), { perRound: 1 });
    await job.stop();
    const left = await db.query('SELECT reference FROM payload_erasures');
    expect(left.rows.length).toBeGreaterThan(0);
    expect(owed.filter(isZeroed).length).toBe(owed.length - left.rows.length);
  });
});
