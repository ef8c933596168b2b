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
});
