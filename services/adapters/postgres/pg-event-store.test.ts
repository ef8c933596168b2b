// PgEventStore's INSERT of a full chunk of rows stays prepared (its text is the same each time);
// what every EventStore answers is held by the contract (event-store.contract.ts).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import type { NewEvent } from '../../core/ports/event-store.ts';
import type { PgEventStore } from './pg-event-store.ts';

let stores: EmbeddedStores;

beforeAll(async () => {
  stores = await openEmbeddedStores();
});

afterAll(async () => {
  await stores.close();
});

function newEvent(store: PgEventStore, n: number): NewEvent {
  const eventId = randomUUID().replace(/-/g, '');
  return {
    projectId: 1,
    eventId,
    issueId: 1 + (n % 3),
    timestamp: 1_800_000_000 + n,
    receivedAt: 1_800_000_001 + n,
    level: 'error',
    title: `Error ${n}`,
    culprit: 'run(app.js)',
    platform: 'node',
    environment: 'production',
    release: null,
    traceId: null,
    userKey: null,
    encodedPayload: store.encodePayload(JSON.stringify({ event_id: eventId, n })),
  };
}

describe('PgEventStore', () => {
  it('keeps the INSERT of a full chunk of rows prepared, and runs a shorter one unnamed', async () => {
    const store = stores.events;
    const events = Array.from({ length: 120 }, (_, n) => newEvent(store, n)); // chunks of 50, 50 and 20
    await store.insertEvents(events);
    const { rows } = await stores.client.query<{ statement: string; parameters: number }>(
      `SELECT statement, cardinality(parameter_types) AS parameters FROM pg_prepared_statements
       WHERE statement LIKE 'INSERT INTO events%'`,
    );
    expect(rows.map((r) => r.parameters)).toEqual([50 * 14]);
    const last = events.at(-1)!;
    expect((await store.getEvent(1, last.eventId))?.payload).toEqual({ event_id: last.eventId, n: 119 });
    expect((await stores.client.query<{ n: number }>('SELECT count(*)::integer AS n FROM events')).rows).toEqual([{ n: 120 }]);
  });
});
