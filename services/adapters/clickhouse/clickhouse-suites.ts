// Tests of the ClickHouse adapters beyond the port contracts (batching, day retention, first
// write wins across merges, literal escaping), written once and run twice: on in-process chdb
// (current ClickHouse, unit suite) and on the Debian 18.16 server (distributed suite).
import { randomBytes, randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../core/logs/log-record.ts';
import type { NewEvent } from '../../core/ports/event-store.ts';
import { createClickHouseTables, tableName } from './clickhouse-schema.ts';
import { identifier, sql, wellFormed } from './clickhouse-sql.ts';
import {
  openClickHouseStoresOn,
  type ClickHouseStores,
  type ClickHouseStoreSettings,
  type ClickHouseWrite,
} from './open-clickhouse.ts';

/** Strings that have broken hand-written escaping somewhere. */
const NASTY_STRINGS: readonly string[] = [
  '',
  "'",
  "''",
  '\\',
  "\\'",
  "'\\",
  "\\\\'",
  "x' OR 1=1 --",
  "'; DROP TABLE events; --",
  '/* not a comment */',
  '-- not a comment',
  'a\u0000b',
  Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('') + '\u007f',
  '\\x41\\0\\n',
  '\\N',
  '`backquoted`',
  '"double"',
  '{name:String}',
  '$$dollar$$',
  'ünïcödé ✓ 😀 ☃',
  'e\u0301 (combining)',
  'עברית RTL',
  '\u2028\u2029 separators',
  '\uffff\ufeff',
  'x'.repeat(10_000),
];

/** Escaped literals read back from the server as exactly the value that went in. */
export function describeClickHouseLiterals(name: string, client: () => Promise<ClickHouseClient>): void {
  describe(`ClickHouse literals: ${name}`, () => {
    const selectOne = async (expression: ReturnType<typeof sql>) => {
      const result = await (await client()).query({ query: sql`SELECT ${expression} AS v`.text, format: 'JSONEachRow' });
      return ((await result.json<{ v: unknown }>())[0] as { v: unknown }).v;
    };

    it.each(NASTY_STRINGS.map((s) => [JSON.stringify(s).slice(0, 40), s]))('string %s', async (_label, value) => {
      expect(await selectOne(sql`${value}`)).toBe(value);
      expect(Number(await selectOne(sql`length(${value})`))).toBe(Buffer.byteLength(value));
    });

    it('replaces an unpaired surrogate, which no UTF-8 text can hold', async () => {
      expect(await selectOne(sql`${'a\ud800b'}`)).toBe('a\ufffdb');
      expect(await selectOne(sql`${'\udc00'}`)).toBe(wellFormed('\udc00'));
    });

    it('keeps an injection attempt inside its string', async () => {
      const result = await (
        await client()
      ).query({ query: sql`SELECT count() AS n FROM system.one WHERE ${"x' OR 1=1 --"} = 'x'`.text, format: 'JSONEachRow' });
      expect(Number((await result.json<{ n: unknown }>())[0]!.n)).toBe(0);
    });

    it('writes numbers, booleans, null and arrays', async () => {
      for (const n of [0, 1, -1, 42, -42, 4_294_967_295, Number.MAX_SAFE_INTEGER, 1_700_000_000]) {
        expect(Number(await selectOne(sql`${n}`))).toBe(n);
      }
      for (const n of [0.5, -0.25, 1_700_000_000.25, 1e-7]) expect(Number(await selectOne(sql`${n}`))).toBe(n);
      expect(Number(await selectOne(sql`5 - ${-1}`))).toBe(6);
      expect(Number(await selectOne(sql`5 -${-1}`))).toBe(6);
      expect(Number(await selectOne(sql`${12345678901234567n}`))).toBe(12345678901234567);
      expect(Number(await selectOne(sql`${true} + ${false}`))).toBe(1);
      expect(Number(await selectOne(sql`isNull(${null})`))).toBe(1);
      expect(await selectOne(sql`${['a', "b'c", '\\']}`)).toEqual(['a', "b'c", '\\']);
      expect(Number(await selectOne(sql`has(${['warn', 'error']}, 'error')`))).toBe(1);
    });

    it('quotes identifiers', async () => {
      const result = await (
        await client()
      ).query({ query: sql`SELECT 1 AS ${identifier('we`ird\\ name')}`.text, format: 'JSONEachRow' });
      expect(Object.keys((await result.json<Record<string, unknown>>())[0]!)).toEqual(['we`ird\\ name']);
    });
  });
}

const DAY = 86_400;

/**
 * `newClient` must return a fresh client on every call: each store set owns and closes its own.
 * Databases are named `<prefix>_<n>` and dropped afterwards.
 */
export function describeClickHouseStores(name: string, newClient: () => ClickHouseClient, prefix: string): void {
  describe(`ClickHouse stores: ${name}`, () => {
    const databases = new Set<string>();
    const open: ClickHouseStores[] = [];
    let n = 0;
    const freshDatabase = () => {
      const database = `${prefix}_${(n += 1)}`;
      databases.add(database);
      return database;
    };
    async function stores(settings: Partial<ClickHouseStoreSettings> = {}): Promise<ClickHouseStores> {
      const opened = await openClickHouseStoresOn(newClient(), { database: settings.database ?? freshDatabase(), ...settings });
      open.push(opened);
      return opened;
    }
    afterAll(async () => {
      await Promise.allSettled(open.map((s) => s.close()));
      const admin = newClient();
      for (const database of databases) await admin.command({ query: sql`DROP DATABASE IF EXISTS ${identifier(database)}`.text });
      await admin.close();
    });

    const project = () => 100_000 + Math.floor(Math.random() * 1_000_000);
    const event = (projectId: number, overrides: Partial<NewEvent> = {}): NewEvent => {
      const eventId = randomUUID().replace(/-/g, '');
      return {
        projectId,
        eventId,
        issueId: 1,
        timestamp: 1_700_000_000.5,
        receivedAt: 1_700_000_001,
        level: 'error',
        title: 'Error: first',
        culprit: 'main',
        platform: 'node',
        environment: null,
        release: null,
        traceId: null,
        userKey: null,
        // ClickHouse keeps a payload's JSON as it is (ClickHouseEventStore.encodePayload).
        encodedPayload: JSON.stringify({ event_id: eventId }),
        ...overrides,
      };
    };
    let counter = 0;
    const log = (projectId: number, overrides: Partial<LogRecord> = {}): LogRecord => ({
      id: `${randomUUID()}:${(counter += 1)}`,
      projectId,
      timestamp: 1_700_000_000 + counter,
      observedAt: 1_700_000_000,
      traceId: null,
      spanId: null,
      level: 'info',
      severityNumber: 9,
      body: `line ${counter}`,
      attributes: {},
      release: null,
      environment: null,
      ...overrides,
    });

    it('creates its schema idempotently, also when several processes start at once', async () => {
      const database = freshDatabase();
      const clients = [newClient(), newClient(), newClient()];
      await Promise.all(clients.map((c) => createClickHouseTables(c, database)));
      await createClickHouseTables(clients[0]!, database);
      await Promise.all(clients.map((c) => c.close()));
      const opened = await stores({ database });
      expect(await opened.events.countEventsForIssue(1, 1)).toBe(0);
      await opened.ping();
    });

    it('coalesces concurrent writes into one INSERT per table, and resolves every caller', async () => {
      const writes: ClickHouseWrite[] = [];
      const s = await stores({ batch: { maxRows: 10_000, maxWaitMs: 100 }, observe: (w) => writes.push(w) });
      const p = project();
      await Promise.all([
        ...Array.from({ length: 20 }, () => s.events.insertEvents(Array.from({ length: 5 }, () => event(p)))),
        ...Array.from({ length: 10 }, () => s.logs.insertLogs(Array.from({ length: 3 }, () => log(p)))),
      ]);
      expect(
        writes.map(({ table, rows, error }) => ({ table, rows, error })).sort((a, b) => a.table.localeCompare(b.table)),
      ).toEqual([
        { table: 'events', rows: 100, error: undefined },
        { table: 'logs', rows: 30, error: undefined },
      ]);
      expect(writes.every((w) => w.seconds >= 0)).toBe(true);
      expect(await s.events.countEventsForIssue(p, 1)).toBe(100);
      expect((await s.logs.searchLogs({ projectId: p, limit: 100 })).items).toHaveLength(30);
    });

    it('caps an INSERT at maxRows, splitting a large call, and sends the rest when the window ends', async () => {
      const writes: number[] = [];
      const s = await stores({ batch: { maxRows: 40, maxWaitMs: 30 }, observe: (w) => writes.push(w.rows) });
      const p = project();
      // A first write starts a window, so the rest below has to wait for its end.
      await s.events.insertEvents([event(p)]);
      writes.length = 0;
      await Promise.all(Array.from({ length: 5 }, () => s.events.insertEvents(Array.from({ length: 25 }, () => event(p)))));
      // Reported as each INSERT finishes, and the three full ones run concurrently with the
      // last: the sizes are fixed, their order of completion is not.
      expect([...writes].sort((a, b) => b - a)).toEqual([40, 40, 40, 5]);
      expect(await s.events.countEventsForIssue(p, 1)).toBe(126);
    });

    it('caps an INSERT at maxBytes of payload too, a row larger alone going alone', async () => {
      const writes: number[] = [];
      const s = await stores({ batch: { maxBytes: 50_000, maxWaitMs: 30 }, observe: (w) => writes.push(w.rows) });
      const p = project();
      const sized = (bytes: number) => {
        const eventId = randomUUID().replace(/-/g, '');
        return event(p, { eventId, encodedPayload: JSON.stringify({ event_id: eventId, message: 'x'.repeat(bytes) }) });
      };
      const large = sized(60_000);
      await s.events.insertEvents([...Array.from({ length: 5 }, () => sized(20_000)), large, sized(100)]);
      // 2 x 20 KB, 2 x 20 KB, then 20 KB (the 60 KB row would pass 50 KB), the 60 KB row alone, the
      // last; reported as each finishes, in no fixed order.
      expect([...writes].sort((a, b) => b - a)).toEqual([2, 2, 1, 1, 1]);
      expect((await s.events.getEvent(p, large.eventId))?.payload).toMatchObject({ message: 'x'.repeat(60_000) });
      expect(await s.events.countEventsForIssue(p, 1)).toBe(7);
    });

    it('rejects every caller of a failed INSERT, and reports the failure', async () => {
      const writes: ClickHouseWrite[] = [];
      // No schema: the INSERT fails on the server.
      const s = await stores({ ensureSchema: false, batch: { maxWaitMs: 20 }, observe: (w) => writes.push(w) });
      const p = project();
      const calls = [1, 2, 3].map(() => s.events.insertEvents([event(p)]));
      const results = await Promise.allSettled(calls);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(writes).toHaveLength(1);
      expect(writes[0]).toMatchObject({ table: 'events', rows: 3 });
      expect(writes[0]!.error).toBeInstanceOf(Error);
      await s.ping();
    });

    it('refuses a row the server would refuse, failing only the call that brought it', async () => {
      const writes: ClickHouseWrite[] = [];
      const s = await stores({ batch: { maxWaitMs: 20 }, observe: (w) => writes.push(w) });
      const p = project();
      const good = event(p);
      const results = await Promise.allSettled([
        s.events.insertEvents([good]),
        s.events.insertEvents([event(-1)]),
        s.events.insertEvents([event(p, { issueId: 1.5 })]),
        s.events.insertEvents([event(p, { timestamp: Number.NaN })]),
        s.logs.insertLogs([log(p, { severityNumber: 300 })]),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected', 'rejected']);
      expect(writes.map((w) => [w.table, w.rows, w.error])).toEqual([['events', 1, undefined]]);
      expect(await s.events.getEvent(p, good.eventId)).toBeDefined();
    });

    it('close() sends the writes still waiting for their batch', async () => {
      const database = freshDatabase();
      const s = await stores({ database, batch: { maxWaitMs: 60_000 } });
      const p = project();
      // A first write goes out at once and starts a window of a minute, which the next waits for.
      await s.events.insertEvents([event(p)]);
      const e = event(p);
      const pending = s.events.insertEvents([e]);
      await s.close();
      await pending;
      await expect(s.events.insertEvents([event(p)])).rejects.toThrow(/closed/);
      const reopened = await stores({ database });
      expect((await reopened.events.getEvent(p, e.eventId))?.eventId).toBe(e.eventId);
    });

    it('keeps the first write of an event id, before and after merges', async () => {
      const database = freshDatabase();
      const s = await stores({ database });
      const p = project();
      const first = event(p, { timestamp: 1_700_000_000.123456 });
      await s.events.insertEvents([first]);
      await s.events.insertEvents([{ ...first, title: 'second' }]);
      await s.events.insertEvents([
        { ...first, title: 'third' },
        { ...first, title: 'fourth' },
      ]);
      const check = async () => {
        expect(await s.events.getEvent(p, first.eventId)).toMatchObject({
          title: 'Error: first',
          timestamp: 1_700_000_000.123456,
        });
        expect((await s.events.latestEventForIssue(p, 1))?.title).toBe('Error: first');
        expect(await s.events.countEventsForIssue(p, 1)).toBe(1);
      };
      await check();
      const client = newClient();
      await client.command({ query: sql`OPTIMIZE TABLE ${tableName(database, 'events')} FINAL`.text });
      const rows = await client.query({
        query: sql`SELECT count() AS n FROM ${tableName(database, 'events')} WHERE project_id = ${p}`.text,
        format: 'JSONEachRow',
      });
      expect(Number((await rows.json<{ n: unknown }>())[0]!.n)).toBe(1);
      await client.close();
      await check();
    });

    it('keeps the first write of a log record, and fills pages although copies are not merged yet', async () => {
      const s = await stores();
      const p = project();
      const records = Array.from({ length: 5 }, () => log(p, { timestamp: 1_750_000_000 }));
      await s.logs.insertLogs(records);
      await s.logs.insertLogs(records.map((r) => ({ ...r, body: 'copy' })));
      await s.logs.insertLogs(records.map((r) => ({ ...r, body: 'another copy' })));
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await s.logs.searchLogs({ projectId: p, limit: 2, cursor });
        pages.push(page.items.map((r) => r.body));
        cursor = page.nextCursor;
      } while (cursor);
      expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
      expect(pages.flat().sort()).toEqual(records.map((r) => r.body).sort());
    });

    it('drops whole UTC days before the cutoff and counts their rows', async () => {
      const s = await stores();
      const p = project();
      const day0 = Math.floor(1_700_000_000 / DAY) * DAY;
      const at = (days: number, hours: number) => day0 + days * DAY + hours * 3_600;
      const events = [at(0, 12), at(1, 0), at(2, 12), at(2, 23.99), at(3, 1), at(3, 12)].map((timestamp) =>
        event(p, { timestamp }),
      );
      await s.events.insertEvents(events);
      const logs = [at(0, 1), at(2, 5), at(3, 1)].map((timestamp) => log(p, { timestamp }));
      await s.logs.insertLogs(logs);
      const cutoff = at(3, 6);
      expect(await s.events.deleteEventsBefore(cutoff)).toBe(4);
      expect(await s.logs.deleteLogsBefore(cutoff)).toBe(2);
      // The cutoff's own day stays whole, even its rows older than the cutoff.
      expect(await s.events.getEvent(p, events[4]!.eventId)).toBeDefined();
      expect(await s.events.getEvent(p, events[3]!.eventId)).toBeUndefined();
      expect(await s.events.countEventsForIssue(p, 1)).toBe(2);
      expect((await s.logs.searchLogs({ projectId: p, limit: 10 })).items.map((r) => r.id)).toEqual([logs[2]!.id]);
      expect(await s.events.deleteEventsBefore(cutoff)).toBe(0);
      expect(await s.logs.deleteLogsBefore(cutoff)).toBe(0);
    });

    it('stores and finds text that needs escaping', async () => {
      const s = await stores();
      const p = project();
      const nasty = NASTY_STRINGS.slice(0, -1);
      const records = nasty.map((body, i) =>
        log(p, {
          body: `${body}|${i}`,
          attributes: { [`k'${i}\\`]: { type: 'string', value: body }, n: { type: 'integer', value: i } },
        }),
      );
      await s.logs.insertLogs(records);
      for (const [i, body] of nasty.entries()) {
        const found = await s.logs.searchLogs({ projectId: p, limit: 50, text: `${body}|${i}` });
        expect(found.items.map((r) => r.id)).toEqual([records[i]!.id]);
        const byAttribute = await s.logs.searchLogs({
          projectId: p,
          limit: 50,
          attributes: { [`k'${i}\\`]: body, n: String(i) },
        });
        expect(byAttribute.items).toEqual([records[i]]);
      }
      const e = event(p, { title: nasty.join(''), encodedPayload: s.events.encodePayload(JSON.stringify({ all: nasty })) });
      await s.events.insertEvents([e]);
      expect(await s.events.getEvent(p, e.eventId)).toMatchObject({ title: e.title, payload: { all: nasty } });
      expect(await s.events.getEvent(p, "' OR 1=1 --")).toBeUndefined();
    });

    it('stores every text column of an event exactly, in one INSERT with its neighbours', async () => {
      const s = await stores();
      const p = project();
      // Pretty-printed JSON has raw tabs and newlines between its tokens: they must not end the row.
      const events = NASTY_STRINGS.map((text, i) =>
        event(p, {
          issueId: i + 1,
          timestamp: 1_700_000_000 + i * 3_599.25,
          title: text,
          culprit: `${text}|culprit`,
          platform: text.slice(0, 30),
          environment: i % 3 === 0 ? null : text,
          release: i % 3 === 1 ? null : `${text}@1`,
          traceId: i % 2 === 0 ? null : text,
          userKey: text,
          encodedPayload: s.events.encodePayload(JSON.stringify({ text, [text]: [i] }, null, i % 2 === 0 ? '\t' : 2)),
        }),
      );
      await s.events.insertEvents(events);
      for (const e of events) {
        const stored = await s.events.getEvent(p, e.eventId);
        expect(stored).toEqual({
          projectId: e.projectId,
          eventId: e.eventId,
          issueId: e.issueId,
          timestamp: e.timestamp,
          receivedAt: e.receivedAt,
          level: e.level,
          title: e.title,
          culprit: e.culprit,
          platform: e.platform,
          environment: e.environment,
          release: e.release,
          traceId: e.traceId,
          userKey: e.userKey,
          payload: { text: e.title, [e.title]: [e.issueId - 1] },
        });
      }
    });

    it('keeps the whole second of the first and the last times a DateTime holds, and times before 1970', async () => {
      const database = freshDatabase();
      const s = await stores({ database });
      const p = project();
      // The DateTime column is what partitions by day and what retention drops; reads use the micros.
      const cases: Array<[number, number]> = [
        [0, 0],
        [9.5, 9],
        [99_999, 99_999],
        [1_700_000_000.25, 1_700_000_000],
        [4_292_000_000, 4_292_000_000],
        [4_294_967_295, 4_294_967_295],
        [-86_400.5, 0],
      ];
      const events = cases.map(([timestamp], i) => event(p, { issueId: i + 1, timestamp }));
      await s.events.insertEvents(events);
      const admin = newClient();
      const result = await admin.query({
        query: sql`SELECT event_id, toUInt32(timestamp) AS seconds FROM ${tableName(database, 'events')}
          WHERE project_id = ${p}`.text,
        format: 'JSONEachRow',
      });
      const stored = new Map(
        (await result.json<{ event_id: string; seconds: number }>()).map((r) => [r.event_id, Number(r.seconds)]),
      );
      await admin.close();
      expect(events.map((e) => stored.get(e.eventId))).toEqual(cases.map(([, seconds]) => seconds));
      for (const e of events) expect((await s.events.getEvent(p, e.eventId))?.timestamp).toBe(e.timestamp);
    });

    it('rejects a cursor it did not make', async () => {
      const s = await stores();
      await expect(s.logs.searchLogs({ projectId: 1, limit: 1, cursor: 'bm90IGEgY3Vyc29y' })).rejects.toThrow(/invalid cursor/);
      const pgStyle = Buffer.from(JSON.stringify(['2024-01-01T00:00:00.000000Z', 'x'])).toString('base64url');
      await expect(s.logs.searchLogs({ projectId: 1, limit: 1, cursor: pgStyle })).rejects.toThrow(/invalid cursor/);
      const fractional = Buffer.from(JSON.stringify([1.5, 'x'])).toString('base64url');
      await expect(s.logs.searchLogs({ projectId: 1, limit: 1, cursor: fractional })).rejects.toThrow(/invalid cursor/);
    });
  });
}

/** A database name no other run uses. */
export function throwawayDatabase(prefix = 'errata_test'): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}
