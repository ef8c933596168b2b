// Clock-drift correction, case by case against Relay's own tests of ClockDriftProcessor
// (relay-event-normalization clock_drift.rs: test_no_sent_at, test_no_clock_drift,
// test_clock_drift_lower_bound, test_clock_drift_from_past, test_clock_drift_from_future).
import { describe, expect, it } from 'vitest';
import { clockCorrection } from './clock-drift.ts';
import { normalizeEvent } from './normalize-event.ts';

const DAY = 86_400;
const END = Date.parse('2000-01-02T00:00:00Z') / 1000;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** An event stamped `END` by its client, with a breadcrumb a minute earlier, sent at `sentAt` and received at `receivedAt`. */
function normalized(sentAt: unknown, receivedAt: number) {
  return normalizeEvent(
    { timestamp: iso(END), breadcrumbs: [{ message: 'before', timestamp: END - 60 }] },
    { eventId: 'f'.repeat(32), receivedAt, sentAt },
  );
}

describe('clock-drift correction', () => {
  it('takes a sent_at or breadcrumb time beyond what a date can hold as no time, not as an error', () => {
    for (const sentAt of ['9999999999999', '8640000000000', '+275760-09-13T00:00:00.5Z']) {
      expect(clockCorrection(sentAt, END), sentAt).toBeUndefined();
    }
    const event = normalizeEvent(
      { timestamp: iso(END), breadcrumbs: [{ message: 'far', timestamp: 9_999_999_999_999 }] },
      { eventId: 'f'.repeat(32), receivedAt: END, sentAt: '9999999999999' },
    );
    expect(event.timestamp).toBe(END);
    expect(event.breadcrumbs?.values[0]?.timestamp).toBeUndefined();
  });

  it('changes nothing without sent_at (test_no_sent_at)', () => {
    const event = normalized(undefined, END);
    expect(event.timestamp).toBe(END);
    expect(event.errors).toBeUndefined();
  });

  it('changes nothing when sent and received at once (test_no_clock_drift)', () => {
    expect(normalized(iso(END), END).timestamp).toBe(END);
  });

  it('changes nothing for a minute of delay (test_clock_drift_lower_bound), nor for 54 minutes 59 seconds', () => {
    expect(normalized(iso(END), END + 60).timestamp).toBe(END);
    expect(clockCorrection(iso(END), END + 55 * 60 - 1)).toBeUndefined();
    expect(clockCorrection(iso(END), END - (55 * 60 - 1))).toBeUndefined();
  });

  it('corrects from exactly 55 minutes on, either way', () => {
    expect(clockCorrection(iso(END), END + 55 * 60)?.drift).toBe(55 * 60);
    expect(clockCorrection(iso(END), END - 55 * 60)?.drift).toBe(-55 * 60);
  });

  it('adds a day to every timestamp of a client whose clock lags a day (test_clock_drift_from_past)', () => {
    const now = END + DAY;
    const event = normalized(iso(END), now);
    expect(event.timestamp).toBe(now);
    expect(event.breadcrumbs?.values[0]?.timestamp).toBe(END - 60 + DAY);
    expect(event.errors).toEqual([
      {
        type: 'invalid_data',
        name: 'timestamp',
        value: {
          reason: 'clock drift: all timestamps adjusted by 1 day',
          sdk_time: '2000-01-02T00:00:00.000Z',
          server_time: '2000-01-03T00:00:00.000Z',
        },
      },
    ]);
  });

  it('subtracts a day from every timestamp of a client whose clock runs a day ahead (test_clock_drift_from_future)', () => {
    const now = END - DAY;
    const event = normalized(iso(END), now);
    // Without the correction the timestamp would be a day in the future and replaced by the receive time.
    expect(event.timestamp).toBe(now);
    expect(event.breadcrumbs?.values[0]?.timestamp).toBe(END - 60 - DAY);
    expect(event.errors?.[0]?.value).toMatchObject({ reason: 'clock drift: all timestamps adjusted by -1 day' });
  });

  it('words the adjustment in hours below a day', () => {
    expect(clockCorrection(iso(END), END + 3 * 3600 + 59)?.note.value).toMatchObject({
      reason: 'clock drift: all timestamps adjusted by 3h',
    });
  });

  it('ignores a sent_at it cannot read (a number, or text that is no time)', () => {
    expect(clockCorrection(END - DAY, END)).toBeUndefined();
    expect(clockCorrection('yesterday', END)).toBeUndefined();
    expect(normalized('yesterday', END).errors).toBeUndefined();
  });

  it('leaves a missing event timestamp at the receive time: only client times are shifted', () => {
    const event = normalizeEvent({ message: 'no time' }, { eventId: 'f'.repeat(32), receivedAt: END, sentAt: iso(END - DAY) });
    expect(event.timestamp).toBe(END);
  });
});
