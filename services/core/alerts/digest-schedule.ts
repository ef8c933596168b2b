// When a channel's daily digest is due: the latest moment, at or before now, when the clock in
// the schedule's time zone read `hour`:00. Intl does the time zone arithmetic (IANA data built
// into Node); a day whose `hour` is skipped by a daylight saving change falls on the hour after.
import type { DigestSchedule } from './alert-rules.ts';

const HOUR_MS = 3_600_000;

/** How far the zone's wall clock is ahead of UTC at `instant`, in milliseconds. */
function zoneOffsetMs(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(instant));
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wall - (instant - (instant % 1000));
}

/** The UTC instant at which the zone's wall clock shows this date at `hour`:00. */
function wallClockToInstant(year: number, month: number, day: number, hour: number, timeZone: string): number {
  const wall = Date.UTC(year, month, day, hour);
  // Two passes settle the offset for the instant itself, across a daylight saving change.
  let instant = wall - zoneOffsetMs(wall, timeZone);
  instant = wall - zoneOffsetMs(instant, timeZone);
  return instant;
}

export function lastDigestDue(now: Date, schedule: DigestSchedule): Date {
  const local = new Date(now.getTime() + zoneOffsetMs(now.getTime(), schedule.timeZone));
  const [y, m, d] = [local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()];
  const today = wallClockToInstant(y, m, d, schedule.hour, schedule.timeZone);
  if (today <= now.getTime()) return new Date(today);
  return new Date(wallClockToInstant(y, m, d - 1, schedule.hour, schedule.timeZone));
}

/** The day a digest due at `dueAt` reports on. */
export function digestWindow(dueAt: Date): { since: Date; until: Date } {
  return { since: new Date(dueAt.getTime() - 24 * HOUR_MS), until: dueAt };
}
