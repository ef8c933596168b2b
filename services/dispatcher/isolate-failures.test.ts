import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../core/errors.ts';
import type { DeliveredRecord } from '../core/ports/queue.ts';
import { createLogger } from '../runtime/logger.ts';
import { createMetrics, outcomeRecorder } from '../runtime/metrics.ts';
import { isolateFailures } from './isolate-failures.ts';

const record = (key: string): DeliveredRecord => ({ topic: 't', partition: 0, offset: key, key, value: Buffer.from(key) });

function setup(storesUp: () => boolean) {
  const metrics = createMetrics({ processMetrics: false });
  const stored: string[] = [];
  const attempts = new Map<string, number>();
  const deps = {
    category: 'error' as const,
    storesAnswer: async () => {
      if (!storesUp()) throw new Error('store down');
    },
    outcomes: outcomeRecorder(metrics, 'dispatcher'),
    logger: createLogger('silent'),
    backoffMs: 1,
  };
  const dropped = async () =>
    (await metrics.outcomes.get()).values.find((v) => v.labels.reason === 'processing_failed')?.value ?? 0;
  return { stored, attempts, deps, dropped };
}

describe('isolateFailures', () => {
  it('stores the good records of a batch and passes over the one that can never be stored', async () => {
    const { stored, deps, dropped } = setup(() => true);
    const handler = isolateFailures(async (records) => {
      if (records.some((r) => r.key === 'poison')) throw new Error('invalid byte sequence');
      stored.push(...records.map((r) => r.key));
    }, deps);
    await handler([record('a'), record('poison'), record('b')]);
    expect(stored).toEqual(['a', 'b']);
    expect(await dropped()).toBe(1);
  });

  it('retries a record that fails once before giving up on it', async () => {
    const { stored, attempts, deps, dropped } = setup(() => true);
    const handler = isolateFailures(async (records) => {
      for (const r of records) {
        const n = (attempts.get(r.key) ?? 0) + 1;
        attempts.set(r.key, n);
        if (r.key === 'flaky' && n < 3) throw new Error('deadlock detected');
      }
      stored.push(...records.map((r) => r.key));
    }, deps);
    await handler([record('flaky')]);
    expect(stored).toEqual(['flaky']);
    expect(await dropped()).toBe(0);
  });

  it('passes the error back to the queue while the stores do not answer, dropping nothing', async () => {
    let up = false;
    const { deps, dropped } = setup(() => up);
    const handler = isolateFailures(async () => {
      if (!up) throw new Error('connection refused');
    }, deps);
    await expect(handler([record('a'), record('b')])).rejects.toThrow('connection refused');
    expect(await dropped()).toBe(0);
    up = true;
    await handler([record('a'), record('b')]);
  });

  it('hands an unavailable store back to the queue even while the ping answers, dropping nothing', async () => {
    // A read-only standby after failover, or a full disk: SELECT 1 works, writes do not.
    const { deps, dropped } = setup(() => true);
    const handler = isolateFailures(async () => {
      throw new UnavailableError('the metadata store (Postgres) is unavailable: retry later');
    }, deps);
    await expect(handler([record('a'), record('b')])).rejects.toBeInstanceOf(UnavailableError);
    expect(await dropped()).toBe(0);
  });
});
