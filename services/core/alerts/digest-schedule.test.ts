import { describe, expect, it } from 'vitest';
import { digestWindow, lastDigestDue } from './digest-schedule.ts';

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

  it('falls on the hour after a skipped hour, and on the first of a repeated one', () => {
    // New York skips 02:00-03:00 on 2026-03-08: 2:00 falls on 03:00 EDT (07:00 UTC).
    expect(lastDigestDue(at('2026-03-08T12:00:00Z'), { hour: 2, timeZone: 'America/New_York' }).toISOString()).toBe(
      '2026-03-08T07:00:00.000Z',
    );
    // Santiago skips midnight on 2026-09-06: 0:00 falls on 01:00 -03 (04:00 UTC).
    expect(lastDigestDue(at('2026-09-06T12:00:00Z'), { hour: 0, timeZone: 'America/Santiago' }).toISOString()).toBe(
      '2026-09-06T04:00:00.000Z',
    );
    // Berlin skips 02:00-03:00 on 2026-03-29: 03:00 CEST is 01:00 UTC.
    expect(lastDigestDue(at('2026-03-29T12:00:00Z'), { hour: 2, timeZone: 'Europe/Berlin' }).toISOString()).toBe(
      '2026-03-29T01:00:00.000Z',
    );
    // New York repeats 01:00-02:00 on 2026-11-01: the first 1:00 (EDT, 05:00 UTC).
    expect(lastDigestDue(at('2026-11-01T12:00:00Z'), { hour: 1, timeZone: 'America/New_York' }).toISOString()).toBe(
      '2026-11-01T05:00:00.000Z',
    );
  });

  it('reports on the time since the due time before: 23 or 25 hours across a daylight saving change', () => {
    const berlin = { hour: 9, timeZone: 'Europe/Berlin' };
    const spring = digestWindow(at('2026-03-29T07:00:00Z'), berlin);
    expect(spring.since.toISOString()).toBe('2026-03-28T08:00:00.000Z');
    const autumn = digestWindow(at('2026-10-25T08:00:00Z'), berlin);
    expect(autumn.since.toISOString()).toBe('2026-10-24T07:00:00.000Z');
    const plain = digestWindow(at('2026-11-22T08:00:00Z'), berlin);
    expect(plain.since.toISOString()).toBe('2026-11-21T08:00:00.000Z');
  });

  it('starts where the last digest ended, when that is within a week before the due time', () => {
    const berlin = { hour: 10, timeZone: 'Europe/Berlin' };
    const dueAt = at('2026-11-22T09:00:00Z');
    // Sent at 9:00, then moved to 10:00: the hour between, not the day again.
    expect(digestWindow(dueAt, berlin, at('2026-11-22T08:00:00Z')).since.toISOString()).toBe('2026-11-22T08:00:00.000Z');
    // Moved from 9:00 to 8:00 before the 9:00 digest, or days without a dispatcher: all of it.
    expect(digestWindow(dueAt, berlin, at('2026-11-19T08:00:00Z')).since.toISOString()).toBe('2026-11-19T08:00:00.000Z');
    // A week at most; and never from the due time itself or after it.
    expect(digestWindow(dueAt, berlin, at('2026-11-01T08:00:00Z')).since.toISOString()).toBe('2026-11-15T09:00:00.000Z');
    expect(digestWindow(dueAt, berlin, dueAt).since.toISOString()).toBe('2026-11-21T09:00:00.000Z');
  });
});
