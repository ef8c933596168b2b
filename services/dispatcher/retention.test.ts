import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../test/support/embedded-stores.ts';
import { createLogger } from '../runtime/logger.ts';
import { pruneExpired } from './retention.ts';

let stores: EmbeddedStores;
beforeAll(async () => {
  stores = await openEmbeddedStores();
});
afterAll(() => stores.close());

const DAY = 86_400;
const NOW = 1_900_000_000;

describe('retention', () => {
  it('deletes events and logs older than the retention period and keeps the rest', async () => {
    const event = (id: string, age: number) => ({
      projectId: 1,
      eventId: id,
      issueId: 1,
      timestamp: NOW - age,
      receivedAt: NOW - age,
      level: 'error' as const,
      title: 't',
      culprit: '',
      platform: 'other',
      environment: null,
      release: null,
      traceId: null,
      userKey: null,
      payloadJson: JSON.stringify({ event_id: id }),
    });
    await stores.events.insertEvents([event('a'.repeat(32), 91 * DAY), event('b'.repeat(32), 89 * DAY)]);
    const log = (id: string, age: number) => ({
      id,
      projectId: 1,
      timestamp: NOW - age,
      observedAt: NOW - age,
      traceId: null,
      spanId: null,
      level: 'info' as const,
      severityNumber: 9,
      body: id,
      attributes: {},
      release: null,
      environment: null,
    });
    await stores.logs.insertLogs([log('old', 100 * DAY), log('new', DAY)]);
    const pruned = await pruneExpired({ ...stores, logger: createLogger('silent'), retentionDays: 90, now: () => NOW * 1000 });
    expect(pruned).toMatchObject({ events: 1, logs: 1 });
    expect(await stores.events.getEvent(1, 'a'.repeat(32))).toBeUndefined();
    expect(await stores.events.getEvent(1, 'b'.repeat(32))).toBeDefined();
    expect((await stores.logs.searchLogs({ projectId: 1, limit: 10 })).items.map((l) => l.body)).toEqual(['new']);
  });
});
