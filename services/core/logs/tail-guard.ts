// The guards of a live tail (the dashboard's /logs/live stream): a tail shows a person what
// arrives as it arrives, so it pauses when more arrives than anyone can read (above 100 records
// a second) and ends after 10 minutes, so a forgotten tab does not poll the log store forever.
// Pure: the stream hands it the time and how many new records each poll found.
import { plural } from '../plural.ts';

export interface TailLimits {
  maxRecordsPerSecond: number;
  maxDurationMs: number;
}

export const TAIL_LIMITS: TailLimits = { maxRecordsPerSecond: 100, maxDurationMs: 10 * 60_000 };

export type TailVerdict =
  | { kind: 'continue' }
  | { kind: 'paused'; records: number; seconds: number; message: string }
  | { kind: 'stopped'; minutes: number; message: string };

export class TailGuard {
  private lastCheck: number;

  constructor(
    private readonly startedAt: number,
    private readonly limits: TailLimits = TAIL_LIMITS,
  ) {
    this.lastCheck = startedAt;
  }

  /**
   * After a poll that found `records` new records at time `now` (ms): whether the tail goes on.
   * The rate is over the time since the previous poll, and never over less than a second, so
   * polls that come early do not make a trickle look like a flood. `more`: the poll stopped
   * reading once it had enough to pause, so `records` is a lower bound.
   */
  check(now: number, records: number, more = false): TailVerdict {
    const elapsedMs = Math.max(now - this.lastCheck, 1000);
    this.lastCheck = now;
    if (now - this.startedAt >= this.limits.maxDurationMs) {
      const minutes = Math.round(this.limits.maxDurationMs / 60_000);
      return {
        kind: 'stopped',
        minutes,
        message: `Stopped: the live tail ran for ${plural(minutes, 'minute')}, its longest. Start again to go on from now.`,
      };
    }
    const seconds = Math.round(elapsedMs / 100) / 10;
    if (records / (elapsedMs / 1000) > this.limits.maxRecordsPerSecond) {
      return {
        kind: 'paused',
        records,
        seconds,
        message:
          `Paused: ${more ? 'more than ' : ''}${plural(records, 'record')} arrived in ${seconds} s, more than ${this.limits.maxRecordsPerSecond} a second ` +
          'can be read live. Narrow the filters, or resume to go on from now.',
      };
    }
    return { kind: 'continue' };
  }
}
