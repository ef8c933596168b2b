// Per-project rate limits for ingest: a token bucket per (project, category) that refills
// continuously at `perMinute / 60` per second, holding at most one minute's worth (and owing
// what a batch larger than that took beyond it). Kept in
// memory of each ingest process; a limited request is answered 429 with the headers SDKs obey.

interface RateLimitDecision {
  allowed: boolean;
  /** Whole seconds until one more item would be allowed (0 when allowed). */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  /** `now` in milliseconds; passed in so tests control time. */
  take(key: string, perMinute: number, quantity: number, now: number): RateLimitDecision {
    if (perMinute <= 0) return { allowed: false, retryAfterSeconds: 60 };
    const capacity = perMinute;
    const ratePerMs = perMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: capacity, updatedAt: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + Math.max(0, now - bucket.updatedAt) * ratePerMs);
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    // A batch larger than a minute's quota (a log item of 1,500 records under a limit of 1,000)
    // could never find that many tokens, and its SDK would send it again without end: it is let
    // through once the bucket is full, and the bucket goes into debt for the rest, so the rate
    // over time still holds.
    if (bucket.tokens >= Math.min(quantity, capacity)) {
      bucket.tokens -= quantity;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    const missing = Math.min(quantity, capacity) - bucket.tokens;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(missing / ratePerMs / 1000)) };
  }

  /** Gives back what take() allowed for items that were then not accepted (the queue refused them). */
  giveBack(key: string, perMinute: number, quantity: number): void {
    const bucket = this.buckets.get(key);
    if (bucket) bucket.tokens = Math.min(perMinute, bucket.tokens + quantity);
  }
}

/** `X-Sentry-Rate-Limits: <retry_after>:<categories>:<scope>:<reason>` (categories `;`-separated). */
export function formatRateLimitHeader(limits: Array<{ retryAfterSeconds: number; categories: string[] }>): string {
  return limits.map((limit) => `${limit.retryAfterSeconds}:${limit.categories.join(';')}:project:project_quota`).join(', ');
}
