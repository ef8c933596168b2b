// Timestamps arrive as RFC 3339 strings (with or without a zone; none means UTC) or as
// seconds since the epoch (int or float). Everything downstream uses float seconds.

const ISO_WITHOUT_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

// The last second a JavaScript Date can hold: a later "timestamp" (sent_at "9999999999999")
// made toIso throw, which failed whole batches in the dispatcher.
const LAST_SECOND = 8.64e12 - 1;

/** Whether a Date can hold these seconds (toISOString throws past them). */
export function withinDateRange(seconds: number): boolean {
  return Number.isFinite(seconds) && Math.abs(seconds) <= LAST_SECOND;
}

/** Seconds since the epoch, or undefined when the value is not a timestamp. */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 && value <= LAST_SECOND ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return parseTimestamp(Number(text));
  const withZone = ISO_WITHOUT_ZONE.test(text) ? `${text}Z` : text;
  const millis = parseIsoMillis(withZone);
  return millis === undefined || Math.abs(millis / 1000) > LAST_SECOND ? undefined : millis / 1000;
}

// Date.parse keeps only milliseconds and rejects nanosecond fractions in some forms (Go sends
// nine digits), so the fraction is parsed separately and re-attached.
function parseIsoMillis(text: string): number | undefined {
  const match = /^(.*T\d{2}:\d{2}(?::\d{2})?)(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/i.exec(text);
  if (!match) return undefined;
  const [, base, fraction, zone] = match;
  const whole = Date.parse(`${base}${zone!.toUpperCase() === 'Z' ? 'Z' : normalizeZone(zone!)}`);
  if (Number.isNaN(whole)) return undefined;
  const fractionMillis = fraction ? Number(`0${fraction}`) * 1000 : 0;
  return whole + fractionMillis;
}

function normalizeZone(zone: string): string {
  return zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
}

export function toIso(seconds: number): string {
  return new Date(Math.round(seconds * 1000)).toISOString();
}

// Sentry's limits on how far a client's own clock may be trusted.
const MAX_FUTURE_SECONDS = 60;
const MAX_PAST_SECONDS = 30 * 24 * 3600;

/** Why a client timestamp should be replaced by the receive time, if it should. */
export function implausibleTimestamp(seconds: number, receivedAt: number): 'future_timestamp' | 'past_timestamp' | undefined {
  if (seconds > receivedAt + MAX_FUTURE_SECONDS) return 'future_timestamp';
  if (seconds < receivedAt - MAX_PAST_SECONDS) return 'past_timestamp';
  return undefined;
}
