import { describe, expect, it } from 'vitest';
import { findSpikes } from './spiking.ts';

describe('findSpikes', () => {
  it('needs 3x a non-zero baseline average and at least 10 events', () => {
    const current = new Map([
      [2, 9], // too few
      [3, 30], // baseline 240 over 24 windows = 10 per window: exactly 3x
      [4, 29], // just under 3x
      [5, 40], // baseline 24 over 24 windows = 1 per window: 40x
    ]);
    const baseline = new Map([
      [3, 240],
      [4, 240],
      [5, 24],
    ]);
    const found = findSpikes(current, baseline);
    expect(found.map((s) => [s.issueId, s.kind])).toEqual([
      [5, 'spiking'],
      [3, 'spiking'],
    ]);
    expect(found.find((s) => s.issueId === 3)?.baselineAverage).toBe(10);
  });

  it('calls 10 or more events without a baseline a burst, after the spikes, never a spike', () => {
    const current = new Map([
      [1, 10], // no events before: a burst
      [2, 9], // no events before, too few: nothing
      [3, 30], // 10 per window before: a spike
      [4, 50], // a bigger burst
    ]);
    const found = findSpikes(current, new Map([[3, 240]]));
    expect(found).toEqual([
      { issueId: 3, kind: 'spiking', count: 30, baselineAverage: 10 },
      { issueId: 4, kind: 'burst', count: 50, baselineAverage: 0 },
      { issueId: 1, kind: 'burst', count: 10, baselineAverage: 0 },
    ]);
  });

  it('averages over the windows there is history for; without history every rise is a burst', () => {
    // 240 events over 8 windows is 30 per window: 30 events now is no spike.
    expect(findSpikes(new Map([[1, 30]]), new Map([[1, 240]]), 8)).toEqual([]);
    expect(findSpikes(new Map([[1, 90]]), new Map([[1, 240]]), 8).map((s) => s.baselineAverage)).toEqual([30]);
    expect(findSpikes(new Map([[1, 10]]), new Map([[1, 240]]), 0).map((s) => s.kind)).toEqual(['burst']);
  });
});
