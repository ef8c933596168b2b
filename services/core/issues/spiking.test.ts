import { describe, expect, it } from 'vitest';
import { findSpikes } from './spiking.ts';

describe('findSpikes', () => {
  it('needs 3x the baseline average and at least 10 events', () => {
    const current = new Map([
      [1, 10], // no baseline: a spike
      [2, 9], // too few
      [3, 30], // baseline 240 over 24 windows = 10 per window: exactly 3x
      [4, 29], // just under 3x
    ]);
    const baseline = new Map([
      [3, 240],
      [4, 240],
    ]);
    expect(findSpikes(current, baseline).map((s) => s.issueId)).toEqual([1, 3]);
    expect(findSpikes(current, baseline).find((s) => s.issueId === 3)?.baselineAverage).toBe(10);
  });

  it('averages over the windows there is history for', () => {
    // 240 events over 8 windows is 30 per window: 30 events now is no spike.
    expect(findSpikes(new Map([[1, 30]]), new Map([[1, 240]]), 8)).toEqual([]);
    expect(findSpikes(new Map([[1, 90]]), new Map([[1, 240]]), 8).map((s) => s.baselineAverage)).toEqual([30]);
    expect(findSpikes(new Map([[1, 10]]), new Map(), 0).map((s) => s.issueId)).toEqual([1]);
  });
});
