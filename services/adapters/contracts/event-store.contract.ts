// The EventStore contract, run against every adapter on the real database.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EventStore, NewEvent, StoredEvent } from '../../core/ports/event-store.ts';

/** The write form of a stored event. */
function toNew({ payload, ...record }: StoredEvent): NewEvent {
  return { ...record, payloadJson: JSON.stringify(payload) };
}

export function describeEventStoreContract(name: string, open: () => Promise<EventStore>): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    beforeAll(async () => {
      store = await open();
    });

    const projectId = () => 100_000 + Math.floor(Math.random() * 1_000_000);
    function event(project: number, overrides: Partial<StoredEvent> = {}): StoredEvent {
      const eventId = randomUUID().replace(/-/g, '');
      return {
        projectId: project,
        eventId,
        issueId: 7,
        timestamp: 1_700_000_000.25,
        receivedAt: 1_700_000_001.5,
        level: 'error',
        title: 'Error: boom <b>',
        culprit: 'run(app.js)',
        platform: 'node',
        environment: 'production',
        release: '1.0.0',
        traceId: 'a'.repeat(32),
        userKey: 'id:1',
        payload: {
          event_id: eventId,
          timestamp: 1_700_000_000.25,
          received: 1_700_000_001.5,
          type: 'error',
          platform: 'node',
          level: 'error',
          tags: { ünïcode: '✓' },
          contexts: {},
          extra: { quote: 'it\'s "quoted"', newline: 'a\nb' },
        },
        ...overrides,
      };
    }

    it('stores an event and returns it unchanged', async () => {
      const project = projectId();
      const stored = event(project);
      await store.insertEvents([toNew(stored)]);
      expect(await store.getEvent(project, stored.eventId)).toEqual(stored);
      expect(await store.getEvent(project + 1, stored.eventId)).toBeUndefined();
    });

    it('ignores a second insert of the same event id', async () => {
      const project = projectId();
      const stored = event(project);
      await store.insertEvents([toNew(stored), toNew({ ...stored, title: 'changed' })]);
      await store.insertEvents([toNew({ ...stored, title: 'changed again' })]);
      expect(await store.countEventsForIssue(project, 7)).toBe(1);
      expect((await store.getEvent(project, stored.eventId))?.title).toBe(stored.title);
    });

    it('finds the latest event of an issue', async () => {
      const project = projectId();
      const events = [1, 3, 2].map((offset) => event(project, { issueId: 9, timestamp: 1_700_000_000 + offset }));
      await store.insertEvents(events.map(toNew));
      await store.insertEvents([toNew(event(project, { issueId: 10, timestamp: 1_800_000_000 }))]);
      expect((await store.latestEventForIssue(project, 9))?.eventId).toBe(events[1]!.eventId);
      expect(await store.countEventsForIssue(project, 9)).toBe(3);
      expect(await store.latestEventForIssue(project, 11)).toBeUndefined();
    });

    it('keeps timestamps to the microsecond', async () => {
      const project = projectId();
      const stored = event(project, { timestamp: 1_700_000_000.123456, receivedAt: 1_700_000_001.000001 });
      await store.insertEvents([toNew(stored)]);
      expect(await store.getEvent(project, stored.eventId)).toMatchObject({
        timestamp: 1_700_000_000.123456,
        receivedAt: 1_700_000_001.000001,
      });
    });

    it('deletes events from well before the cutoff and keeps later ones', async () => {
      // 1990 and 1995: no other test writes there, so the count is this test's alone. A store may
      // delete in whole days (ClickHouse drops day partitions), hence days between the events.
      const project = projectId();
      const old = event(project, { issueId: 13, timestamp: Date.UTC(1990, 0, 10) / 1000 });
      const kept = event(project, { issueId: 13, timestamp: Date.UTC(1995, 0, 10) / 1000 });
      await store.insertEvents([toNew(old), toNew(kept)]);
      expect(await store.deleteEventsBefore(Date.UTC(1995, 0, 1) / 1000)).toBe(1);
      expect(await store.getEvent(project, old.eventId)).toBeUndefined();
      expect(await store.getEvent(project, kept.eventId)).toEqual(kept);
      expect(await store.countEventsForIssue(project, 13)).toBe(1);
    });

    it('stores a large batch in one call', async () => {
      const project = projectId();
      await store.insertEvents(Array.from({ length: 450 }, () => toNew(event(project, { issueId: 12 }))));
      expect(await store.countEventsForIssue(project, 12)).toBe(450);
    });
  });
}
