// An issue's event counts as a series with every slot filled (zeros where nothing happened):
// the last 14 UTC days (get_issue_context, the issue page's chart) and the last 24 UTC hours
// (the issue page's chart, and each row's sparkline on the Issues page).
import type { EventStore } from '../ports/event-store.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Every one of the last `days` UTC days, today included, oldest first. */
export async function dailySeries(
  events: Pick<EventStore, 'dailyEventCounts'>,
  projectId: number,
  issueId: number,
  now: Date,
  days = 14,
): Promise<{ day: string; count: number }[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const first = today - (days - 1) * DAY_MS;
  const counts = new Map((await events.dailyEventCounts(projectId, issueId, first / 1000)).map((d) => [d.day, d.count]));
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(first + i * DAY_MS).toISOString().slice(0, 10);
    return { day, count: counts.get(day) ?? 0 };
  });
}

/** Every one of the last `hours` UTC hours, this one included, oldest first; `hour` is its start. */
export async function hourlySeries(
  events: Pick<EventStore, 'hourlyEventCounts'>,
  projectId: number,
  issueId: number,
  now: Date,
  hours = 24,
): Promise<{ hour: Date; count: number }[]> {
  return (await hourlySeriesByIssue(events, projectId, [issueId], now, hours)).get(issueId)!;
}

/** hourlySeries for each of `issueIds`, in one read. */
export async function hourlySeriesByIssue(
  events: Pick<EventStore, 'hourlyEventCounts'>,
  projectId: number,
  issueIds: number[],
  now: Date,
  hours = 24,
): Promise<Map<number, { hour: Date; count: number }[]>> {
  const thisHour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const first = thisHour - (hours - 1) * HOUR_MS;
  const rows = issueIds.length ? await events.hourlyEventCounts(projectId, issueIds, first / 1000) : [];
  const counts = new Map(rows.map((r) => [`${r.issueId}@${r.hour * 1000}`, r.count]));
  return new Map(
    issueIds.map((id) => [
      id,
      Array.from({ length: hours }, (_, i) => ({
        hour: new Date(first + i * HOUR_MS),
        count: counts.get(`${id}@${first + i * HOUR_MS}`) ?? 0,
      })),
    ]),
  );
}
