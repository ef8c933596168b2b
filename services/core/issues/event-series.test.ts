// The series fill every slot, count each event in its own UTC hour or day and its own issue, on
// the real embedded event store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteClient } from '../../adapters/pglite/pglite-client.ts';
import { migrate } from '../../adapters/postgres/migrate.ts';
import { PgEventStore } from '../../adapters/postgres/pg-event-store.ts';
import { newEvent } from '../../../test/fixtures/new-event.ts';
import { dailySeries, hourlySeries, hourlySeriesByIssue } from './event-series.ts';

const PROJECT = 7;
const NOW = new Date('2026-03-10T12:30:00Z');
const at = (iso: string) => Date.parse(iso) / 1000;

let db: PGliteClient;
let events: PgEventStore;
beforeAll(async () => {
  db = await PGliteClient.open(undefined);
  await migrate(db);
  events = new PgEventStore(db);
  const times: Array<[number, string]> = [
    [1, '2026-03-10T12:29:59Z'], // this hour
    [1, '2026-03-10T12:00:00Z'], // this hour, its first second
    [1, '2026-03-09T13:00:00Z'], // the first of the 24 hours
    [1, '2026-03-09T12:59:59Z'], // just before them: in the days, not the hours
    [1, '2026-02-25T00:00:00Z'], // the first of the 14 days
    [1, '2026-02-24T23:59:59Z'], // before them
    [2, '2026-03-10T11:15:00Z'],
  ];
  await events.insertEvents(
    times.map(([issueId, iso], n) =>
      newEvent(events, { projectId: PROJECT, eventId: `e${n}`.padEnd(32, '0'), issueId, timestamp: at(iso) }),
    ),
  );
});
afterAll(() => db.close());

describe('event series', () => {
  it('has 24 hourly slots, oldest first, ending with the current hour', async () => {
    const series = await hourlySeries(events, PROJECT, 1, NOW);
    expect(series).toHaveLength(24);
    expect(series[0]!.hour.toISOString()).toBe('2026-03-09T13:00:00.000Z');
    expect(series[23]!.hour.toISOString()).toBe('2026-03-10T12:00:00.000Z');
    expect(series.map((s) => s.count)).toEqual([1, ...new Array(22).fill(0), 2]);
  });

  it('keeps each issue to its own events, and gives an issue without any a row of zeros', async () => {
    const series = await hourlySeriesByIssue(events, PROJECT, [1, 2, 3], NOW);
    expect([...series.keys()]).toEqual([1, 2, 3]);
    expect(series.get(1)!.reduce((sum, s) => sum + s.count, 0)).toBe(3);
    expect(series.get(2)!.map((s) => s.count)).toEqual([...new Array(22).fill(0), 1, 0]);
    expect(series.get(3)!.map((s) => s.count)).toEqual(new Array(24).fill(0));
    expect(await hourlySeriesByIssue(events, PROJECT, [], NOW)).toEqual(new Map());
  });

  it('has 14 daily slots, oldest first, ending today', async () => {
    const series = await dailySeries(events, PROJECT, 1, NOW);
    expect(series.map((s) => s.day)).toHaveLength(14);
    expect(series[0]).toEqual({ day: '2026-02-25', count: 1 });
    expect(series[12]).toEqual({ day: '2026-03-09', count: 2 });
    expect(series[13]).toEqual({ day: '2026-03-10', count: 2 });
    expect(series.reduce((sum, s) => sum + s.count, 0)).toBe(5);
  });
});
