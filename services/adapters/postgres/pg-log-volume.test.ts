// PgLogStore's histogram of a search by text or attributes reads at most the window's newest
// records and says from when it counted; a search by level alone counts from per-minute counts
// and is never bounded. (The LogStore contract holds the counts themselves.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../core/logs/log-record.ts';
import { PGliteClient } from '../pglite/pglite-client.ts';
import { migrate } from './migrate.ts';
import { PgLogStore } from './pg-log-store.ts';

let db: PGliteClient;
beforeAll(async () => {
  db = await PGliteClient.open(undefined);
  await migrate(db);
});
afterAll(async () => {
  await db?.close();
});

const AT = 1_765_000_020; // a minute's start
const record = (n: number, body: string): LogRecord => ({
  id: `r${n}`,
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

describe('the bounded histogram of a content search', () => {
  it('counts only the newest records it may read, and says from when', async () => {
    // Six records a second apart; the search matches the even ones.
    await new PgLogStore(db).insertLogs([0, 1, 2, 3, 4, 5].map((n) => record(n, n % 2 === 0 ? 'even tick' : 'odd tick')));
    const window = { projectId: 1, since: AT, until: AT + 60 };
    const bounded = await new PgLogStore(db, 3).logVolume({ ...window, text: 'even' }, 2);
    // The newest three are 5, 4 and 3: of them only 4 matches.
    expect(bounded).toEqual({ counts: [{ start: AT + 4, level: 'info', count: 1 }], countedSince: AT + 3 });
    // One more than there are: read whole. (Exactly as many would read as bounded: it cannot tell.)
    const whole = await new PgLogStore(db, 7).logVolume({ ...window, text: 'even' }, 2);
    expect(whole).toEqual({
      counts: [0, 2, 4].map((n) => ({ start: AT + n, level: 'info', count: 1 })),
    });
    // Levels alone come from the per-minute counts, whatever the bound.
    expect(await new PgLogStore(db, 3).logVolume({ ...window, levels: ['info'] }, 60)).toEqual({
      counts: [{ start: AT, level: 'info', count: 6 }],
    });
  });
});
