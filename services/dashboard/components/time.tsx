// A moment as a person reads it: relative ("5 min ago") with the exact time on hover, in their
// time zone setting; without one, in UTC until assets/local-time.ts rewrites the hover text in
// the browser's own zone.
import { formatDate } from './formats.ts';

interface TimeProps {
  date: Date;
  now: Date;
  /** The viewer's IANA time zone, or null for the browser's. */
  zone: string | null;
}

export function RelativeTime({ date, now, zone }: TimeProps) {
  return (
    <time dateTime={date.toISOString()} title={exactTime(date, zone)} data-local={zone ? undefined : ''}>
      {relativeTime(date, now)}
    </time>
  );
}

export function exactTime(date: Date, zone: string | null): string {
  return formatDate(date, { dateStyle: 'medium', timeStyle: 'long', timeZone: zone ?? 'UTC' });
}

const UNITS: readonly [limitSeconds: number, seconds: number, unit: string][] = [
  [60, 1, 's'],
  [3600, 60, 'min'],
  [86_400, 3600, 'h'],
  [86_400 * 60, 86_400, 'd'],
  [86_400 * 730, 86_400 * 30, 'mo'],
  [Infinity, 86_400 * 365, 'y'],
];

/** "just now", "5 min ago", "3 d ago", "in 2 h" (a snooze's end). */
function relativeTime(date: Date, now: Date): string {
  const seconds = Math.round((now.getTime() - date.getTime()) / 1000);
  const size = Math.abs(seconds);
  if (size < 10) return 'just now';
  const [, unitSeconds, unit] = UNITS.find(([limit]) => size < limit)!;
  const amount = `${Math.floor(size / unitSeconds)} ${unit}`;
  return seconds > 0 ? `${amount} ago` : `in ${amount}`;
}
