import { describe, expect, it } from 'vitest';
import { sourceMapCacheBudget } from './source-map-cache-budget.ts';

const MiB = 2 ** 20;

describe('the default source map cache budget', () => {
  it('is 256 MiB with a heap of Node’s usual size', () => {
    expect(sourceMapCacheBudget(4144 * MiB)).toBe(256 * MiB);
    expect(sourceMapCacheBudget(1024 * MiB)).toBe(256 * MiB);
  });

  it('leaves most of a small heap to the pipeline', () => {
    expect(sourceMapCacheBudget(304 * MiB)).toBe(114 * MiB);
    expect(sourceMapCacheBudget(256 * MiB)).toBe(96 * MiB);
  });

  it('follows this process’s own heap limit when not told', () => {
    expect(sourceMapCacheBudget()).toBeLessThanOrEqual(256 * MiB);
    expect(sourceMapCacheBudget()).toBeGreaterThan(0);
  });
});
