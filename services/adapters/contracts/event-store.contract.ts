// The EventStore contract, run against every adapter on the real database.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  STATS_RELEASES,
  USER_SCAN_EVENTS,
  type EventStore,
  type NewEvent,
  type StoredEvent,
} from '../../core/ports/event-store.ts';

export function describeEventStoreContract(name: string, open: () => Promise<EventStore>): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    beforeAll(async () => {
      store = await open();
    });

    /** The write form of a stored event. */
    const toNew = ({ payload, ...record }: StoredEvent): NewEvent => ({
      ...record,
      encodedPayload: store.encodePayload(JSON.stringify(payload)),
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

    it('finds the latest event of an issue in one environment', async () => {
      const project = projectId();
      const staging = event(project, { issueId: 9, timestamp: 1_700_000_001, environment: 'staging' });
      const production = event(project, { issueId: 9, timestamp: 1_700_000_002, environment: 'production' });
      const unnamed = event(project, { issueId: 9, timestamp: 1_700_000_003, environment: null });
      await store.insertEvents([staging, production, unnamed].map(toNew));
      expect((await store.latestEventForIssue(project, 9))?.eventId).toBe(unnamed.eventId);
      expect((await store.latestEventForIssue(project, 9, 'staging'))?.eventId).toBe(staging.eventId);
      expect((await store.latestEventForIssue(project, 9, 'production'))?.eventId).toBe(production.eventId);
      expect(await store.latestEventForIssue(project, 9, 'qa')).toBeUndefined();
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

    it('finds the events either side of an event in its issue, ties broken by received time then id', async () => {
      const project = projectId();
      const t = 1_700_000_000.123456;
      const at = (offset: number, received = 0, issueId = 34) =>
        event(project, { issueId, timestamp: t + offset, receivedAt: t + 10 + received });
      // Oldest to newest: a, b (same time as c, received earlier), c, d; e belongs to another issue.
      const [a, b, c, d] = [at(-5), at(0, 0), at(0, 1), at(0.000001)];
      await store.insertEvents([a, b, c, d, at(-1, 0, 35)].map((e) => toNew(e!)));
      await store.insertEvents([toNew(c!)]);
      expect(await store.eventNeighbours(project, 34, a!.eventId)).toEqual({ older: null, newer: b!.eventId });
      expect(await store.eventNeighbours(project, 34, b!.eventId)).toEqual({ older: a!.eventId, newer: c!.eventId });
      expect(await store.eventNeighbours(project, 34, c!.eventId)).toEqual({ older: b!.eventId, newer: d!.eventId });
      expect(await store.eventNeighbours(project, 34, d!.eventId)).toEqual({ older: c!.eventId, newer: null });
      expect(await store.eventNeighbours(project, 35, a!.eventId)).toEqual({ older: null, newer: null });
      expect(await store.eventNeighbours(project, 34, 'f'.repeat(32))).toEqual({ older: null, newer: null });
    });

    it("finds a trace's events across the given projects, oldest first", async () => {
      const [project, other] = [projectId(), projectId()];
      const trace = 'ab'.repeat(16);
      const late = event(project, { traceId: trace, timestamp: 1_700_000_300 });
      const early = event(other, { traceId: trace, timestamp: 1_700_000_100, issueId: 7 });
      const middle = event(project, { traceId: trace, timestamp: 1_700_000_200, issueId: 9 });
      await store.insertEvents([late, early, middle, event(project, { traceId: 'cd'.repeat(16) }), event(project)].map(toNew));
      await store.insertEvents([toNew({ ...late!, title: 'copy' })]);
      expect(await store.eventsForTrace([project, other], trace.toUpperCase(), 10)).toEqual([early, middle, late]);
      expect(await store.eventsForTrace([project], trace, 10)).toEqual([middle, late]);
      expect((await store.eventsForTrace([project, other], trace, 2)).map((e) => e.eventId)).toEqual([
        early!.eventId,
        middle!.eventId,
      ]);
      expect(await store.eventsForTrace([], trace, 10)).toEqual([]);
    });

    it("finds each user's latest event of an issue, newest first", async () => {
      const project = projectId();
      const at = (userKey: string | null, offset: number, issueId = 22) =>
        event(project, { issueId, userKey, timestamp: 1_700_000_000 + offset });
      const [a1, a5, b3, c4] = [at('id:a', 1), at('id:a', 5), at('ip:b', 3), at('email:c', 4)];
      await store.insertEvents([a1, a5, b3, c4, at(null, 10), at('id:d', 20, 23)].map(toNew));
      await store.insertEvents([toNew({ ...a5!, title: 'copy' })]);
      expect(await store.latestEventPerUser(project, 22, 10)).toEqual([a5, c4, b3]);
      expect((await store.latestEventPerUser(project, 22, 2)).map((e) => e.eventId)).toEqual([a5!.eventId, c4!.eventId]);
      expect(await store.latestEventPerUser(project, 24, 10)).toEqual([]);
    });

    it("looks for users among the issue's newest events only", async () => {
      // A user whose newest event lies behind USER_SCAN_EVENTS newer ones is not looked for: the
      // whole history of a loud issue was sorted for a handful of users.
      const project = projectId();
      const old = event(project, { issueId: 25, userKey: 'id:old', timestamp: 1_600_000_000 });
      const recent = Array.from({ length: USER_SCAN_EVENTS }, (_, i) =>
        event(project, { issueId: 25, userKey: i === 0 ? 'id:new' : null, timestamp: 1_700_000_000 + i }),
      );
      await store.insertEvents([old, ...recent].map(toNew));
      expect((await store.latestEventPerUser(project, 25, 5)).map((e) => e.userKey)).toEqual(['id:new']);
      await store.insertEvents([toNew(event(project, { issueId: 26, userKey: 'id:old', timestamp: 1_600_000_000 }))]);
      expect((await store.latestEventPerUser(project, 26, 5)).map((e) => e.userKey)).toEqual(['id:old']);
    });

    it('sums up the events of an issue since a moment, each event id once', async () => {
      const project = projectId();
      const since = 1_700_000_010.25;
      const at = (offset: number, release: string | null, issueId = 25, userKey: string | null = null) =>
        event(project, { issueId, release, timestamp: since + offset, userKey });
      const counted = [at(0, '2.0', 25, 'id:a'), at(2, null, 25, 'id:b'), at(5, '1.10', 25, 'id:a'), at(9.5, '2.0')];
      await store.insertEvents([at(-0.25, '0.9'), ...counted, at(3, 'other', 26)].map(toNew));
      await store.insertEvents([toNew(counted[2]!)]);
      expect(await store.issueEventStats(project, 25, since)).toEqual({
        count: 4,
        firstSeen: since,
        lastSeen: since + 9.5,
        releases: ['1.10', '2.0'],
        releaseCount: 2,
        users: 2,
      });
      expect((await store.issueEventStats(project, 25, since - 1)).releases).toEqual(['0.9', '1.10', '2.0']);
      expect((await store.issueEventStats(project, 25, since + 1)).users).toBe(2);
      expect((await store.issueEventStats(project, 25, since + 3)).users).toBe(1);
      const none = { count: 0, firstSeen: null, lastSeen: null, releases: [], releaseCount: 0, users: 0 };
      expect(await store.issueEventStats(project, 25, since + 10)).toEqual(none);
      expect(await store.issueEventStats(project, 27, 0)).toEqual(none);
      // Any number of releases can come; the first STATS_RELEASES in byte order are named, all counted.
      const many = Array.from({ length: STATS_RELEASES + 5 }, (_, i) => at(20 + i, `r${String(i).padStart(2, '0')}`, 28));
      await store.insertEvents(many.map(toNew));
      const stats = await store.issueEventStats(project, 28, since);
      expect(stats.releases).toEqual(many.slice(0, STATS_RELEASES).map((e) => e.release));
      expect(stats.releaseCount).toBe(STATS_RELEASES + 5);
    });

    it('counts the events of an issue per UTC day, oldest first', async () => {
      const project = projectId();
      const day0 = Date.UTC(2023, 10, 14) / 1000;
      const at = (seconds: number, issueId = 28) => event(project, { issueId, timestamp: day0 + seconds });
      const events = [-1, 0, 3_600, 86_399.75, 86_400, 2 * 86_400 + 5].map((s) => at(s));
      await store.insertEvents([...events, at(600, 29)].map(toNew));
      await store.insertEvents([toNew(events[2]!)]);
      expect(await store.dailyEventCounts(project, 28, day0)).toEqual([
        { day: '2023-11-14', count: 3 },
        { day: '2023-11-15', count: 1 },
        { day: '2023-11-16', count: 1 },
      ]);
      expect(await store.dailyEventCounts(project, 28, day0 + 3_600)).toEqual([
        { day: '2023-11-14', count: 2 },
        { day: '2023-11-15', count: 1 },
        { day: '2023-11-16', count: 1 },
      ]);
      expect(await store.dailyEventCounts(project, 28, day0 - 86_400)).toHaveLength(4);
      expect(await store.dailyEventCounts(project, 30, day0)).toEqual([]);
    });

    it('counts events of the given issues per UTC hour since a moment, each event once', async () => {
      const project = projectId();
      const hour0 = 1_700_000_000 - (1_700_000_000 % 3_600);
      const at = (issueId: number, s: number) => event(project, { issueId, timestamp: hour0 + s });
      const events = [at(41, -0.5), at(41, 0), at(41, 3_599.75), at(41, 3_600), at(42, 10), at(42, 7_300), at(43, 20)];
      await store.insertEvents(events.map(toNew));
      await store.insertEvents([toNew(events[1]!), toNew(event(projectId(), { issueId: 41, timestamp: hour0 + 5 }))]);
      expect(await store.hourlyEventCounts(project, [41, 42], hour0)).toEqual([
        { issueId: 41, hour: hour0, count: 2 },
        { issueId: 42, hour: hour0, count: 1 },
        { issueId: 41, hour: hour0 + 3_600, count: 1 },
        { issueId: 42, hour: hour0 + 7_200, count: 1 },
      ]);
      expect(await store.hourlyEventCounts(project, [41], hour0 - 1)).toEqual([
        { issueId: 41, hour: hour0 - 3_600, count: 1 },
        { issueId: 41, hour: hour0, count: 2 },
        { issueId: 41, hour: hour0 + 3_600, count: 1 },
      ]);
      expect(await store.hourlyEventCounts(project, [], hour0)).toEqual([]);
    });

    it('counts events per issue within [since, until), for the given projects', async () => {
      const [a, b, other] = [projectId(), projectId(), projectId()];
      const since = 1_700_000_000.5;
      const until = since + 100;
      const at = (project: number, issueId: number, offset: number) => event(project, { issueId, timestamp: since + offset });
      const inA = [at(a, 31, 0), at(a, 31, 50), at(a, 31, 99.75)];
      await store.insertEvents(
        [...inA, at(a, 31, -0.25), at(a, 31, 100), at(a, 32, 10), at(a, 35, 200), at(b, 33, 20), at(b, 33, 30)].map(toNew),
      );
      await store.insertEvents([at(other, 34, 5), inA[1]!].map(toNew));
      const expected = new Map([
        [31, 3],
        [32, 1],
        [33, 2],
      ]);
      expect(await store.countEventsByIssue([a, b], since, until)).toEqual(expected);
      expect(await store.countEventsByIssue([b], since, until)).toEqual(new Map([[33, 2]]));
      expect(await store.countEventsByIssue([a, b], until, until + 50)).toEqual(new Map([[31, 1]]));
      expect(await store.countEventsByIssue([], since, until)).toEqual(new Map());
    });

    it('counts windows over several hours exactly, whole hours and parts of hours alike, before and after a deletion', async () => {
      const project = projectId();
      const hour0 = 1_700_006_400; // a whole UTC hour
      const at = (issueId: number, seconds: number) => event(project, { issueId, timestamp: hour0 + seconds });
      const events = [
        ...[-0.5, 0, 900, 1_799.75, 1_800, 3_600, 5_000, 7_199.5, 7_200, 10_799, 14_000, 18_000].map((s) => at(51, s)),
        ...[100, 4_000, 4_100, 9_000, 16_000].map((s) => at(52, s)),
        at(53, 3 * 3_600 + 150), // only in the last part-hour of some windows below
      ];
      await store.insertEvents(events.map(toNew));
      await store.insertEvents([toNew(events[3]!), toNew(events[13]!)]); // stored before: counted once
      const expected = (kept: StoredEvent[], since: number, until: number) => {
        const counts = new Map<number, number>();
        for (const e of kept)
          if (e.timestamp >= since && e.timestamp < until) counts.set(e.issueId, (counts.get(e.issueId) ?? 0) + 1);
        return counts;
      };
      const windows: Array<[number, number]> = [
        [hour0 + 1_800, hour0 + 3 * 3_600 + 200], // a part-hour, two whole hours, a part-hour
        [hour0 - 10, hour0 + 5 * 3_600],
        [hour0, hour0 + 2 * 3_600], // whole hours only
        [hour0 + 600, hour0 + 1_200], // within one hour
        [hour0 + 1_800, hour0 + 5_400], // across one boundary, no whole hour
        [hour0 + 3 * 3_600 + 100, hour0 + 3 * 3_600 + 200],
      ];
      const check = async (kept: StoredEvent[]) => {
        for (const [since, until] of windows) {
          expect(await store.countEventsByIssue([project], since, until), `[${since - hour0}, ${until - hour0})`).toEqual(
            expected(kept, since, until),
          );
        }
        const since = hour0 + 1_800;
        const hourly = new Map<string, number>();
        for (const e of kept) {
          if (e.timestamp < since) continue;
          const key = `${e.issueId}@${Math.floor(e.timestamp / 3_600) * 3_600}`;
          hourly.set(key, (hourly.get(key) ?? 0) + 1);
        }
        const rows = await store.hourlyEventCounts(project, [51, 52, 53, 51], since); // an id twice counts once
        expect(new Map(rows.map((r) => [`${r.issueId}@${r.hour}`, r.count]))).toEqual(hourly);
        expect(rows.map((r) => r.hour)).toEqual([...rows.map((r) => r.hour)].sort((a, b) => a - b));
      };
      await check(events);
      await store.deleteEventsForIssues(project, [52]);
      await check(events.filter((e) => e.issueId !== 52));
    });

    it("deletes the issues' events, and only those", async () => {
      const [project, otherProject] = [projectId(), projectId()];
      const doomed = [1, 2, 3].map((offset) => event(project, { issueId: 41, timestamp: 1_700_000_000 + offset }));
      const alsoDoomed = event(project, { issueId: 43, timestamp: 1_700_000_009 });
      const kept = event(project, { issueId: 42 });
      const keptElsewhere = event(otherProject, { issueId: 41 });
      await store.insertEvents([...doomed, alsoDoomed, kept, keptElsewhere].map(toNew));
      await store.insertEvents([toNew(doomed[0]!)]);
      await store.deleteEventsForIssues(project, [41, 43]);
      expect(await store.getEvent(project, alsoDoomed.eventId)).toBeUndefined();
      for (const e of doomed) expect(await store.getEvent(project, e.eventId)).toBeUndefined();
      expect(await store.latestEventForIssue(project, 41)).toBeUndefined();
      expect(await store.countEventsForIssue(project, 41)).toBe(0);
      expect((await store.issueEventStats(project, 41, 0)).count).toBe(0);
      expect(await store.getEvent(project, kept.eventId)).toEqual(kept);
      expect(await store.latestEventForIssue(project, 42)).toEqual(kept);
      expect(await store.latestEventForIssue(project, 43)).toBeUndefined();
      expect(await store.getEvent(otherProject, keptElsewhere.eventId)).toEqual(keptElsewhere);
      expect(await store.countEventsForIssue(otherProject, 41)).toBe(1);
      expect(await store.issuesWithEvents(project, [43, 42, 41, 42, 44])).toEqual([42]);
      expect(await store.issuesWithEvents(otherProject, [41, 42])).toEqual([41]);
      expect(await store.issuesWithEvents(project, [])).toEqual([]);
      await store.deleteEventsForIssues(project, [41]);
      await store.deleteEventsForIssues(project, []);
    });

    it("deletes a project's events and their counts, and only those, however often asked", async () => {
      const [project, other] = [projectId(), projectId()];
      const doomed = [41, 42, 42].map((issueId, i) => event(project, { issueId, timestamp: 1_700_000_100 + i }));
      const kept = event(other, { issueId: 41, timestamp: 1_700_000_101 });
      await store.insertEvents([...doomed, kept].map(toNew));
      await store.deleteEventsOfProject(project);
      for (const e of doomed) expect(await store.getEvent(project, e.eventId)).toBeUndefined();
      expect(await store.issuesWithEvents(project, [41, 42])).toEqual([]);
      expect(await store.countEventsByIssue([project], 1_700_000_000, 1_700_003_600)).toEqual(new Map());
      expect(await store.getEvent(other, kept.eventId)).toEqual(kept);
      expect(await store.countEventsByIssue([other], 1_700_000_000, 1_700_003_600)).toEqual(new Map([[41, 1]]));
      await store.deleteEventsOfProject(project);
    });

    it('stores a large batch in one call', async () => {
      const project = projectId();
      await store.insertEvents(Array.from({ length: 450 }, () => toNew(event(project, { issueId: 12 }))));
      expect(await store.countEventsForIssue(project, 12)).toBe(450);
    });
  });
}
