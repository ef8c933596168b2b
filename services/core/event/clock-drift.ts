// Clock-drift correction (dispatcher, inside normalization), as Sentry's Relay does it
// (relay-event-normalization clock_drift.rs, ClockDriftProcessor): the envelope header's
// `sent_at` is the SDK's clock when it sent; the difference to when ingest received the
// envelope is the client's drift. Below 55 minutes it is latency or ordinary skew and nothing
// changes; from 55 minutes on (a wrong time zone, a clock set a day off) every timestamp of
// the event is shifted by it, either way, and a note on the event says by how much.
import type { NormalizationNote } from './coerce.ts';
import { parseTimestamp, toIso } from './timestamp.ts';

/** Relay's MINIMUM_CLOCK_DRIFT: 55 minutes, compared in whole seconds. */
const MINIMUM_DRIFT_SECONDS = 55 * 60;

interface ClockCorrection {
  /** Seconds to add to every client timestamp (negative when the client's clock runs ahead). */
  drift: number;
  note: NormalizationNote;
}

/**
 * The correction for an envelope sent at `sentAt` (its header's value, as sent) and received at
 * `receivedAt` (seconds since the epoch), or undefined when none applies: no or unreadable
 * `sent_at`, or a drift under 55 minutes.
 */
export function clockCorrection(sentAt: unknown, receivedAt: number): ClockCorrection | undefined {
  // Relay reads sent_at as an RFC 3339 string; a number is not a time it would take.
  const sent = typeof sentAt === 'string' ? parseTimestamp(sentAt) : undefined;
  if (sent === undefined) return undefined;
  const drift = receivedAt - sent;
  if (Math.abs(Math.trunc(drift)) < MINIMUM_DRIFT_SECONDS) return undefined;
  return {
    drift,
    note: {
      type: 'invalid_data',
      name: 'timestamp',
      value: {
        reason: `clock drift: all timestamps adjusted by ${humanDuration(drift)}`,
        sdk_time: toIso(sent),
        server_time: toIso(receivedAt),
      },
    },
  };
}

/** Days when at least one, else hours, else seconds, as Relay words the note. */
function humanDuration(seconds: number): string {
  const days = Math.trunc(seconds / 86_400);
  if (Math.abs(days) === 1) return `${days} day`;
  if (days !== 0) return `${days} days`;
  const hours = Math.trunc(seconds / 3600);
  return hours !== 0 ? `${hours}h` : `${Math.trunc(seconds)}s`;
}
