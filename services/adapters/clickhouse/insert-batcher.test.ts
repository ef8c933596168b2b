// The batching rules on their own (the ClickHouse suites check them again against real servers):
// size and time bounds, splitting, and that each caller settles with the INSERTs of its rows.
import { describe, expect, it } from 'vitest';
import { FirstWriteVersions, firstOfEach } from './first-write-wins.ts';
import { InsertBatcher, type BatchReport } from './insert-batcher.ts';
import { UnavailableError } from '../../core/errors.ts';

function recorder(fail: (rows: number[]) => boolean = () => false) {
  const writes: number[][] = [];
  const reports: BatchReport[] = [];
  const write = async (rows: number[]) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    writes.push(rows);
    if (fail(rows)) throw new Error('insert failed');
  };
  return { writes, reports, write, report: (r: BatchReport) => reports.push(r) };
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('InsertBatcher', () => {
  it('coalesces the calls of one wait window into one write, in order', async () => {
    const r = recorder();
    const batcher = new InsertBatcher(r.write, { maxRows: 100, maxWaitMs: 200 }, r.report);
    await batcher.add([0]); // starts a window
    const calls = [batcher.add([1, 2])];
    await new Promise((resolve) => setTimeout(resolve, 5));
    calls.push(batcher.add([3]), batcher.add([4, 5, 6]));
    await Promise.all(calls);
    expect(r.writes).toEqual([[0], [1, 2, 3, 4, 5, 6]]);
    expect(r.reports).toEqual([
      { rows: 1, seconds: expect.any(Number) },
      { rows: 6, seconds: expect.any(Number) },
    ]);
  });

  it('starts an INSERT at once after a quiet spell, and the next no sooner than maxWaitMs after it', async () => {
    const r = recorder();
    const batcher = new InsertBatcher(r.write, { maxRows: 100, maxWaitMs: 60_000 });
    await batcher.add([1]);
    const second = batcher.add([2]);
    const third = batcher.add([3]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(r.writes).toEqual([[1]]);
    await batcher.flush();
    await Promise.all([second, third]);
    expect(r.writes).toEqual([[1], [2, 3]]);
  });

  it('sends as soon as maxRows rows are waiting, without waiting for the timer', async () => {
    const r = recorder();
    const batcher = new InsertBatcher(r.write, { maxRows: 3, maxWaitMs: 60_000 });
    await batcher.add([0]); // starts a window of a minute
    await Promise.all([batcher.add([1, 2]), batcher.add([3])]);
    expect(r.writes).toEqual([[0], [1, 2, 3]]);
  });

  it('splits a call over several writes and resolves it after the last', async () => {
    const r = recorder();
    const batcher = new InsertBatcher(r.write, { maxRows: 4, maxWaitMs: 10 });
    let settled = false;
    const big = batcher.add(range(0, 10)).then(() => (settled = true));
    const small = batcher.add([100]);
    await Promise.all([big, small]);
    expect(settled).toBe(true);
    expect(r.writes).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9, 100],
    ]);
  });

  it("caps a write at maxBytes by the rows' sizes, sending a row larger than that alone", async () => {
    const r = recorder();
    // A row's size is its value: 40 + 40 fit in 100, a third 40 does not.
    const batcher = new InsertBatcher(r.write, { maxBytes: 100, maxWaitMs: 10 }, r.report, (row) => row);
    await Promise.all([batcher.add([40, 40, 40]), batcher.add([150, 10]), batcher.add([30, 30])]);
    expect(r.writes).toEqual([[40, 40], [40], [150], [10, 30, 30]]);
  });

  it('rejects the callers of a failed write, and only them', async () => {
    const r = recorder((rows) => rows.includes(13));
    const batcher = new InsertBatcher(r.write, { maxRows: 2, maxWaitMs: 10 }, r.report);
    const results = await Promise.allSettled([batcher.add([11, 12]), batcher.add([13, 14]), batcher.add([15, 16])]);
    expect(results.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(r.reports.map((x) => x.error !== undefined)).toEqual([false, true, false]);
  });

  it("tries again, caller by caller, an INSERT refused for one caller's row: only that caller fails", async () => {
    const r = recorder((rows) => rows.includes(13));
    const batcher = new InsertBatcher(r.write, { maxRows: 100, maxWaitMs: 10 }, r.report);
    const results = await Promise.allSettled([batcher.add([11, 12]), batcher.add([13, 14]), batcher.add([15, 16])]);
    // All three shared one INSERT, which failed for 13: the other two callers were rejected too.
    expect(results.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(r.writes).toEqual([
      [11, 12, 13, 14, 15, 16],
      [11, 12],
      [13, 14],
      [15, 16],
    ]);
    expect(r.reports.map((x) => x.error !== undefined)).toEqual([true, false, true, false]);
  });

  it('does not try an INSERT again caller by caller when the store is unavailable', async () => {
    const write = async (rows: number[]) => {
      writes.push(rows);
      throw new UnavailableError('the event store (ClickHouse) is unavailable: retry later');
    };
    const writes: number[][] = [];
    const batcher = new InsertBatcher(write, { maxRows: 100, maxWaitMs: 10 });
    const results = await Promise.allSettled([batcher.add([1]), batcher.add([2])]);
    expect(results.map((x) => x.status)).toEqual(['rejected', 'rejected']);
    expect(writes).toEqual([[1, 2]]);
  });

  it('rejects a split call when any of its writes fails', async () => {
    const r = recorder((rows) => rows.includes(5));
    const batcher = new InsertBatcher(r.write, { maxRows: 3, maxWaitMs: 10 });
    // Rejected as soon as one part fails; the other parts still go (rows are idempotent).
    await expect(batcher.add(range(0, 9))).rejects.toThrow('insert failed');
    await batcher.flush();
    expect(r.writes).toHaveLength(3);
  });

  it('is not disturbed by a report hook that throws', async () => {
    const r = recorder();
    const batcher = new InsertBatcher(r.write, { maxWaitMs: 0 }, () => {
      throw new Error('metrics broken');
    });
    await expect(batcher.add([1])).resolves.toBeUndefined();
  });

  it('writes nothing for an empty call', async () => {
    const r = recorder();
    await new InsertBatcher(r.write).add([]);
    expect(r.writes).toEqual([]);
  });

  it('flush() sends what waits; close() then refuses more', async () => {
    const r = recorder();
    const batcher = new InsertBatcher(r.write, { maxWaitMs: 60_000 });
    await batcher.add([0]); // starts a window of a minute
    const pending = batcher.add([1]);
    await batcher.close();
    await pending;
    expect(r.writes).toEqual([[0], [1]]);
    await expect(batcher.add([2])).rejects.toThrow(/closed/);
  });

  it('refuses limits that cannot work', () => {
    const r = recorder();
    expect(() => new InsertBatcher(r.write, { maxRows: 0 })).toThrow(/maxRows/);
    expect(() => new InsertBatcher(r.write, { maxRows: 1.5 })).toThrow(/maxRows/);
    expect(() => new InsertBatcher(r.write, { maxWaitMs: -1 })).toThrow(/maxWaitMs/);
  });
});

describe('first write wins', () => {
  it('gives every later INSERT a smaller version, also within one millisecond', () => {
    const versions = new FirstWriteVersions();
    const seen = [versions.next(1_000), versions.next(1_000), versions.next(999), versions.next(2_000)];
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
    expect(new Set(seen).size).toBe(4);
    expect(seen.every((v) => Number.isSafeInteger(v) && v > 0)).toBe(true);
    expect(new FirstWriteVersions().next()).toBeGreaterThan(0);
  });

  it('keeps the first row of each key', () => {
    expect(firstOfEach(['a1', 'b1', 'a2', 'c1', 'b2'], (s) => s[0]!)).toEqual(['a1', 'b1', 'c1']);
  });
});
