import { describe, expect, it } from 'vitest';
import { TailGuard } from './tail-guard.ts';

const START = Date.UTC(2026, 0, 1, 12, 0, 0);
const second = (n: number) => START + n * 1000;

describe('the live tail guard', () => {
  it('lets a steady 100 records a second through', () => {
    const guard = new TailGuard(START);
    for (let n = 1; n <= 30; n++) expect(guard.check(second(n), 100)).toEqual({ kind: 'continue' });
  });

  it('pauses above 100 records a second, saying how many arrived in how long', () => {
    const guard = new TailGuard(START);
    expect(guard.check(second(1), 20)).toEqual({ kind: 'continue' });
    const verdict = guard.check(second(2), 101);
    expect(verdict).toMatchObject({ kind: 'paused', records: 101, seconds: 1 });
    expect(verdict.kind === 'paused' && verdict.message).toBe(
      'Paused: 101 records arrived in 1 s, more than 100 a second can be read live. Narrow the filters, or resume to go on from now.',
    );
  });

  it('says "more than" when the poll stopped reading once it had enough to pause', () => {
    const guard = new TailGuard(START);
    const verdict = guard.check(second(1), 201, true);
    expect(verdict.kind === 'paused' && verdict.message).toMatch(/^Paused: more than 201 records arrived in 1 s,/);
  });

  it('measures the rate over the time since the last poll, so a slow poll is not a flood', () => {
    const guard = new TailGuard(START);
    // 250 records over 2.5 s is 100 a second: not above the limit.
    expect(guard.check(second(2.5), 250)).toEqual({ kind: 'continue' });
    // 251 over 2.5 s is.
    expect(guard.check(second(5), 251)).toMatchObject({ kind: 'paused', records: 251, seconds: 2.5 });
  });

  it('counts an early poll as a whole second', () => {
    const guard = new TailGuard(START);
    expect(guard.check(second(0.1), 100)).toEqual({ kind: 'continue' });
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
    const guard = new TailGuard(START, { maxRecordsPerSecond: 5, maxDurationMs: 60_000 });
    expect(guard.check(second(1), 6)).toMatchObject({ kind: 'paused', records: 6 });
    expect(guard.check(second(60), 0)).toMatchObject({ kind: 'stopped', minutes: 1, message: expect.stringContaining('1 minute,') });
  });
});
