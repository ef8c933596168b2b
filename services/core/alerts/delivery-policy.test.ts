import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, retryDelayMs, verdictOf } from './delivery-policy.ts';

describe('delivery policy', () => {
  it('2xx delivers; 429, 5xx and no answer retry; other statuses, redirects included, fail', () => {
    expect([200, 201, 204, 299].map(verdictOf)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
    expect([429, 500, 502, 503, 599, undefined].map(verdictOf)).toEqual(Array(6).fill('retry'));
    expect([301, 302, 307, 400, 401, 404, 410, 418].map(verdictOf)).toEqual(Array(8).fill('failed'));
  });

  it('backs off by 4x from the base with ±20% jitter, capped at six hours, then gives up', () => {
    const exact = (attempts: number) => retryDelayMs(attempts, 30_000, () => 0.5);
    expect([1, 2, 3, 4, 5, 6, 7].map(exact)).toEqual([30_000, 120_000, 480_000, 1_920_000, 7_680_000, 21_600_000, 21_600_000]);
    expect(retryDelayMs(1, 30_000, () => 0)).toBe(24_000);
    expect(retryDelayMs(1, 30_000, () => 0.999999)).toBeCloseTo(36_000, -1);
    expect(retryDelayMs(MAX_ATTEMPTS, 30_000)).toBeUndefined();
  });
});
