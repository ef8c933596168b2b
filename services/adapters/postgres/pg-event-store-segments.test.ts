// PgEventStore with its payloads in segment files (the standalone server's form): what the rows
// hold, the sync before the commit, rows written before still read, deletion listing the bytes
// for the writer to zero, reads racing an erasure or a removal, and retention removing a segment
// only once no row can refer to it.
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent as fixtureEvent } from '../../../test/fixtures/new-event.ts';
import { failBlockingWrites, replaceBlockingSyncs } from '../../../test/support/replaced-syncs.ts';
import type { NewEvent } from '../../core/ports/event-store.ts';
import { PGliteClient } from '../pglite/pglite-client.ts';
import { migrate } from './migrate.ts';
import { erasePendingPayloads } from './payload-erasures.ts';
import { PayloadSegments } from './payload-segments.ts';
import { PgEventStore } from './pg-event-store.ts';
import type { QueryOptions, SqlClient } from './sql-client.ts';
import { cutUncommittedPayloads } from './uncommitted-payloads.ts';

const DAY = 86_400;
let dir: string;
let db: PGliteClient;
/** The segments' clock, in seconds: each test moves it to the days it needs. */
let now = Date.parse('2026-11-01T12:00:00Z') / 1000;
let writer: PayloadSegments;
let store: PgEventStore;

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'errata-segments-store-')));
  db = await PGliteClient.open(join(dir, 'db'));
  await migrate(db);
  writer = await PayloadSegments.open(join(dir, 'payloads'), { mode: 'writer', now: () => now * 1000 });
  store = new PgEventStore(db, writer);
});

afterAll(async () => {
  writer.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

function newEvent(through: PgEventStore, project: number, issueId: number, timestamp: number, marker: string): NewEvent {
  const eventId = randomUUID().replaceAll('-', '');
  return fixtureEvent(through, {
    projectId: project,
    eventId,
    issueId,
    timestamp,
    encodedPayload: through.encodePayload(JSON.stringify({ event_id: eventId, marker })),
  });
}

const segmentFile = (name: string) => join(dir, 'payloads', `${name}.seg`);

function parts(reference: string): { segment: string; offset: number; length: number } {
  const { segment, offset, length } = /^@(?<segment>[^:]+):(?<offset>\d+):(?<length>\d+)$/.exec(reference)!.groups!;
  return { segment: segment!, offset: Number(offset), length: Number(length) };
}

/** The bytes a reference points at, read from the file itself. */
function bytesAt(reference: string): Buffer {
  const { segment, offset, length } = parts(reference);
  return readFileSync(segmentFile(segment)).subarray(offset, offset + length);
}

/**
 * A store over the same database and segments whose first read of event rows is raced by
 * `meanwhile`: it runs after the rows come back and before their payloads are read, as a deletion
 * or retention committing on the other thread at that moment would.
 */
function racedStore(meanwhile: () => Promise<void>): PgEventStore {
  let raced = false;
  const client: SqlClient = {
    async query<T>(sql: string, params?: unknown[], options?: QueryOptions) {
      const result = await db.query<T>(sql, params, options);
      if (!raced && sql.includes('payload_deflated') && result.rows.length > 0) {
        raced = true;
        await meanwhile();
      }
      return result;
    },
    transaction: (work) => db.transaction(work),
    close: () => db.close(),
  };
  return new PgEventStore(client, new PayloadSegments(join(dir, 'payloads'), { mode: 'reader' }));
}
const project = () => 1 + Math.floor(Math.random() * 1_000_000);
const listed = async () =>
  (await db.query<{ reference: string }>('SELECT reference FROM payload_erasures')).rows.map((r) => r.reference);

describe('PgEventStore with payload segments', () => {
  it('keeps a reference in the row and the deflated payload in the segment, synced before the commit', async () => {
    const p = project();
    const event = newEvent(store, p, 1, now, 'kept apart');
    expect(event.encodedPayload).toMatch(/^@20261101-0000:\d+:\d+$/);
    const synced: string[] = [];
    const restore = replaceBlockingSyncs((path) => synced.push(path));
    try {
      await store.insertEvents([event]);
    } finally {
      restore();
    }
    const segment = synced.indexOf(segmentFile('20261101-0000'));
    const wal = synced.findIndex((path) => path.startsWith(join(dir, 'db', 'pg_wal')));
    expect(segment).toBeGreaterThanOrEqual(0);
    expect(wal).toBeGreaterThan(segment);

    const row = await db.query<{ payload_deflated: string }>('SELECT payload_deflated FROM events WHERE project_id = $1', [p]);
    expect(row.rows[0]!.payload_deflated).toBe(event.encodedPayload);
    const inFile = inflateRawSync(bytesAt(event.encodedPayload)).toString();
    expect(JSON.parse(inFile)).toEqual({ event_id: event.eventId, marker: 'kept apart' });
    expect((await store.getEvent(p, event.eventId))?.payload).toEqual({ event_id: event.eventId, marker: 'kept apart' });
  });

  it('reads rows that hold their payload, as every row did before, beside rows that refer to segments', async () => {
    const p = project();
    const inline = newEvent(new PgEventStore(db), p, 1, now, 'in the row');
    const apart = newEvent(store, p, 1, now + 1, 'in a segment');
    await store.insertEvents([inline, apart]);
    expect(inline.encodedPayload.startsWith('@')).toBe(false);
    const reader = new PgEventStore(db, new PayloadSegments(join(dir, 'payloads'), { mode: 'reader' }));
    expect((await reader.getEvent(p, inline.eventId))?.payload).toMatchObject({ marker: 'in the row' });
    expect((await reader.latestEventForIssue(p, 1))?.payload).toMatchObject({ marker: 'in a segment' });
    await expect(new PgEventStore(db).getEvent(p, apart.eventId)).rejects.toThrow(/segment file this store was not given/);
  });

  it("lists a deleted issue's payloads for erasure as its rows go, and the writer overwrites them with zeros", async () => {
    const p = project();
    const gone = newEvent(store, p, 41, now, 'SECRET-of-issue-41');
    const kept = newEvent(store, p, 42, now, 'payload of issue 42');
    const inline = newEvent(new PgEventStore(db), p, 41, now, 'inline of issue 41');
    await store.insertEvents([gone, kept, inline]);
    expect(bytesAt(gone.encodedPayload).equals(Buffer.alloc(bytesAt(gone.encodedPayload).length))).toBe(false);

    // The main thread deletes through a reading store; it writes nothing to the files.
    const reader = new PgEventStore(db, new PayloadSegments(join(dir, 'payloads'), { mode: 'reader' }));
    await reader.deleteEventsForIssues(p, [41]);
    expect(await store.getEvent(p, gone.eventId)).toBeUndefined();
    expect(await store.getEvent(p, inline.eventId)).toBeUndefined();
    const owed = await db.query<{ reference: string }>('SELECT reference FROM payload_erasures');
    expect(owed.rows.map((r) => r.reference)).toEqual([gone.encodedPayload]); // the inline row's went with it

    // A restart before the writer got to it: the list is in the database, committed with the deletion.
    await db.close();
    db = await PGliteClient.open(join(dir, 'db'));
    writer.close();
    writer = new PayloadSegments(join(dir, 'payloads'), { mode: 'writer', now: () => now * 1000 });
    store = new PgEventStore(db, writer);
    expect(await erasePendingPayloads(db, writer, { perRound: 1 })).toEqual({ overwritten: 1, gone: 0, failed: [] });
    expect(bytesAt(gone.encodedPayload).equals(Buffer.alloc(bytesAt(gone.encodedPayload).length))).toBe(true);
    expect((await db.query('SELECT reference FROM payload_erasures')).rows).toEqual([]);
    expect((await store.getEvent(p, kept.eventId))?.payload).toMatchObject({ marker: 'payload of issue 42' });
    expect(await erasePendingPayloads(db, writer)).toEqual({ overwritten: 0, gone: 0, failed: [] });
  });

  it('lists for erasure the copy of an event stored before and the payloads the caller did not store, and nothing else', async () => {
    const p = project();
    const first = newEvent(store, p, 48, now, 'the first copy');
    const fresh = Array.from({ length: 60 }, (_, i) => newEvent(store, p, 48, now, `new ${i}`)); // a full statement and a short one
    await store.insertEvents([first, ...fresh]);
    expect(await listed()).toEqual([]); // a batch of new events lists nothing

    // Delivered again (a redelivered batch) in a full statement of 50 (the prepared one) beside 49
    // new events; and a payload made for an event the caller did not store (a second copy in its
    // batch). One given both as unused and as a row's is the row's: kept.
    const again = { ...newEvent(store, p, 48, now, 'the second copy'), eventId: first.eventId };
    const other = newEvent(store, p, 48, now, 'another');
    const more = Array.from({ length: 48 }, (_, i) => newEvent(store, p, 48, now, `more ${i}`));
    const unstored = newEvent(store, p, 48, now, 'never stored');
    await store.insertEvents([again, other, ...more], [unstored.encodedPayload, other.encodedPayload]);
    expect((await listed()).sort()).toEqual([again.encodedPayload, unstored.encodedPayload].sort());
    expect((await store.getEvent(p, first.eventId))?.payload).toMatchObject({ marker: 'the first copy' });
    // The committed end covers the unused copy, made last: a clean stop leaves nothing to cut.
    const record = await db.query<{ committed_end: string }>('SELECT committed_end FROM payload_segments WHERE name = $1', [
      parts(unstored.encodedPayload).segment,
    ]);
    expect(Number(record.rows[0]!.committed_end)).toBe(PayloadSegments.endOf(unstored.encodedPayload));

    expect(await erasePendingPayloads(db, writer)).toEqual({ overwritten: 2, gone: 0, failed: [] });
    expect(bytesAt(again.encodedPayload).every((b) => b === 0)).toBe(true);
    expect(bytesAt(unstored.encodedPayload).every((b) => b === 0)).toBe(true);
    expect((await store.getEvent(p, first.eventId))?.payload).toMatchObject({ marker: 'the first copy' });
    expect((await store.getEvent(p, other.eventId))?.payload).toMatchObject({ marker: 'another' });

    // Only unused payloads: listed all the same, after their bytes reached the disk.
    const alone = newEvent(store, p, 48, now, 'alone');
    await store.insertEvents([], [alone.encodedPayload]);
    expect(await listed()).toEqual([alone.encodedPayload]);
    expect(bytesAt(alone.encodedPayload).length).toBe(parts(alone.encodedPayload).length); // written, not only gathered
    await erasePendingPayloads(db, writer);
  });

  it("lists a failed batch's payloads for erasure in a transaction of their own, but for one a committed row holds", async () => {
    const p = project();
    const committed = newEvent(store, p, 49, now, 'committed before');
    await store.insertEvents([committed]);
    // A transaction that fails at its end, its rows rolled back, as a full disk would fail it.
    let failures = 1;
    const failing = new PgEventStore(
      {
        query: (sql, params, options) => db.query(sql, params, options),
        transaction: (work) =>
          db.transaction(async (tx) => {
            const result = await work(tx);
            if (failures-- > 0) throw new Error('the commit failed');
            return result;
          }),
        close: () => db.close(),
      },
      writer,
    );
    const lost = newEvent(failing, p, 49, now, 'its batch failed');
    const unstored = newEvent(failing, p, 49, now, 'not stored either');
    // `committed` again: its row holds this very reference, as after a commit whose answer was lost.
    await expect(failing.insertEvents([lost, committed], [unstored.encodedPayload])).rejects.toThrow(/the commit failed/);
    expect(await store.getEvent(p, lost.eventId)).toBeUndefined();
    expect((await listed()).sort()).toEqual([lost.encodedPayload, unstored.encodedPayload].sort());

    expect(await erasePendingPayloads(db, writer)).toEqual({ overwritten: 2, gone: 0, failed: [] });
    expect(bytesAt(lost.encodedPayload).every((b) => b === 0)).toBe(true);
    expect(bytesAt(unstored.encodedPayload).every((b) => b === 0)).toBe(true);
    expect((await store.getEvent(p, committed.eventId))?.payload).toMatchObject({ marker: 'committed before' });
  });

  it("cuts off at a start what a batch that never committed left past its segment's committed end", async () => {
    const p = project();
    const day = Date.parse('2026-12-20T12:00:00Z'); // a segment of its own
    const payloads = join(dir, 'crashed-payloads');
    const file = join(payloads, '20261220-0000.seg');
    const before = await PayloadSegments.open(payloads, { mode: 'writer', now: () => day });
    const crashed = new PgEventStore(db, before);
    const deleted = newEvent(crashed, p, 51, day / 1000, 'its issue deleted, its erasure owed');
    const committed = newEvent(crashed, p, 50, day / 1000, 'committed');
    await crashed.insertEvents([deleted, committed]);
    await db.query('INSERT INTO payload_erasures (reference) VALUES ($1)', [deleted.encodedPayload]);
    // Then a version from before committed ends stored a batch, leaving the end where it was.
    const older = newEvent(crashed, p, 50, day / 1000, 'stored by an older version');
    await crashed.insertEvents([older]);
    await db.query('UPDATE payload_segments SET committed_end = $2 WHERE name = $1', [
      '20261220-0000',
      PayloadSegments.endOf(committed.encodedPayload),
    ]);
    const end = PayloadSegments.endOf(older.encodedPayload);
    // The next batch's payloads reached the disk, and the process died before its commit; a
    // failed batch before it had listed its own.
    const orphans = [
      newEvent(crashed, p, 50, day / 1000, 'written, then the crash'),
      newEvent(crashed, p, 50, day / 1000, 'and'),
    ];
    before.sync();
    await db.query('INSERT INTO payload_erasures (reference) VALUES ($1)', [orphans[0]!.encodedPayload]);
    before.close();
    expect(statSync(file).size).toBe(PayloadSegments.endOf(orphans[1]!.encodedPayload));

    const after = await PayloadSegments.open(payloads, { mode: 'writer', now: () => day });
    expect(await cutUncommittedPayloads(db, after)).toEqual({
      cut: [{ segment: '20261220-0000', bytes: PayloadSegments.endOf(orphans[1]!.encodedPayload) - end }],
      grown: [],
      failed: [],
      unerased: [],
    });
    expect(statSync(file).size).toBe(end);
    expect(await listed()).not.toContain(orphans[0]!.encodedPayload); // the next append goes there
    expect(await listed()).toContain(deleted.encodedPayload); // still owed, below the end
    expect(await cutUncommittedPayloads(db, after)).toEqual({ cut: [], grown: [], failed: [], unerased: [] });

    const restarted = new PgEventStore(db, after);
    const next = newEvent(restarted, p, 50, day / 1000, 'after the start');
    expect(parts(next.encodedPayload).offset).toBe(end);
    await restarted.insertEvents([next]);
    for (const [e, marker] of [
      [committed, 'committed'],
      [older, 'stored by an older version'],
      [next, 'after the start'],
    ] as const)
      expect((await restarted.getEvent(p, e.eventId))?.payload).toMatchObject({ marker });
    const record = await db.query<{ committed_end: string }>('SELECT committed_end FROM payload_segments WHERE name = $1', [
      '20261220-0000',
    ]);
    expect(Number(record.rows[0]!.committed_end)).toBe(PayloadSegments.endOf(next.encodedPayload));
    expect(after.erase([deleted.encodedPayload]).overwritten).toBe(1);
    await db.query('DELETE FROM payload_erasures WHERE reference = $1', [deleted.encodedPayload]);
    after.close();
  });

  it('grows at a start a file shorter than what its rows refer to, so that no append lands under a row', async () => {
    // Payload files restored from an older copy than the database: a damaged data directory.
    const p = project();
    const day = Date.parse('2026-12-21T12:00:00Z');
    const payloads = join(dir, 'restored-payloads');
    const files = await PayloadSegments.open(payloads, { mode: 'writer', now: () => day });
    const kept = files.append(Buffer.from('twelve bytes'));
    files.sync();
    files.close();
    // Rows refer up to byte 120, the last of them stored by a version from before committed ends.
    const late = fixtureEvent(store, {
      projectId: p,
      eventId: randomUUID().replaceAll('-', ''),
      issueId: 1,
      timestamp: day / 1000,
      encodedPayload: '@20261221-0000:100:20',
    });
    await store.insertEvents([late]);
    await db.query("UPDATE payload_segments SET committed_end = 100 WHERE name = '20261221-0000'");
    const past = '@20261221-0000:130:20';
    await db.query('INSERT INTO payload_erasures (reference) VALUES ($1), ($2)', [kept, past]);

    const reopened = await PayloadSegments.open(payloads, { mode: 'writer', now: () => day });
    expect(await cutUncommittedPayloads(db, reopened)).toEqual({
      cut: [],
      grown: [{ segment: '20261221-0000', bytes: 108 }],
      failed: [],
      unerased: [],
    });
    expect(reopened.sizeOf('20261221-0000')).toBe(120);
    expect(await listed()).toContain(kept); // within the file: still owed
    expect(await listed()).not.toContain(past); // past its end, where the next append goes
    expect(reopened.append(Buffer.from('next'))).toBe('@20261221-0000:120:4');
    reopened.close();
    await db.query('DELETE FROM payload_erasures WHERE reference = $1', [kept]);
    await db.query('DELETE FROM events WHERE project_id = $1', [p]);
    await db.query("DELETE FROM payload_segments WHERE name = '20261221-0000'");
  });

  it("lists a batch whose payloads could not be written, and a start lets go of erasures reaching past a file's end", async () => {
    const p = project();
    const day = Date.parse('2026-12-22T12:00:00Z'); // a segment of its own
    const payloads = join(dir, 'full-disk-payloads');
    const files = await PayloadSegments.open(payloads, { mode: 'writer', now: () => day });
    const full = new PgEventStore(db, files);
    const lost = newEvent(full, p, 52, day / 1000, 'never written: the disk was full');
    const restore = failBlockingWrites(payloads);
    try {
      await expect(full.insertEvents([lost])).rejects.toThrow(/could not write event payloads/);
    } finally {
      restore();
    }
    expect(await listed()).toContain(lost.encodedPayload);
    files.close();
    // As a write cut short leaves it: the file holds less than the listed payloads reach.
    writeFileSync(join(payloads, '20261222-0000.seg'), 'twelve bytes');
    const straddling = '@20261222-0000:8:8';
    await db.query('INSERT INTO payload_erasures (reference) VALUES ($1)', [straddling]);

    const reopened = await PayloadSegments.open(payloads, { mode: 'writer', now: () => day });
    expect(await cutUncommittedPayloads(db, reopened)).toEqual({ cut: [], grown: [], failed: [], unerased: [] });
    expect(readFileSync(join(payloads, '20261222-0000.seg'))).toEqual(Buffer.alloc(12)); // erased up to its end
    expect((await listed()).filter((r) => r.startsWith('@20261222-0000:'))).toEqual([]);
    expect(reopened.append(Buffer.from('next'))).toBe('@20261222-0000:12:4');
    reopened.close();
  });

  it("deletes an issue's events, and retention's, in parts, each a transaction, with every payload listed and every count gone", async () => {
    const p = project();
    let transactions = 0;
    // The same database, counting the transactions the store begins (the embedded one runs one at a time).
    const counted: SqlClient = {
      query: (sql, params, options) => db.query(sql, params, options),
      transaction: (work) => (transactions++, db.transaction(work)),
      close: () => db.close(),
    };
    const chunked = new PgEventStore(counted, writer, 10);
    const events = Array.from({ length: 25 }, (_, i) => newEvent(store, p, 45, now - 3600 * (i % 3), `part ${i}`));
    await store.insertEvents(events);
    const before = await listed();
    await chunked.deleteEventsForIssues(p, [45]);
    expect(transactions).toBe(3);
    for (const e of events) expect(await store.getEvent(p, e.eventId)).toBeUndefined();
    expect((await listed()).filter((r) => !before.includes(r)).sort()).toEqual(events.map((e) => e.encodedPayload).sort());
    const hours = await db.query('SELECT 1 FROM issue_event_hours WHERE project_id = $1', [p]);
    expect(hours.rows).toEqual([]);
    await db.query('DELETE FROM payload_erasures');

    // Retention: 25 rows older than the cutoff, in three parts as well; a newer one stays.
    const old = Array.from({ length: 25 }, (_, i) => newEvent(store, p, 46, now - 10 * DAY - i, `old ${i}`));
    const recent = newEvent(store, p, 46, now, 'recent');
    await store.insertEvents([...old, recent]);
    await db.query('DELETE FROM events WHERE timestamp < to_timestamp($1::float8) AND project_id <> $2', [now - 5 * DAY, p]);
    transactions = 0;
    expect(await chunked.deleteEventsBefore(now - 5 * DAY)).toBe(25);
    expect(transactions).toBeGreaterThanOrEqual(3);
    expect((await store.getEvent(p, recent.eventId))?.payload).toMatchObject({ marker: 'recent' });
    expect(await store.countEventsForIssue(p, 46)).toBe(1);
  });

  it('works the erasure list off in rounds, and skips a segment retention removed meanwhile', async () => {
    const p = project();
    const events = [0, 1, 2, 3, 4].map((i) => newEvent(store, p, 43, now + i, `round ${i}`));
    await store.insertEvents(events);
    await db.query('INSERT INTO payload_erasures (reference) VALUES ($1)', ['@20000101-0000:0:10']);
    await store.deleteEventsForIssues(p, [43]);
    expect(await erasePendingPayloads(db, writer, { perRound: 2 })).toEqual({ overwritten: 5, gone: 1, failed: [] });
    for (const e of events) expect(bytesAt(e.encodedPayload).every((b) => b === 0)).toBe(true);
    expect((await db.query('SELECT reference FROM payload_erasures')).rows).toEqual([]);
  });

  it("passes over a segment it cannot write, erasing the rest, and keeps that segment's payloads owed", async () => {
    const p = project();
    const events = [0, 1, 2].map((i) => newEvent(store, p, 44, now + i, `owed ${i}`));
    await store.insertEvents(events);
    // On the list too, in a segment whose file cannot be opened to write (a directory stands
    // there); one a round, so whichever the list gives first, the others wait behind it.
    const stuck = '@20000102-0000:0:10';
    mkdirSync(segmentFile('20000102-0000'));
    try {
      await db.query('INSERT INTO payload_erasures (reference) VALUES ($1)', [stuck]);
      await store.deleteEventsForIssues(p, [44]);

      const progress = await erasePendingPayloads(db, writer, { perRound: 1 });
      expect(progress).toEqual({
        overwritten: 3,
        gone: 0,
        failed: [{ segment: '20000102-0000', payloads: 1, error: expect.objectContaining({ code: 'EISDIR' }) }],
      });
      for (const e of events) expect(bytesAt(e.encodedPayload).every((b) => b === 0)).toBe(true);
      expect((await db.query('SELECT reference FROM payload_erasures')).rows).toEqual([{ reference: stuck }]);
    } finally {
      // The tests after this one share the directory: a directory left here would fail their retention.
      rmSync(segmentFile('20000102-0000'), { recursive: true });
    }

    // Tried again at the next run: once the file is gone (retention), its payload is off the list.
    expect(await erasePendingPayloads(db, writer)).toEqual({ overwritten: 0, gone: 1, failed: [] });
    expect((await db.query('SELECT reference FROM payload_erasures')).rows).toEqual([]);
  });

  it('finds nothing, rather than failing, for a row whose payload went while the read was under way', async () => {
    const p = project();
    const trace = 'a'.repeat(32);
    /** Two events of one issue, one user and one trace each; `gone` is deleted under the read. */
    async function pair(issueId: number) {
      const gone = { ...newEvent(store, p, issueId, now, 'gone under the read'), userKey: 'u1', traceId: trace };
      const kept = { ...newEvent(store, p, issueId, now - 1, 'still there'), userKey: 'u2', traceId: trace };
      await store.insertEvents([gone, kept]);
      const deleteRow = () => db.query('DELETE FROM events WHERE project_id = $1 AND event_id = $2', [p, gone.eventId]);
      return { gone, kept, deleteRow };
    }

    const erased = await pair(44);
    const read = racedStore(async () => {
      await erased.deleteRow();
      writer.erase([erased.gone.encodedPayload]);
    });
    expect(await read.getEvent(p, erased.gone.eventId)).toBeUndefined();

    const inTrace = await pair(45);
    const traceRead = racedStore(async () => {
      await inTrace.deleteRow();
      writer.erase([inTrace.gone.encodedPayload]);
    });
    expect((await traceRead.eventsForTrace([p], trace, 10)).map((e) => e.eventId)).toContain(inTrace.kept.eventId);
    expect((await store.eventsForTrace([p], trace, 10)).map((e) => e.eventId)).not.toContain(inTrace.gone.eventId);

    // Half overwritten when read: the bytes no longer inflate.
    const torn = await pair(46);
    const tornRead = racedStore(async () => {
      await torn.deleteRow();
      const { segment, offset, length } = parts(torn.gone.encodedPayload);
      const fd = openSync(segmentFile(segment), 'r+');
      writeSync(fd, Buffer.alloc(Math.ceil(length / 2)), 0, Math.ceil(length / 2), offset);
      closeSync(fd);
    });
    expect((await tornRead.latestEventPerUser(p, 46, 10)).map((e) => e.eventId)).toEqual([torn.kept.eventId]);

    // Retention: the rows go, then their segment, older than yesterday.
    now = Date.parse('2026-11-05T12:00:00Z') / 1000;
    writer.append(Buffer.from('today')); // 20261101-0000 is no longer the one appended to
    writer.sync();
    const retentionRead = racedStore(async () => {
      await db.query('DELETE FROM events WHERE project_id = $1', [p]);
      expect(writer.remove(['20261101-0000'])).toEqual({ gone: ['20261101-0000'], failed: [] });
    });
    expect(await retentionRead.latestEventForIssue(p, 44)).toBeUndefined();
  });

  it('says so when a payload is missing while its row remains: the data directory lost it', async () => {
    const p = project();
    const event = newEvent(store, p, 47, now, 'lost');
    await store.insertEvents([event]);
    writer.erase([event.encodedPayload]);
    await expect(store.getEvent(p, event.eventId)).rejects.toThrow(/is missing from .* while its row remains/);
  });

  it('removes a segment once its newest event is past the cutoff, keeps one a newer row refers to, and removes untracked old ones', async () => {
    now = Date.parse('2026-11-10T12:00:00Z') / 1000;
    const p = project();
    const old = newEvent(store, p, 1, now - 3 * DAY, 'old');
    const older = newEvent(store, p, 1, now - 4 * DAY, 'older');
    await store.insertEvents([old, older]); // segment 20261110, newest event 11-07
    newEvent(store, p, 1, now, 'prepared, never stored'); // bytes no row refers to
    now += DAY;
    const held = newEvent(store, p, 2, now + 60, 'held by a late timestamp');
    await store.insertEvents([held]); // segment 20261111, newest event 11-11
    now += DAY;
    writer.append(Buffer.from('orphan')); // 20261112, never referred to
    expect(writer.list()).toEqual(expect.arrayContaining(['20261110-0000', '20261111-0000', '20261112-0000']));

    // 11-15: the cutoff (11-08) is past 20261110's newest event (11-07): its rows go, then the file.
    now = Date.parse('2026-11-15T12:00:00Z') / 1000;
    writer.append(Buffer.from('today')); // 20261112 is no longer the one appended to
    writer.sync();
    // An erasure still owed in the segment that goes, one in the segment that stays, and one in
    // the segment no row refers to (an unused payload's), which goes too.
    await db.query('INSERT INTO payload_erasures (reference) VALUES ($1), ($2), ($3)', [
      '@20261110-0000:0:1',
      '@20261111-0000:0:1',
      '@20261112-0000:0:1',
    ]);
    expect(await store.deleteEventsBefore(Date.parse('2026-11-08T00:00:00Z') / 1000)).toBeGreaterThanOrEqual(2);
    const owed = await db.query<{ reference: string }>('SELECT reference FROM payload_erasures');
    expect(owed.rows.map((r) => r.reference)).toEqual(['@20261111-0000:0:1']);
    await db.query('DELETE FROM payload_erasures');
    expect(writer.list()).not.toContain('20261110-0000');
    expect(writer.list()).toContain('20261111-0000'); // its event is newer than the cutoff
    expect(writer.list()).not.toContain('20261112-0000'); // never referred to, and older than yesterday
    const records = await db.query<{ name: string }>('SELECT name FROM payload_segments ORDER BY name');
    expect(records.rows.map((r) => r.name)).not.toContain('20261110-0000');
    expect(records.rows.map((r) => r.name)).toContain('20261111-0000');
    expect((await store.getEvent(p, held.eventId))?.payload).toMatchObject({ marker: 'held by a late timestamp' });
  });

  it("keeps today's and yesterday's segments even when every row in them is past the cutoff", async () => {
    now = Date.parse('2026-11-20T12:00:00Z') / 1000;
    const p = project();
    await store.insertEvents([newEvent(store, p, 1, now - 20 * DAY, 'an old timestamp, received today')]);
    expect(await store.deleteEventsBefore(now - 10 * DAY)).toBeGreaterThanOrEqual(1);
    expect(writer.list()).toContain('20261120-0000');
    const records = await db.query<{ name: string }>('SELECT name FROM payload_segments');
    expect(records.rows.map((r) => r.name)).toContain('20261120-0000'); // still to be removed later
  });

  it('removes the other segments past retention when one cannot be removed, and names the one that stays', async () => {
    const p = project();
    now = Date.parse('2026-11-21T12:00:00Z') / 1000;
    await store.insertEvents([newEvent(store, p, 1, now, 'in a file that cannot be removed')]);
    now += DAY;
    await store.insertEvents([newEvent(store, p, 1, now, 'in a file that can')]);
    now = Date.parse('2026-11-25T12:00:00Z') / 1000;
    writer.append(Buffer.from('today')); // 20261122 is no longer the one appended to
    writer.sync();
    // A directory in the file's place: unlinking it fails (EISDIR), as a lasting error would.
    rmSync(segmentFile('20261121-0000'));
    mkdirSync(segmentFile('20261121-0000'));
    const names = async () => (await db.query<{ name: string }>('SELECT name FROM payload_segments')).rows.map((r) => r.name);

    await expect(store.deleteEventsBefore(now - 60)).rejects.toThrow(
      /could not remove 1 event payload segment file\(s\) past retention: segment 20261121-0000 \(EISDIR.*the next run removes them/,
    );
    expect(writer.list()).not.toContain('20261122-0000');
    expect(await names()).not.toContain('20261122-0000');
    expect(await names()).toContain('20261121-0000');

    rmSync(segmentFile('20261121-0000'), { recursive: true });
    await store.deleteEventsBefore(now - 60);
    expect(await names()).not.toContain('20261121-0000');
  });
});
