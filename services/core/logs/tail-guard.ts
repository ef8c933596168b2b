// The guards of a live tail (the dashboard's /logs/live stream): a tail shows a person what
// arrives as it arrives, so it pauses when more arrives than anyone can read (above 100 records
// a second, over 10 s) and ends after 10 minutes, so a forgotten tab does not poll the log store forever.
// Pure: the stream hands it the time and how many new records each poll found.
import { plural } from '../plural.ts';

export interface TailLimits {
  maxRecordsPerSecond: number;
  maxDurationMs: number;
  /** The stretch the rate is measured over (default RATE_WINDOW_MS). */
  rateWindowMs?: number;
}

/**
 * The rate is over the last 10 s, not one poll: SDKs send logs in batches (`@sentry/node` every
 * 5 s), so one poll finds 5 s of records at once, and an app logging 25 lines a second paused a
 * tail measured a poll at a time.
 */
const RATE_WINDOW_MS = 10_000;

export const TAIL_LIMITS: TailLimits = { maxRecordsPerSecond: 100, maxDurationMs: 10 * 60_000 };

export type TailVerdict =
  | { kind: 'continue' }
  | { kind: 'paused'; records: number; seconds: number; message: string }
  | { kind: 'stopped'; minutes: number; message: string };

export class TailGuard {
  /** The polls of the last rate window: when each ran, and how many new records it found. */
  private recent: Array<{ at: number; records: number }> = [];
  private readonly windowMs: number;

  constructor(
    private readonly startedAt: number,
    private readonly limits: TailLimits = TAIL_LIMITS,
  ) {
    this.windowMs = limits.rateWindowMs ?? RATE_WINDOW_MS;
  }

  /** More records than this within the rate window pause the tail: a poll need not read past it. */
  get budget(): number {
    return Math.round((this.limits.maxRecordsPerSecond * this.windowMs) / 1000);
  }

  /**
   * After a poll that found `records` new records at time `now` (ms): whether the tail goes on.
   * It pauses once the polls of the last rate window found more than its budget. `more`: the
   * poll stopped reading once it had enough to pause, so `records` is a lower bound.
   */
  check(now: number, records: number, more = false): TailVerdict {
    if (now - this.startedAt >= this.limits.maxDurationMs) {
      const minutes = Math.round(this.limits.maxDurationMs / 60_000);
      return {
        kind: 'stopped',
        minutes,
        message: `Stopped: the live tail ran for ${plural(minutes, 'minute')}, its longest. Start again to go on from now.`,
      };
    }
    this.recent = this.recent.filter((poll) => now - poll.at < this.windowMs);
    this.recent.push({ at: now, records });
    const counted = this.recent.reduce((sum, poll) => sum + poll.records, 0);
    if (counted > this.budget) {
      // Over the time they arrived in: the window, or less when the tail is younger.
      const seconds = Math.max(1, Math.round(Math.min(this.windowMs, now - this.startedAt) / 100) / 10);
      const windowSeconds = Math.round(this.windowMs / 100) / 10;
      return {
        kind: 'paused',
        records: counted,
        seconds,
        message:
          `Paused: ${more ? 'more than ' : ''}${counted.toLocaleString('en-US')} record${counted === 1 ? '' : 's'} arrived in ${seconds} s; ` +
          `the live tail shows at most ${this.budget.toLocaleString('en-US')} in ${windowSeconds} s (${this.limits.maxRecordsPerSecond} a second). ` +
          'Narrow the filters, or resume to go on from now.',
      };
    }
    return { kind: 'continue' };
  }
}
