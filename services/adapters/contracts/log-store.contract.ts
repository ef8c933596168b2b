// The LogStore contract, run against every adapter on the real database.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../core/logs/log-record.ts';
import type { AttributeComparison, LogStore } from '../../core/ports/log-store.ts';

/** The last time a JS Date holds, in seconds (Date.parse('+275760-09-13T00:00:00Z') / 1000). */
const DATE_LIMIT_SECONDS = 8.64e12;

export function describeLogStoreContract(name: string, open: () => Promise<LogStore>): void {
  describe(`LogStore contract: ${name}`, () => {
    let store: LogStore;
    beforeAll(async () => {
      store = await open();
    });

    /** logVolume's counts; these tests count few records, never enough for a store to bound. */
    const counts = async (...args: Parameters<LogStore['logVolume']>) => (await store.logVolume(...args)).counts;

    const projectId = () => 100_000 + Math.floor(Math.random() * 1_000_000);
    let counter = 0;
    function record(project: number, overrides: Partial<LogRecord> = {}): LogRecord {
      counter += 1;
      return {
        id: `${randomUUID()}:${counter}`,
        projectId: project,
        timestamp: 1_700_000_000 + counter,
        observedAt: 1_700_000_500,
        traceId: null,
        spanId: null,
        level: 'info',
        severityNumber: 9,
        body: `log line ${counter}`,
        attributes: {},
        release: null,
        environment: null,
        ...overrides,
      };
    }

    it('stores records and returns them newest first, unchanged', async () => {
      const project = projectId();
      const records = [
        record(project, { attributes: { 'user.id': { type: 'string', value: 'u1' }, count: { type: 'integer', value: 3 } } }),
        record(project, { traceId: 'b'.repeat(32), spanId: 'c'.repeat(16), release: '2.0', environment: 'prod' }),
      ];
      await store.insertLogs(records);
      const page = await store.searchLogs({ projectId: project, limit: 10 });
      expect(page.items).toEqual([records[1], records[0]]);
    });

    it('ignores a second insert of the same record id', async () => {
      const project = projectId();
      const one = record(project);
      await store.insertLogs([one]);
      await store.insertLogs([{ ...one, body: 'changed' }]);
      const page = await store.searchLogs({ projectId: project, limit: 10 });
      expect(page.items.map((r) => r.body)).toEqual([one.body]);
    });

    it('filters by level, text, trace id, attributes and time window', async () => {
      const project = projectId();
      const trace = 'd'.repeat(32);
      const [warn, error, traced, attributed] = [
        record(project, { level: 'warn', body: 'Disk almost FULL (95%)' }),
        record(project, { level: 'error', body: 'payment failed' }),
        record(project, { traceId: trace, body: 'in trace' }),
        record(project, {
          body: 'with attributes',
          attributes: {
            'user.id': { type: 'string', value: '42' },
            retries: { type: 'integer', value: 3 },
            cached: { type: 'boolean', value: false },
          },
        }),
      ];
      await store.insertLogs([warn!, error!, traced!, attributed!]);
      const search = async (query: Partial<Parameters<LogStore['searchLogs']>[0]>) =>
        (await store.searchLogs({ projectId: project, limit: 10, ...query })).items.map((r) => r.body);
      expect(await search({ levels: ['warn', 'error'] })).toEqual(['payment failed', 'Disk almost FULL (95%)']);
      expect(await search({ text: 'full (95%' })).toEqual(['Disk almost FULL (95%)']);
      expect(await search({ text: '_' })).toEqual([]);
      expect(await search({ traceId: trace.toUpperCase() })).toEqual(['in trace']);
      expect(await search({ attributes: { 'user.id': '42' } })).toEqual(['with attributes']);
      expect(await search({ attributes: { retries: '3', cached: 'false' } })).toEqual(['with attributes']);
      expect(await search({ attributes: { retries: '4' } })).toEqual([]);
      expect(await search({ since: traced!.timestamp })).toEqual(['with attributes', 'in trace']);
      expect(await search({ until: warn!.timestamp })).toEqual(['Disk almost FULL (95%)']);
      expect(await search({ projectId: project + 1 })).toEqual([]);
      // Another project's records of the trace, with ours, in one search; a third project's not.
      const other = projectId();
      await store.insertLogs([
        record(other, { traceId: trace, body: 'other project in trace' }),
        record(other + 1, { traceId: trace, body: 'third project in trace' }),
      ]);
      expect(await search({ traceId: trace, moreProjectIds: [other] })).toEqual(['other project in trace', 'in trace']);
    });

    it('answers a window reaching to the first and last times a date holds', async () => {
      // `from` and `to` are any dates Date.parse reads; in microseconds those pass 2^53.
      const project = projectId();
      const one = record(project);
      await store.insertLogs([one]);
      const window = { projectId: project, since: -DATE_LIMIT_SECONDS, until: DATE_LIMIT_SECONDS };
      expect((await store.searchLogs({ ...window, limit: 10 })).items.map((r) => r.body)).toEqual([one.body]);
      expect(await counts(window, 2 * DATE_LIMIT_SECONDS)).toEqual([{ start: -DATE_LIMIT_SECONDS, level: 'info', count: 1 }]);
      // Buckets of a day: the record's is the one its day falls in, counted from the window's start.
      const day = Math.floor((one.timestamp + DATE_LIMIT_SECONDS) / 86_400);
      expect(await counts(window, 86_400)).toEqual([{ start: -DATE_LIMIT_SECONDS + day * 86_400, level: 'info', count: 1 }]);
    });

    it('compares attributes that read as numbers with >, <, >= and <=', async () => {
      const project = projectId();
      await store.insertLogs([
        record(project, { body: 'fast', attributes: { ms: { type: 'integer', value: 40 } } }),
        record(project, { body: 'slow', attributes: { ms: { type: 'double', value: 250.5 } } }),
        record(project, { body: 'as text', attributes: { ms: { type: 'string', value: '300' } } }),
        record(project, { body: 'not a number', attributes: { ms: { type: 'string', value: 'many' } } }),
        record(project, { body: 'a flag', attributes: { ms: { type: 'boolean', value: true } } }),
        record(project, { body: 'negative', attributes: { ms: { type: 'integer', value: -5 } } }),
        record(project, { body: 'none' }),
      ]);
      const search = async (comparisons: AttributeComparison[], attributes?: Record<string, string>) =>
        (await store.searchLogs({ projectId: project, limit: 10, comparisons, ...(attributes ? { attributes } : {}) })).items
          .map((r) => r.body)
          .sort();
      expect(await search([{ key: 'ms', operator: '>', value: 100 }])).toEqual(['as text', 'slow']);
      expect(await search([{ key: 'ms', operator: '<', value: 100 }])).toEqual(['fast', 'negative']);
      expect(await search([{ key: 'ms', operator: '>=', value: 250.5 }])).toEqual(['as text', 'slow']);
      expect(await search([{ key: 'ms', operator: '<=', value: 40 }])).toEqual(['fast', 'negative']);
      expect(
        await search([
          { key: 'ms', operator: '>', value: 0 },
          { key: 'ms', operator: '<', value: 260 },
        ]),
      ).toEqual(['fast', 'slow']);
      expect(await search([{ key: 'other', operator: '>', value: -1000 }])).toEqual([]);
      expect(await search([{ key: 'ms', operator: '>', value: 0 }], { ms: '40' })).toEqual(['fast']);
    });

    it('compares past a stored number beyond the range of a double', async () => {
      const project = projectId();
      await store.insertLogs([
        record(project, { body: 'huge', attributes: { ms: { type: 'string', value: '1e999' } } }),
        record(project, { body: 'fast', attributes: { ms: { type: 'integer', value: 40 } } }),
      ]);
      const search = async (comparisons: AttributeComparison[]) =>
        (await store.searchLogs({ projectId: project, limit: 10, comparisons })).items.map((r) => r.body).sort();
      expect(await search([{ key: 'ms', operator: '<', value: 100 }])).toEqual(['fast']);
      expect(await search([{ key: 'ms', operator: '>', value: 100 }])).toEqual(['huge']);
    });

    it('counts matching records per level in each time bucket, oldest first', async () => {
      const project = projectId();
      const at = 1_765_000_000;
      await store.insertLogs([
        record(project, { timestamp: at + 1, level: 'info', body: 'a' }),
        record(project, { timestamp: at + 2.5, level: 'info', body: 'b' }),
        record(project, { timestamp: at + 3, level: 'error', body: 'c' }),
        record(project, { timestamp: at + 125, level: 'info', body: 'd' }),
        record(project, { timestamp: at + 130, level: 'warn', body: 'e', attributes: { ms: { type: 'integer', value: 9 } } }),
        record(project, { timestamp: at + 400, level: 'info', body: 'outside' }),
        record(project, { timestamp: at - 1, level: 'info', body: 'before' }),
      ]);
      const window = { projectId: project, since: at, until: at + 180 };
      expect(await counts(window, 60)).toEqual([
        { start: at, level: 'error', count: 1 },
        { start: at, level: 'info', count: 2 },
        { start: at + 120, level: 'info', count: 1 },
        { start: at + 120, level: 'warn', count: 1 },
      ]);
      expect(await counts({ ...window, levels: ['info'], text: 'B' }, 60)).toEqual([{ start: at, level: 'info', count: 1 }]);
      expect(await counts({ ...window, comparisons: [{ key: 'ms', operator: '>', value: 1 }] }, 60)).toEqual([
        { start: at + 120, level: 'warn', count: 1 },
      ]);
      expect(await counts({ ...window, projectId: project + 1 }, 60)).toEqual([]);
    });

    it('counts a record at a window end that falls on a minute, as searching finds it', async () => {
      const project = projectId();
      const at = 1_765_000_020; // a minute's start
      await store.insertLogs([record(project, { timestamp: at }), record(project, { timestamp: at + 60 })]);
      const window = { projectId: project, since: at, until: at + 60, levels: ['info' as const] };
      expect((await store.searchLogs({ ...window, limit: 10 })).items).toHaveLength(2);
      expect(await counts(window, 60)).toEqual([
        { start: at, level: 'info', count: 1 },
        { start: at + 60, level: 'info', count: 1 },
      ]);
    });

    it('counts whole-minute buckets from a minute, by level and environment, each record once', async () => {
      // A window from a minute's start in buckets of whole minutes: what the Logs page asks for.
      const project = projectId();
      const at = 1_765_000_020; // a minute's start
      const twice = record(project, { timestamp: at + 61, level: 'warn', environment: 'production' });
      await store.insertLogs([
        record(project, { timestamp: at, level: 'info', environment: 'production' }),
        record(project, { timestamp: at + 59.9, level: 'info', environment: 'staging' }),
        twice,
        record(project, { timestamp: at + 150, level: 'info' }),
        record(project, { timestamp: at + 185, level: 'error', environment: 'production' }),
        record(project, { timestamp: at + 200, level: 'error', environment: 'production' }),
        record(project, { timestamp: at - 0.5, level: 'info', body: 'before' }),
      ]);
      await store.insertLogs([twice]);
      // Until falls inside the fourth minute: the record at +185 is in, the one at +200 is not.
      const window = { projectId: project, since: at, until: at + 190 };
      expect(await counts(window, 120)).toEqual([
        { start: at, level: 'info', count: 2 },
        { start: at, level: 'warn', count: 1 },
        { start: at + 120, level: 'error', count: 1 },
        { start: at + 120, level: 'info', count: 1 },
      ]);
      expect(await counts({ ...window, environment: 'production' }, 60)).toEqual([
        { start: at, level: 'info', count: 1 },
        { start: at + 60, level: 'warn', count: 1 },
        { start: at + 180, level: 'error', count: 1 },
      ]);
      expect(await counts({ ...window, levels: ['error', 'warn'] }, 60)).toEqual([
        { start: at + 60, level: 'warn', count: 1 },
        { start: at + 180, level: 'error', count: 1 },
      ]);
      expect(await counts({ ...window, projectId: project + 1 }, 60)).toEqual([]);
      // Another project's search with ours among its projects counts ours too (before, the
      // per-minute counts read its first project's alone).
      expect(await counts({ ...window, projectId: projectId(), moreProjectIds: [project] }, 120)).toEqual(
        await counts(window, 120),
      );
    });

    it('counts after a retention delete only the records a search still finds', async () => {
      // 1996: no other test writes there. The cutoff falls inside a minute that has records on both sides.
      const project = projectId();
      const minute = Date.UTC(1996, 0, 10, 12, 0) / 1000;
      await store.insertLogs([
        record(project, { timestamp: minute - 86_400 * 3 }),
        record(project, { timestamp: minute + 10 }),
        record(project, { timestamp: minute + 40, level: 'error' }),
        record(project, { timestamp: minute + 70 }),
      ]);
      await store.deleteLogsBefore(minute + 30);
      const window = { projectId: project, since: minute - 86_400 * 4, until: minute + 120 };
      const found = (await store.searchLogs({ ...window, limit: 10 })).items;
      const volume = await counts(window, 86_400 * 5);
      const counted = Object.fromEntries(volume.map((v) => [v.level, v.count]));
      const searched = Object.fromEntries(
        ['error', 'info'].map((level) => [level, found.filter((r) => r.level === level).length]),
      );
      expect(counted).toEqual(searched);
      expect(counted.error).toBe(1);
    });

    it('matches wildcards literally and never matches a missing attribute', async () => {
      const project = projectId();
      await store.insertLogs([
        record(project, { body: '100% done', attributes: { empty: { type: 'string', value: '' } } }),
        record(project, { body: 'nothing special' }),
      ]);
      const search = async (query: Partial<Parameters<LogStore['searchLogs']>[0]>) =>
        (await store.searchLogs({ projectId: project, limit: 10, ...query })).items.map((r) => r.body);
      expect(await search({ text: '%' })).toEqual(['100% done']);
      expect(await search({ text: '0% D' })).toEqual(['100% done']);
      expect(await search({ attributes: { empty: '' } })).toEqual(['100% done']);
      expect(await search({ attributes: { missing: '' } })).toEqual([]);
    });

    it('searches with a NUL or a lone surrogate as ingest stores them, as U+FFFD', async () => {
      const project = projectId();
      await store.insertLogs([
        record(project, { body: 'odd \ufffd byte', attributes: { 'k\ufffd': { type: 'string', value: 'v\ufffd' } } }),
        record(project, { body: 'plain' }),
      ]);
      const search = async (query: Partial<Parameters<LogStore['searchLogs']>[0]>) =>
        (await store.searchLogs({ projectId: project, limit: 10, ...query })).items.map((r) => r.body);
      expect(await search({ text: '\u0000' })).toEqual(['odd \ufffd byte']);
      expect(await search({ text: 'ODD \ud800' })).toEqual(['odd \ufffd byte']);
      expect(await search({ attributes: { 'k\u0000': 'v\udc00' } })).toEqual(['odd \ufffd byte']);
      expect(await search({ attributes: { 'k\u0000': 'v\u0000x' } })).toEqual([]);
    });

    it('deletes records from well before the cutoff and keeps later ones', async () => {
      // 1990 and 1995: no other test writes there. A store may delete in whole days.
      const project = projectId();
      const old = record(project, { timestamp: Date.UTC(1990, 0, 10) / 1000 });
      const kept = record(project, { timestamp: Date.UTC(1995, 0, 10) / 1000 });
      await store.insertLogs([old, kept]);
      expect(await store.deleteLogsBefore(Date.UTC(1995, 0, 1) / 1000)).toBe(1);
      expect((await store.searchLogs({ projectId: project, limit: 10 })).items).toEqual([kept]);
    });

    it("deletes a project's records and their counts, and only those, however often asked", async () => {
      const [project, other] = [projectId(), projectId()];
      const at = 1_765_100_000;
      const doomed = Array.from({ length: 3 }, (_, i) => record(project, { timestamp: at + i, body: `doomed ${i}` }));
      const kept = record(other, { timestamp: at + 1, body: 'kept' });
      await store.insertLogs([...doomed, kept]);
      await store.deleteLogsOfProject(project);
      expect((await store.searchLogs({ projectId: project, limit: 10 })).items).toEqual([]);
      expect(await counts({ projectId: project, since: at, until: at + 60 }, 60)).toEqual([]);
      expect((await store.searchLogs({ projectId: other, limit: 10 })).items).toEqual([kept]);
      expect(await counts({ projectId: other, since: at, until: at + 60 }, 60)).toEqual([{ start: at, level: 'info', count: 1 }]);
      await store.deleteLogsOfProject(project);
    });

    it('pages through results with a cursor', async () => {
      const project = projectId();
      const records = Array.from({ length: 5 }, () => record(project, { timestamp: 1_750_000_000 }));
      await store.insertLogs(records);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.searchLogs({ projectId: project, limit: 2, cursor });
        seen.push(...page.items.map((r) => r.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen.sort()).toEqual(records.map((r) => r.id).sort());
    });

    it('pages newest first by timestamp, then by id', async () => {
      const project = projectId();
      const records = [0.000001, 0.5, 0.5, 0.5, 2].map((offset, i) =>
        record(project, { id: `rec:${i}`, timestamp: 1_760_000_000 + offset }),
      );
      await store.insertLogs(records);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.searchLogs({ projectId: project, limit: 2, cursor });
        seen.push(...page.items.map((r) => r.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(['rec:4', 'rec:3', 'rec:2', 'rec:1', 'rec:0']);
    });

    it('pages oldest first by timestamp, then by id, on request', async () => {
      const project = projectId();
      const records = [0.000001, 0.5, 0.5, 0.5, 2].map((offset, i) =>
        record(project, { id: `old:${i}`, timestamp: 1_760_000_000 + offset }),
      );
      await store.insertLogs([...records].reverse());
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.searchLogs({ projectId: project, limit: 2, order: 'oldest', cursor });
        seen.push(...page.items.map((r) => r.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(['old:0', 'old:1', 'old:2', 'old:3', 'old:4']);
      const newest = await store.searchLogs({ projectId: project, limit: 10, order: 'newest' });
      expect(newest.items.map((r) => r.id)).toEqual(['old:4', 'old:3', 'old:2', 'old:1', 'old:0']);
    });

    it('refuses a cursor given with the other order, instead of reading the first page again', async () => {
      const project = projectId();
      await store.insertLogs([0, 1, 2].map((offset, i) => record(project, { id: `o:${i}`, timestamp: 1_760_000_000 + offset })));
      const newestCursor = (await store.searchLogs({ projectId: project, limit: 1 })).nextCursor!;
      const oldestCursor = (await store.searchLogs({ projectId: project, limit: 1, order: 'oldest' })).nextCursor!;
      await expect(store.searchLogs({ projectId: project, limit: 1, order: 'oldest', cursor: newestCursor })).rejects.toThrow(
        'this cursor pages logs newest first (or oldest first, from before an upgrade), not oldest first: start again from the first page, or keep the sort it came with',
      );
      await expect(store.searchLogs({ projectId: project, limit: 1, cursor: oldestCursor })).rejects.toThrow(
        'this cursor pages logs oldest first, not newest first',
      );
      // Each continues its own order.
      expect((await store.searchLogs({ projectId: project, limit: 1, cursor: newestCursor })).items[0]!.id).toBe('o:1');
      expect((await store.searchLogs({ projectId: project, limit: 1, order: 'oldest', cursor: oldestCursor })).items[0]!.id).toBe(
        'o:1',
      );
    });

    it('filters by environment, exactly', async () => {
      const project = projectId();
      await store.insertLogs([
        record(project, { body: 'in prod', environment: 'prod' }),
        record(project, { body: 'in production', environment: 'production' }),
        record(project, { body: 'in none' }),
      ]);
      const search = async (environment: string) =>
        (await store.searchLogs({ projectId: project, limit: 10, environment })).items.map((r) => r.body);
      expect(await search('prod')).toEqual(['in prod']);
      expect(await search('production')).toEqual(['in production']);
      expect(await search('staging')).toEqual([]);
    });
  });
}
