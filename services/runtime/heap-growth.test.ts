import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { heapGrowingPercentFor } from './heap-growth.ts';

const MIB = 2 ** 20;
const MODULE = fileURLToPath(new URL('./heap-growth.ts', import.meta.url));

/**
 * Full collections in a child process with a 256 MB heap (what Node gives a pod with a 512Mi
 * limit or less) while it keeps up to half a million small objects and replaces them over and
 * over, after calling applyHeapGrowingPercent with `configured` once started, as a role does.
 */
function fullCollections(configured: number | undefined): { percent: number | null; full: number } {
  const script = `
    const { PerformanceObserver, constants } = await import('node:perf_hooks');
    const { applyHeapGrowingPercent } = await import(${JSON.stringify(MODULE)});
    const percent = applyHeapGrowingPercent(${JSON.stringify(configured ?? null)} ?? undefined);
    let full = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
    }).observe({ entryTypes: ['gc'] });
    let kept = [];
    for (let i = 0; i < 4e6; i++) {
      kept.push({ i, text: 'event ' + i });
      if (kept.length > 5e5) kept = kept.slice(2.5e5);
    }
    setTimeout(() => console.log(JSON.stringify({ percent: percent ?? null, full })), 50);
  `;
  const args = ['--max-old-space-size=256', '--import', 'tsx', '--input-type=module', '-e', script];
  const run = spawnSync(process.execPath, args, { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout);
}

describe("a distributed role's heap growing factor", () => {
  it("is 4 under a 2 GiB heap limit and V8's own from there, unless configured", () => {
    expect(heapGrowingPercentFor(259 * MIB, undefined)).toBe(300);
    expect(heapGrowingPercentFor(524 * MIB, undefined)).toBe(300);
    // An old generation just under 2 GiB (a pod limit just under 4 GiB), with 16 MiB semi-spaces.
    expect(heapGrowingPercentFor(2095 * MIB, undefined)).toBe(300);
    expect(heapGrowingPercentFor(2096 * MIB, undefined)).toBeUndefined();
    expect(heapGrowingPercentFor(4144 * MIB, undefined)).toBeUndefined();
    // ERRATA_HEAP_GROWING_PERCENT: 0 leaves V8's own, any other value applies at every size.
    expect(heapGrowingPercentFor(524 * MIB, 0)).toBeUndefined();
    expect(heapGrowingPercentFor(4144 * MIB, 100)).toBe(100);
  });

  it('takes effect when set in a running process: far fewer full collections', () => {
    const own = fullCollections(0);
    const grown = fullCollections(undefined);
    expect(own.percent).toBeNull();
    expect(grown.percent).toBe(300);
    expect(own.full).toBeGreaterThan(0);
    expect(grown.full).toBeLessThan(own.full * 0.6);
  });
});
