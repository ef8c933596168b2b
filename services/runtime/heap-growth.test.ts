import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { heapGrowingPercentFor, SMALL_HEAP_GROWING_PERCENT } from './heap-growth.ts';

const MIB = 2 ** 20;

/**
 * Full collections in a child process with a 256 MB heap (what Node gives a pod with a 1 GiB
 * limit) while it keeps up to half a million small objects and replaces them over and over; the
 * growing percent is set after start, the way a role sets it.
 */
function fullCollections(growingPercent: number | undefined): number {
  const script = `
    const v8 = require('node:v8');
    const { PerformanceObserver, constants } = require('node:perf_hooks');
    if (${growingPercent ?? 0} > 0) v8.setFlagsFromString('--heap-growing-percent=${growingPercent}');
    let full = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
    }).observe({ entryTypes: ['gc'] });
    let kept = [];
    for (let i = 0; i < 4e6; i++) {
      kept.push({ i, text: 'event ' + i });
      if (kept.length > 5e5) kept = kept.slice(2.5e5);
    }
    setTimeout(() => console.log(full), 50);
  `;
  const run = spawnSync(process.execPath, ['--max-old-space-size=256', '-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return Number(run.stdout);
}

describe("a small heap's growing factor", () => {
  it("is set to V8's highest under a 2 GiB heap limit, and left to V8 from there", () => {
    expect(heapGrowingPercentFor(304 * MIB)).toBe(300);
    expect(heapGrowingPercentFor(560 * MIB)).toBe(300);
    expect(heapGrowingPercentFor(2047 * MIB)).toBe(300);
    expect(heapGrowingPercentFor(2048 * MIB)).toBeUndefined();
    expect(heapGrowingPercentFor(4144 * MIB)).toBeUndefined();
  });

  it('takes effect when set in a running process: far fewer full collections', () => {
    const own = fullCollections(undefined);
    const grown = fullCollections(SMALL_HEAP_GROWING_PERCENT);
    expect(own).toBeGreaterThan(0);
    expect(grown).toBeLessThan(own * 0.6);
  });
});
