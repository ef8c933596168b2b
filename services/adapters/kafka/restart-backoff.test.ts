import { describe, expect, it } from 'vitest';
import { RestartBackoff } from './restart-backoff.ts';

describe('RestartBackoff', () => {
  it('waits longer after each consumer that failed soon after joining, up to 5 s', () => {
    let now = 0;
    const backoff = new RestartBackoff(() => now);
    const waits = [];
    for (let i = 0; i < 7; i++) {
      backoff.joined(); // before, a join started the waits over: 0.5 s each, for good
      now += 2_000;
      waits.push(backoff.ended());
      now += waits.at(-1)!;
    }
    expect(waits).toEqual([500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000]);
  });

  it('starts over once a consumer stayed in the group 30 s', () => {
    let now = 0;
    const backoff = new RestartBackoff(() => now);
    for (let i = 0; i < 3; i++) backoff.ended(); // never joined: the broker is away
    backoff.joined();
    now += 29_000;
    expect(backoff.ended()).toBe(4_000);
    backoff.joined();
    now += 30_000;
    expect(backoff.ended()).toBe(500);
    // A rebalance later joins again: the consumer has stayed since its first join all the same.
    backoff.ended();
    backoff.joined();
    now += 40_000;
    backoff.joined();
    now += 1_000;
    expect(backoff.ended()).toBe(500);
  });
});
