import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../core/errors.ts';
import { ChunkQuota, MIN_CHUNK_COST } from './chunk-quota.ts';

const project = { id: 1, slug: 'web' };
const MiB = 1024 * 1024;

describe('chunk quota', () => {
  it('counts stored chunks per project, at least MIN_CHUNK_COST each, and refuses what would pass the cap', () => {
    let now = 1_000_000_000;
    const quota = new ChunkQuota(MiB, () => now);
    quota.charge(project, 10);
    expect(quota.used(1)).toBe(MIN_CHUNK_COST);
    quota.charge(project, 512 * 1024);
    expect(() => quota.charge(project, 512 * 1024)).toThrow(RateLimitedError);
    expect(quota.used(1)).toBe(MIN_CHUNK_COST + 512 * 1024);
    // Another project has its own.
    quota.charge({ id: 2, slug: 'shop' }, 900 * 1024);
    // The refusal names the setting and says when there is room again: once the first chunk's
    // minute is two hours old (the longest a chunk lives).
    now += 30_000;
    const refusal = (() => {
      try {
        quota.charge(project, 512 * 1024);
      } catch (error) {
        return error as RateLimitedError;
      }
    })();
    expect(refusal?.message).toMatch(/project "web" .* ERRATA_UPLOAD_CHUNK_BYTES_PER_PROJECT allows 1048576/);
    expect(refusal?.retryAfterSeconds).toBeGreaterThan(2 * 3600 - 60);
    expect(refusal?.retryAfterSeconds).toBeLessThanOrEqual(2 * 3600);
    now += refusal!.retryAfterSeconds * 1000;
    expect(quota.used(1)).toBe(0);
    quota.charge(project, 512 * 1024);
  });

  it('check() refuses a project with no room for even the smallest chunk', () => {
    const quota = new ChunkQuota(MiB, () => 0);
    quota.check(project);
    quota.charge(project, MiB - MIN_CHUNK_COST);
    quota.check(project);
    quota.charge(project, 1);
    expect(() => quota.check(project)).toThrow(/ERRATA_UPLOAD_CHUNK_BYTES_PER_PROJECT/);
  });
});
