// What a receiver's answer means for a delivery (SPEC §7), and when to try again.
//   2xx within the deadline: delivered.  429, 5xx, a timeout, a connection error: retried.
//   Any other status, redirects included (they are not followed): failed for good.
//   A URL refused before any connection (not https://, a refused IP literal): failed for good,
//   since its next attempt would be refused the same way (dispatcher/webhook-sender.ts).
// Retries back off exponentially with jitter: the n-th retry waits base * 4^(n-1), at most six
// hours, times a random factor in [0.8, 1.2). With the default base of 30 s the eight attempts
// are at about 0, 30 s, 2.5 min, 10.5 min, 42.5 min, 2.8 h, 8.8 h and 14.8 h; then the delivery
// fails.

/** The receiver must answer within this many milliseconds (SPEC §8). */
export const DELIVERY_DEADLINE_MS = 10_000;
export const MAX_ATTEMPTS = 8;
const MAX_DELAY_MS = 6 * 3_600_000;

export type AttemptVerdict = 'delivered' | 'retry' | 'failed';

/** An HTTP status, or undefined when there was none (timeout, refused connection, TLS error). */
export function verdictOf(status: number | undefined): AttemptVerdict {
  if (status === undefined || status === 429 || status >= 500) return 'retry';
  if (status >= 200 && status < 300) return 'delivered';
  return 'failed';
}

/** Milliseconds to wait after the `attempts`-th failed attempt; undefined when none is left. */
export function retryDelayMs(attempts: number, baseMs: number, random: () => number = Math.random): number | undefined {
  if (attempts >= MAX_ATTEMPTS) return undefined;
  const delay = Math.min(MAX_DELAY_MS, baseMs * 4 ** (attempts - 1));
  return Math.round(delay * (0.8 + 0.4 * random()));
}
