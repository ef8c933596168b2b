// How the ClickHouse stores keep the port's float seconds: exact time as integer microseconds
// (Int64; 18.16 has no DateTime64), plus whole seconds in a DateTime that only serves to
// partition by day. Integers avoid float text parsing, which older servers do not round exactly.

const DATETIME_MAX = 4_294_967_295;

/** Float seconds to integer microseconds, the precision Postgres keeps too. */
export function toMicros(seconds: number): number {
  const micros = Math.round(seconds * 1_000_000);
  if (!Number.isSafeInteger(micros)) throw new Error(`timestamp ${seconds} is out of range`);
  return micros;
}

/**
 * A query bound in microseconds. Bounds come from any date Date.parse reads (the Logs page's
 * `from` and `to`, search_logs'), and those past 2255 or before 1685 are beyond a safe integer of
 * microseconds. Stored rows are within it (toMicros above), so the nearest safe integer matches
 * the same rows as the bound given.
 */
export function boundMicros(seconds: number): number {
  return Math.min(Number.MAX_SAFE_INTEGER, Math.max(Number.MIN_SAFE_INTEGER, Math.round(seconds * 1_000_000)));
}

/** Back to float seconds; 64-bit integers arrive as strings from 18.16 and as numbers from newer servers. */
export function fromMicros(micros: string | number): number {
  return Number(micros) / 1_000_000;
}

/**
 * The whole second of a time in microseconds, for a DateTime column: derived from the micros (not
 * the float) so that a bound on one column always implies the same bound on the other. Clamped to
 * DateTime's range (1970 to 2106), so that no row can fail an INSERT.
 */
export function dateTimeOfMicros(micros: number): number {
  return Math.min(DATETIME_MAX, Math.max(0, Math.floor(micros / 1_000_000)));
}
