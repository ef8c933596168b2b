import { describe, expect, it } from 'vitest';
import { lastDigestDue } from './digest-schedule.ts';

const at = (iso: string) => new Date(iso);

describe('lastDigestDue', () => {
  it('is today at the hour once it has passed, otherwise yesterday', () => {
    expect(lastDigestDue(at('2026-11-22T09:30:00Z'), { hour: 9, timeZone: 'UTC' }).toISOString()).toBe(
      '2026-11-22T09:00:00.000Z',
    );
    expect(lastDigestDue(at('2026-11-22T08:59:59Z'), { hour: 9, timeZone: 'UTC' }).toISOString()).toBe(
      '2026-11-21T09:00:00.000Z',
    );
    expect(lastDigestDue(at('2026-11-22T09:00:00Z'), { hour: 9, timeZone: 'UTC' }).toISOString()).toBe(
      '2026-11-22T09:00:00.000Z',
    );
  });

  it('reads the hour on the wall clock of the time zone, daylight saving included', () => {
    // Berlin is UTC+1 in winter, UTC+2 in summer.
    expect(lastDigestDue(at('2026-11-22T12:00:00Z'), { hour: 9, timeZone: 'Europe/Berlin' }).toISOString()).toBe(
      '2026-11-22T08:00:00.000Z',
    );
    expect(lastDigestDue(at('2026-07-01T12:00:00Z'), { hour: 9, timeZone: 'Europe/Berlin' }).toISOString()).toBe(
      '2026-07-01T07:00:00.000Z',
    );
    // Just after midnight UTC it is already the next day in Tokyo (UTC+9): 08:00 there is 23:00 UTC.
    expect(lastDigestDue(at('2026-11-22T00:30:00Z'), { hour: 8, timeZone: 'Asia/Tokyo' }).toISOString()).toBe(
      '2026-11-21T23:00:00.000Z',
    );
    // New York, the morning after clocks went back (2026-11-01): 07:00 EST is 12:00 UTC.
    expect(lastDigestDue(at('2026-11-01T13:00:00Z'), { hour: 7, timeZone: 'America/New_York' }).toISOString()).toBe(
      '2026-11-01T12:00:00.000Z',
    );
    // The day before, 07:00 EDT was 11:00 UTC.
    expect(lastDigestDue(at('2026-11-01T11:30:00Z'), { hour: 7, timeZone: 'America/New_York' }).toISOString()).toBe(
      '2026-10-31T11:00:00.000Z',
    );
  });
});
