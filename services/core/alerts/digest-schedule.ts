// When a channel's daily digest is due: the latest moment, at or before now, when the clock in
// the schedule's time zone read `hour`:00. Intl does the time zone arithmetic (IANA data built
// into Node); on a day whose `hour` is skipped by a daylight saving change, it falls on the hour
// after the gap.
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

/**
 * The first UTC instant at which the zone's wall clock shows this date at `hour`:00. Offsets
 * change at most once around a day, so the offsets a day before and a day after are the
 * candidates: a repeated hour (clocks going back) gives two matches, the earlier wins; a skipped
 * hour (clocks going forward) gives none, and the old offset lands on the hour after the gap.
 */
function wallClockToInstant(year: number, month: number, day: number, hour: number, timeZone: string): number {
  const wall = Date.UTC(year, month, day, hour);
  const before = wall - zoneOffsetMs(wall - 24 * HOUR_MS, timeZone);
  const after = wall - zoneOffsetMs(wall + 24 * HOUR_MS, timeZone);
  const showsHour = (instant: number) => new Date(instant + zoneOffsetMs(instant, timeZone)).getUTCHours() === hour;
  const matches = [before, after].filter(showsHour).sort((a, b) => a - b);
  return matches[0] ?? before;
}

export function lastDigestDue(now: Date, schedule: DigestSchedule): Date {
  const local = new Date(now.getTime() + zoneOffsetMs(now.getTime(), schedule.timeZone));
  const [y, m, d] = [local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()];
  const today = wallClockToInstant(y, m, d, schedule.hour, schedule.timeZone);
  if (today <= now.getTime()) return new Date(today);
  return new Date(wallClockToInstant(y, m, d - 1, schedule.hour, schedule.timeZone));
}

/** The longest a digest reaches back, after a dispatcher was down for days. */
const MAX_DIGEST_WINDOW_MS = 7 * 86_400_000;

/**
 * What a digest due at `dueAt` reports on: from where the last digest ended (after a changed
 * schedule or days without a dispatcher, more or less than a day; a week at most), else from the
 * due time before it (23 or 25 hours on a daylight saving day).
 */
export function digestWindow(
  dueAt: Date,
  schedule: DigestSchedule,
  reportedUntil: Date | null = null,
): { since: Date; until: Date } {
  if (reportedUntil === null || reportedUntil >= dueAt) {
    return { since: lastDigestDue(new Date(dueAt.getTime() - 1), schedule), until: dueAt };
  }
  return { since: new Date(Math.max(reportedUntil.getTime(), dueAt.getTime() - MAX_DIGEST_WINDOW_MS)), until: dueAt };
}
