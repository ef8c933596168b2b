import { describe, expect, it } from 'vitest';
import { formatRateLimitHeader, RateLimiter } from './rate-limit.ts';

describe('RateLimiter', () => {
  it('allows up to a minute of quota at once, then refuses with the wait until refill', () => {
    const limiter = new RateLimiter();
    const t0 = 1_000_000;
    for (let i = 0; i < 60; i++) expect(limiter.take('p1', 60, 1, t0).allowed).toBe(true);
    const refused = limiter.take('p1', 60, 1, t0);
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.take('p1', 60, 1, t0 + 1000).allowed).toBe(true);
  });

  it('keeps projects apart', () => {
    const limiter = new RateLimiter();
    expect(limiter.take('a', 1, 1, 0).allowed).toBe(true);
    expect(limiter.take('a', 1, 1, 0).allowed).toBe(false);
    expect(limiter.take('b', 1, 1, 0).allowed).toBe(true);
  });

  it('computes the wait for a batch larger than what is left', () => {
    const limiter = new RateLimiter();
    expect(limiter.take('p', 600, 600, 0).allowed).toBe(true);
    // 10 per second refill: 50 items need 5 seconds.
    expect(limiter.take('p', 600, 50, 0)).toEqual({ allowed: false, retryAfterSeconds: 5 });
  });

  it('lets a batch larger than a minute of quota through once the bucket is full, then owes the rest', () => {
    const limiter = new RateLimiter();
    expect(limiter.take('p', 60, 1, 0).allowed).toBe(true);
    // Not full: 59 of 60. The wait is until it is full again.
    expect(limiter.take('p', 60, 150, 0)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.take('p', 60, 150, 1000).allowed).toBe(true);
    // 90 owed beyond the minute's 60: one more item waits 91 seconds.
    expect(limiter.take('p', 60, 1, 1000)).toEqual({ allowed: false, retryAfterSeconds: 91 });
  });

  it('refuses everything when the limit is zero', () => {
    expect(new RateLimiter().take('p', 0, 1, 0)).toEqual({ allowed: false, retryAfterSeconds: 60 });
  });
});

describe('formatRateLimitHeader', () => {
  it('writes the header SDKs parse', () => {
    expect(formatRateLimitHeader([{ retryAfterSeconds: 60, categories: [] }])).toBe('60::project:project_quota');
    expect(
      formatRateLimitHeader([
        { retryAfterSeconds: 5, categories: ['error', 'default'] },
        { retryAfterSeconds: 9, categories: ['log_item'] },
      ]),
    ).toBe('5:error;default:project:project_quota, 9:log_item:project:project_quota');
  });
});
