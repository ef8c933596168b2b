// PgLogStore reads at most searchScanLimit records for one page of a search by text or
// attributes: a page may then end short of its limit, saying how far it read, with a cursor that
// reads on from there. Followed to the end, the pages hold every match once, in order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../core/logs/log-record.ts';
import type { LogPage, LogQuery } from '../../core/ports/log-store.ts';
import { PGliteClient } from '../pglite/pglite-client.ts';
import { migrate } from './migrate.ts';
import { PgLogStore } from './pg-log-store.ts';

let db: PGliteClient;
beforeAll(async () => {
  db = await PGliteClient.open(undefined);
  await migrate(db);
  // Twenty records a second apart; every fifth (0, 5, 10, 15) says "match".
  await new PgLogStore(db).insertLogs(Array.from({ length: 20 }, (_, n) => record(n, n % 5 === 0 ? 'a match' : 'noise')));
});
afterAll(async () => {
  await db?.close();
});

const AT = 1_765_000_000;
const record = (n: number, body: string): LogRecord => ({
  id: `r${String(n).padStart(2, '0')}`,
  projectId: 1,
  timestamp: AT + n,
  observedAt: AT + n,
  traceId: null,
  spanId: null,
  level: 'info',
  severityNumber: 9,
  body,
  attributes: {},
  release: null,
  environment: null,
});

/** Every page of a search, following nextCursor. */
async function allPages(store: PgLogStore, query: Omit<LogQuery, 'projectId'>): Promise<LogPage[]> {
  const pages: LogPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.searchLogs({ projectId: 1, ...query, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor && pages.length < 50);
  return pages;
}

const bodies = (page: LogPage) => page.items.map((r) => r.id);

describe('a search by text reading a bounded number of records per page', () => {
  it('stops after the records it may read, says how far it read, and reads on from there', async () => {
    const store = new PgLogStore(db, undefined, 6);
    // Newest first: records 19 to 14 are read; of them only 15 matches.
    const first = await store.searchLogs({ projectId: 1, text: 'match', limit: 10 });
    expect(bodies(first)).toEqual(['r15']);
    expect(first.searchedTo).toBe(AT + 14);
    expect(first.nextCursor).toBeDefined();
    // Records 13 to 8, of which 10 matches.
    const second = await store.searchLogs({ projectId: 1, text: 'match', limit: 10, cursor: first.nextCursor! });
    expect(bodies(second)).toEqual(['r10']);
    expect(second.searchedTo).toBe(AT + 8);
    // A page that found nothing in what it read still says how far it read, with a cursor.
    const none = await store.searchLogs({ projectId: 1, text: 'nothing like it', limit: 10 });
    expect(none).toMatchObject({ items: [], searchedTo: AT + 14 });
    expect(none.nextCursor).toBeDefined();
  });

  it('holds every match once, in order, over its pages, newest or oldest first', async () => {
    const store = new PgLogStore(db, undefined, 6);
    const newest = await allPages(store, { text: 'match', limit: 10 });
    expect(newest.flatMap(bodies)).toEqual(['r15', 'r10', 'r05', 'r00']);
    expect(newest.at(-1)!.nextCursor).toBeUndefined();
    const oldest = await allPages(store, { text: 'match', limit: 10, order: 'oldest' });
    expect(oldest.flatMap(bodies)).toEqual(['r00', 'r05', 'r10', 'r15']);
    // A limit reached before the bound pages as usual, without searchedTo.
    const small = await new PgLogStore(db, undefined, 100).searchLogs({ projectId: 1, text: 'match', limit: 2 });
    expect(bodies(small)).toEqual(['r15', 'r10']);
    expect(small.searchedTo).toBeUndefined();
  });

  it('bounds a search by level or environment alike, and reads a window within the bound whole', async () => {
    const store = new PgLogStore(db, undefined, 6);
    const byLevel = await allPages(store, { levels: ['info'], limit: 30 });
    expect(byLevel[0]).toMatchObject({ searchedTo: AT + 14 });
    expect(byLevel.flatMap(bodies)).toHaveLength(20);
    // A rare level or an environment no record has: a bounded read, not the whole window.
    for (const filter of [{ levels: ['fatal' as const] }, { environment: 'production' }]) {
      const none = await store.searchLogs({ projectId: 1, ...filter, limit: 10 });
      expect(none).toMatchObject({ items: [], searchedTo: AT + 14 });
    }
    const whole = await new PgLogStore(db, undefined, 100).searchLogs({ projectId: 1, levels: ['info'], limit: 30 });
    expect(whole.items).toHaveLength(20);
    expect(whole.searchedTo).toBeUndefined();
    const narrow = await store.searchLogs({ projectId: 1, text: 'match', since: AT + 9, until: AT + 13, limit: 10 });
    expect(bodies(narrow)).toEqual(['r10']);
    expect(narrow.searchedTo).toBeUndefined();
    expect(narrow.nextCursor).toBeUndefined();
  });

  it('reads a window of exactly the bound whole, with no page after it', async () => {
    // The bound's query looked for the bound-th record only: with exactly that many in the
    // window it gave a page saying it stopped, and a cursor to an empty page.
    const window = { since: AT + 8, until: AT + 13 };
    const inWindow = (await new PgLogStore(db).searchLogs({ projectId: 1, levels: ['info'], ...window, limit: 30 })).items.length;
    expect(inWindow).toBeGreaterThan(1);
    const exact = await new PgLogStore(db, undefined, inWindow).searchLogs({ projectId: 1, text: 'match', ...window, limit: 10 });
    expect(bodies(exact)).toEqual(['r10']);
    expect(exact.searchedTo).toBeUndefined();
    expect(exact.nextCursor).toBeUndefined();
    // One record fewer may be read: the page stops one short of the window's oldest record.
    const short = await new PgLogStore(db, undefined, inWindow - 1).searchLogs({
      projectId: 1,
      text: 'nothing like it',
      ...window,
      limit: 10,
    });
    expect(short.searchedTo).toBeDefined();
    expect(short.nextCursor).toBeDefined();
  });
});
