import { describe, expect, it } from 'vitest';
import { TailGuard } from './tail-guard.ts';

const START = Date.UTC(2026, 0, 1, 12, 0, 0);
const second = (n: number) => START + n * 1000;

describe('the live tail guard', () => {
  it('lets a steady 100 records a second through', () => {
    const guard = new TailGuard(START);
    for (let n = 1; n <= 30; n++) expect(guard.check(second(n), 100)).toEqual({ kind: 'continue' });
  });

  it('pauses once more than 1000 records arrived within 10 s, saying how many arrived in how long', () => {
    const guard = new TailGuard(START);
    expect(guard.check(second(1), 600)).toEqual({ kind: 'continue' });
    const verdict = guard.check(second(2), 401);
    expect(verdict).toMatchObject({ kind: 'paused', records: 1001, seconds: 2 });
    expect(verdict.kind === 'paused' && verdict.message).toBe(
      'Paused: 1,001 records arrived in 2 s; the live tail shows at most 1,000 in 10 s (100 a second). Narrow the filters, or resume to go on from now.',
    );
  });

  it('takes the batches an SDK sends every 5 s at a rate it can show', () => {
    // 25 lines a second, sent 125 at a time: measured a poll at a time, 125 in 1 s paused the tail.
    const guard = new TailGuard(START);
    for (let n = 1; n <= 60; n++) expect(guard.check(second(n), n % 5 === 0 ? 125 : 0)).toEqual({ kind: 'continue' });
  });

  it('says "more than" when the poll stopped reading once it had enough to pause', () => {
    const guard = new TailGuard(START);
    const verdict = guard.check(second(1), 1001, true);
    expect(verdict.kind === 'paused' && verdict.message).toMatch(/^Paused: more than 1,001 records arrived in 1 s;/);
  });

  it('counts only the polls of the last 10 s', () => {
    const guard = new TailGuard(START);
    expect(guard.check(second(1), 900)).toEqual({ kind: 'continue' });
    // The 900 of 10 s ago no longer count.
    expect(guard.check(second(11), 900)).toEqual({ kind: 'continue' });
    expect(guard.check(second(12), 101)).toMatchObject({ kind: 'paused', records: 1001, seconds: 10 });
  });

  it('stops after 10 minutes, saying it ran 10 minutes', () => {
    const guard = new TailGuard(START);
    expect(guard.check(second(599), 0)).toEqual({ kind: 'continue' });
    const verdict = guard.check(second(600), 0);
    expect(verdict).toMatchObject({ kind: 'stopped', minutes: 10 });
    expect(verdict.kind === 'stopped' && verdict.message).toBe(
      'Stopped: the live tail ran for 10 minutes, its longest. Start again to go on from now.',
    );
  });

  it('takes other limits', () => {
    const guard = new TailGuard(START, { maxRecordsPerSecond: 5, maxDurationMs: 60_000, rateWindowMs: 1000 });
    expect(guard.check(second(1), 6)).toMatchObject({ kind: 'paused', records: 6 });
    expect(guard.check(second(60), 0)).toMatchObject({
      kind: 'stopped',
      minutes: 1,
      message: expect.stringContaining('1 minute,'),
    });
  });
});
