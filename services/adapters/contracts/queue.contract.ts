// The Queue contract: every adapter (local write-ahead log, Kafka) must pass these tests
// against the real thing. `open` returns a new client over the same storage each time, so
// restarts can be simulated; each test uses topics of its own.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveredRecord, Queue } from '../../core/ports/queue.ts';

export function describeQueueContract(name: string, open: () => Promise<Queue>): void {
  describe(`Queue contract: ${name}`, () => {
    const opened: Queue[] = [];
    async function queue(): Promise<Queue> {
      const q = await open();
      opened.push(q);
      return q;
    }
    afterEach(async () => {
      for (const q of opened.splice(0)) await q.close();
    });

    const topic = () => `test.${randomUUID().slice(0, 8)}`;
    const records = (n: number, key = 'k') =>
      Array.from({ length: n }, (_, i) => ({ key, value: Buffer.from(`message ${i} ${'x'.repeat(i % 7)}`) }));
    const text = (delivered: DeliveredRecord[]) => delivered.map((r) => r.value.toString());

    function collect(q: Queue, t: string, expected: number, options: { maxBatchSize?: number; group?: string } = {}) {
      const seen: DeliveredRecord[] = [];
      let done!: () => void;
      const finished = new Promise<void>((resolve) => (done = resolve));
      const subscription = q.subscribe(
        t,
        { group: options.group ?? 'g', maxBatchSize: options.maxBatchSize ?? 100 },
        async (batch) => {
          seen.push(...batch);
          if (seen.length >= expected) done();
        },
      );
      return { seen, finished, subscription };
    }

    it('delivers published records in order per key, in handler calls of at most maxBatchSize', async () => {
      const q = await queue();
      const t = topic();
      await q.publish(t, records(5));
      await q.publish(t, [{ key: 'other', value: Buffer.from('binary \u0000\n\u00ff') }]);
      const calls: number[] = [];
      const seen: DeliveredRecord[] = [];
      let done!: () => void;
      const finished = new Promise<void>((resolve) => (done = resolve));
      const subscription = q.subscribe(t, { group: 'g', maxBatchSize: 2 }, async (batch) => {
        calls.push(batch.length);
        seen.push(...batch);
        if (seen.length >= 6) done();
      });
      await finished;
      await subscription.stop();
      // The port promises order per key only: records of different keys may come in any order.
      expect(text(seen.filter((r) => r.key === 'k'))).toEqual(text(records(5) as DeliveredRecord[]));
      expect(text(seen.filter((r) => r.key === 'other'))).toEqual(['binary \u0000\n\u00ff']);
      expect(seen).toHaveLength(6);
      expect(calls.every((n) => n >= 1 && n <= 2)).toBe(true);
      expect(seen.every((r) => r.topic === t)).toBe(true);
    });

    it('delivers records published unordered, each once, with their keys', async () => {
      const q = await queue();
      const t = topic();
      const unordered = Array.from({ length: 12 }, (_, i) => ({ key: `item-${i}`, value: Buffer.from(`unordered ${i}`) }));
      await Promise.all([
        q.publish(t, unordered.slice(0, 6), { unordered: true }),
        q.publish(t, unordered.slice(6), { unordered: true }),
      ]);
      const { seen, finished, subscription } = collect(q, t, 12);
      await finished;
      await subscription.stop();
      expect(seen.map((r) => `${r.key}=${r.value.toString()}`).sort()).toEqual(
        unordered.map((r) => `${r.key}=${r.value.toString()}`).sort(),
      );
    });

    it('retries a batch whose handler failed, skipping nothing', async () => {
      const q = await queue();
      const t = topic();
      await q.publish(t, records(3));
      const attempts: string[][] = [];
      let done!: () => void;
      const finished = new Promise<void>((resolve) => (done = resolve));
      const subscription = q.subscribe(t, { group: 'g', maxBatchSize: 10 }, async (batch) => {
        attempts.push(text(batch));
        if (attempts.length === 1) throw new Error('store unavailable');
        done();
      });
      await finished;
      await subscription.stop();
      expect(attempts).toHaveLength(2);
      expect(attempts[1]).toEqual(attempts[0]);
    });

    it('resumes after a restart from the first record not yet handled', async () => {
      const t = topic();
      const first = await queue();
      await first.publish(t, records(6));
      const handled: string[] = [];
      let release!: () => void;
      let blocked!: () => void;
      const isBlocked = new Promise<void>((resolve) => (blocked = resolve));
      const subscription = first.subscribe(t, { group: 'g', maxBatchSize: 2 }, async (batch) => {
        if (handled.length === 2) {
          blocked();
          await new Promise<void>((resolve) => (release = resolve));
          throw new Error('process died mid-batch');
        }
        handled.push(...text(batch));
      });
      await isBlocked;
      const stopping = subscription.stop();
      release();
      await stopping;
      await first.close();
      opened.splice(opened.indexOf(first), 1);

      const second = await queue();
      const { seen, finished, subscription: again } = collect(second, t, 4);
      await finished;
      await again.stop();
      expect(handled).toEqual(text(records(6).slice(0, 2) as DeliveredRecord[]));
      expect(text(seen)).toEqual(text(records(6).slice(2) as DeliveredRecord[]));
    });

    it('drains everything published before stopping when asked to', async () => {
      const q = await queue();
      const t = topic();
      await q.publish(t, records(20));
      const seen: string[] = [];
      const subscription = q.subscribe(t, { group: 'g', maxBatchSize: 3 }, async (batch) => {
        await new Promise((r) => setTimeout(r, 5));
        seen.push(...text(batch));
      });
      // A drain that waited for its timeout instead of the backlog would exceed the test timeout.
      await subscription.stop({ drain: true, timeoutMs: 60_000 });
      expect(seen).toHaveLength(20);
    });

    it('reports the lag of a consumer group', async () => {
      const q = await queue();
      const t = topic();
      await q.publish(t, records(4));
      const { finished, subscription } = collect(q, t, 4);
      await finished;
      await subscription.stop();
      await q.publish(t, records(3));
      const lag = (await q.lag()).filter((l) => l.topic === t && l.group === 'g');
      expect(lag.reduce((sum, l) => sum + l.lag, 0)).toBe(3);
    });
    it('keeps each key in order when many publishes run at once, and loses none', async () => {
      const q = await queue();
      const t = topic();
      const keys = ['a', 'b', 'c', 'd', 'e'];
      await Promise.all(
        Array.from({ length: 20 }, (_, round) =>
          q.publish(
            t,
            keys.map((key) => ({ key, value: Buffer.from(`${key}:${String(round).padStart(2, '0')}`) })),
          ),
        ),
      );
      const { seen, finished, subscription } = collect(q, t, 100, { maxBatchSize: 7 });
      await finished;
      await subscription.stop();
      expect(seen).toHaveLength(100);
      for (const key of keys) {
        const values = text(seen.filter((r) => r.key === key));
        expect(values).toHaveLength(20);
        // Publishes to one key that ran concurrently may land in either order, but the log's
        // order is the delivery order: offsets of a key's records only grow.
        const offsets = seen.filter((r) => r.key === key).map((r) => BigInt(r.offset));
        expect(offsets).toEqual([...offsets].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
        expect(new Set(values).size).toBe(20);
      }
    });

    it('gives every consumer group all the records, each at its own pace', async () => {
      const q = await queue();
      const t = topic();
      await q.publish(t, records(4));
      const first = collect(q, t, 4, { group: 'g' });
      const second = collect(q, t, 4, { group: 'other' });
      await Promise.all([first.finished, second.finished]);
      await Promise.all([first.subscription.stop(), second.subscription.stop()]);
      expect(text(first.seen)).toEqual(text(records(4) as DeliveredRecord[]));
      expect(text(second.seen)).toEqual(text(records(4) as DeliveredRecord[]));
    });

    it('delivers a record of several megabytes (a log item at its size limit)', async () => {
      const q = await queue();
      const t = topic();
      const big = Buffer.alloc(4 * 1024 * 1024 + 512, 7);
      await q.publish(t, [
        { key: 'k', value: Buffer.from('small') },
        { key: 'k', value: big },
      ]);
      const { seen, finished, subscription } = collect(q, t, 2);
      await finished;
      await subscription.stop();
      expect(seen[0]!.value.toString()).toBe('small');
      expect(seen[1]!.value.equals(big)).toBe(true);
    });

    it('reports no lag once a drained group handled everything', async () => {
      const q = await queue();
      const t = topic();
      await q.publish(t, records(5));
      const subscription = q.subscribe(t, { group: 'g', maxBatchSize: 2 }, async () => {});
      await subscription.stop({ drain: true, timeoutMs: 60_000 });
      const lag = (await q.lag()).filter((l) => l.topic === t && l.group === 'g');
      expect(lag.length).toBeGreaterThan(0);
      expect(lag.every((l) => l.lag === 0)).toBe(true);
    });
  });
}
