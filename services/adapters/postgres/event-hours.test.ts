// issue_event_hours (migration 0024) holds exactly the stored events per issue and UTC hour as
// the store inserts and deletes them, and a window's count reads events only for its partial hours.
// What every EventStore answers is held by the contract (event-store.contract.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { newEvent as plainEvent } from '../../../test/support/new-event.ts';
import type { NewEvent } from '../../core/ports/event-store.ts';
import { countedHours, hourOf, splitAtHours } from './event-hours.ts';
import { migrate } from './migrate.ts';

const HOUR = 3600;
const HOUR0 = 1_800_000_000 - (1_800_000_000 % HOUR);

let stores: EmbeddedStores;
beforeAll(async () => {
  stores = await openEmbeddedStores();
});
afterAll(() => stores.close());

function newEvent(projectId: number, issueId: number, timestamp: number): NewEvent {
  return plainEvent(stores.events, { projectId, issueId, timestamp });
}

/** The table's rows of one project as `issue@hour-offset: count`, in order. */
async function hourRows(projectId: number): Promise<Record<string, number>> {
  const { rows } = await stores.client.query<{ issue_id: number; hour: number; count: number }>(
    'SELECT issue_id, hour, count FROM issue_event_hours WHERE project_id = $1 ORDER BY issue_id, hour',
    [projectId],
  );
  return Object.fromEntries(rows.map((r) => [`${r.issue_id}@${r.hour * HOUR - HOUR0}`, r.count]));
}

describe('splitAtHours', () => {
  it('cuts a window into its whole hours and the parts of hours at its ends', () => {
    expect(splitAtHours(HOUR0 + 10, HOUR0 + 2 * HOUR + 5)).toEqual({
      first: HOUR0 / HOUR + 1,
      end: HOUR0 / HOUR + 2,
      partial: [
        [HOUR0 + 10, HOUR0 + HOUR],
        [HOUR0 + 2 * HOUR, HOUR0 + 2 * HOUR + 5],
      ],
    });
    expect(splitAtHours(HOUR0, HOUR0 + 2 * HOUR)).toEqual({ first: HOUR0 / HOUR, end: HOUR0 / HOUR + 2, partial: [] });
    expect(splitAtHours(HOUR0 + 10, HOUR0 + 20)).toEqual({ first: 0, end: 0, partial: [[HOUR0 + 10, HOUR0 + 20]] });
    // Across one boundary with no whole hour between: a part in each hour.
    expect(splitAtHours(HOUR0 + 10, HOUR0 + HOUR + 20).partial).toEqual([
      [HOUR0 + 10, HOUR0 + HOUR],
      [HOUR0 + HOUR, HOUR0 + HOUR + 20],
    ]);
    expect(splitAtHours(HOUR0 + 10)).toEqual({
      first: HOUR0 / HOUR + 1,
      end: 2 ** 31 - 1,
      partial: [[HOUR0 + 10, HOUR0 + HOUR]],
    });
    expect(splitAtHours(HOUR0 + 10, HOUR0 + 10)).toEqual({ first: 0, end: 0, partial: [] });
  });
});

describe('hourOf', () => {
  it('files a timestamp under the hour Postgres stores it in, to the half microsecond', async () => {
    const next = HOUR0 + HOUR;
    const moments = [
      HOUR0,
      HOUR0 + 0.25,
      next - 1e-7,
      next - 4e-7,
      next - 4.9e-7,
      next - 6e-7,
      next - 1e-6,
      next - 0.5,
      -0.5,
      -3_600.0000004,
    ];
    const { rows } = await stores.client.query<{ hour: number }>(
      'SELECT floor(extract(epoch FROM to_timestamp(t)) / 3600)::int AS hour FROM unnest($1::float8[]) WITH ORDINALITY AS m (t, n) ORDER BY n',
      [moments],
    );
    expect(moments.map(hourOf)).toEqual(rows.map((r) => r.hour));
    expect(hourOf(next - 1e-7)).toBe(next / HOUR); // rounded up to the next hour's first microsecond
  });
});

describe('issue_event_hours', () => {
  it('counts what inserts stored, once each; loses whole hours to retention and whole issues to deletion', async () => {
    const events = [
      newEvent(1, 5, HOUR0 + 1),
      newEvent(1, 5, HOUR0 + 2),
      newEvent(1, 5, HOUR0 + HOUR - 0.5),
      newEvent(1, 6, HOUR0 + 2 * HOUR),
      newEvent(2, 7, HOUR0 + 3),
      newEvent(2, 7, HOUR0 + HOUR + 3),
    ];
    await stores.events.insertEvents(events);
    await stores.events.insertEvents([events[0]!, newEvent(1, 5, HOUR0 + HOUR)]);
    expect(await hourRows(1)).toEqual({ '5@0': 3, '5@3600': 1, '6@7200': 1 });
    expect(await hourRows(2)).toEqual({ '7@0': 1, '7@3600': 1 });

    // Retention takes whole hours: a cutoff within an hour keeps that hour's events and counts.
    expect(await stores.events.deleteEventsBefore(HOUR0 + HOUR - 1)).toBe(0);
    expect(await hourRows(1)).toEqual({ '5@0': 3, '5@3600': 1, '6@7200': 1 });
    expect(await stores.events.deleteEventsBefore(HOUR0 + HOUR + 10)).toBe(4);
    expect(await stores.events.getEvent(1, events[2]!.eventId)).toBeUndefined();
    expect(await hourRows(1)).toEqual({ '5@3600': 1, '6@7200': 1 });
    expect(await hourRows(2)).toEqual({ '7@3600': 1 });
    expect(await stores.events.countEventsByIssue([1, 2], HOUR0, HOUR0 + 3 * HOUR)).toEqual(
      new Map([
        [5, 1],
        [6, 1],
        [7, 1],
      ]),
    );

    await stores.events.deleteEventsForIssues(1, [5]);
    expect(await hourRows(1)).toEqual({ '6@7200': 1 });
    expect(await hourRows(2)).toEqual({ '7@3600': 1 });
  });

  it('counts an event given twice in a batch, or stored before, once', async () => {
    const project = 4;
    const batch = Array.from({ length: 120 }, (_, n) => newEvent(project, 20 + (n % 2), HOUR0 + n * 60));
    // The 60th event again in the second statement of 50 rows, and the first one in the third.
    await stores.events.insertEvents([
      ...batch.slice(0, 70),
      batch[59]!,
      ...batch.slice(70, 110),
      batch[0]!,
      ...batch.slice(110),
    ]);
    const once = { '20@0': 30, '20@3600': 30, '21@0': 30, '21@3600': 30 };
    expect(await hourRows(project)).toEqual(once);
    // Redelivered, with one new event in its last statement.
    await stores.events.insertEvents([...batch, newEvent(project, 21, HOUR0 + 2 * HOUR)]);
    expect(await hourRows(project)).toEqual({ ...once, '21@7200': 1 });
  });

  it('is filled from the events already stored when the migration runs', async () => {
    const project = 3;
    await stores.events.insertEvents([
      newEvent(project, 8, HOUR0 + 5),
      newEvent(project, 8, HOUR0 + 6),
      newEvent(project, 9, HOUR0 + HOUR),
    ]);
    // The schema as it was before migration 0024, with these events stored: then migrate.
    await stores.client.query('DROP TABLE issue_event_hours');
    await stores.client.query(`DELETE FROM schema_migrations WHERE version = '0024-issue-event-hours'`);
    expect((await migrate(stores.client)).applied).toEqual(['0024-issue-event-hours']);
    expect(await hourRows(project)).toEqual({ '8@0': 2, '9@3600': 1 });
    await stores.events.insertEvents([newEvent(project, 9, HOUR0 + HOUR + 1)]);
    expect(await hourRows(project)).toEqual({ '8@0': 2, '9@3600': 2 });
  });

  it('counts the partial hours of a window from events issue by issue, through the issue index', async () => {
    // A table of some size, analyzed, as a server has: on a few rows any plan is as good.
    const many = Array.from({ length: 5_000 }, (_, n) => newEvent(10 + (n % 5), 100 + (n % 50), HOUR0 - n * 60));
    for (let i = 0; i < many.length; i += 1_000) await stores.events.insertEvents(many.slice(i, i + 1_000));
    await stores.client.query('ANALYZE events');
    const { rows } = await stores.client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT * FROM (${countedHours({ projects: '$1::integer[]', hours: ['$2', '$3'], partial: ['$4', '$5'] })}) c`,
      [[10], HOUR0 / HOUR - 48, HOUR0 / HOUR - 1, [HOUR0 - 49 * HOUR - 10], [HOUR0 - 48 * HOUR]],
    );
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('events_issue_time');
    expect(plan).not.toMatch(/Seq Scan on events/);
  });
});
