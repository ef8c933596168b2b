import { appendFile, mkdir, mkdtemp, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { UnavailableError } from '../../core/errors.ts';
import { describeQueueContract } from '../contracts/queue.contract.ts';
import type { Queue } from '../../core/ports/queue.ts';
import { deferred } from '../../../test/support/deferred.ts';
import { failingWith, replaceFileHandleSync } from '../../../test/support/replaced-syncs.ts';
import { LocalQueue, type QueuePeer, type QueuePeerMessage } from './local-queue.ts';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'errata-queue-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A topic's segment files, oldest first. */
async function segments(dir: string, topic = 't'): Promise<string[]> {
  return (await readdir(join(dir, topic))).filter((f) => f.endsWith('.log')).sort();
}

/** Spoils one byte of a segment, as a bad disk sector would: that record's checksum no longer matches. */
async function flipByte(path: string, at: number): Promise<void> {
  const handle = await open(path, 'r+');
  await handle.write(Buffer.from([0xff]), 0, 1, at);
  await handle.close();
}

const shared = tempDir();
describeQueueContract('local write-ahead log', async () => new LocalQueue(await shared));

describe('LocalQueue on disk', () => {
  it('drops a torn record at the end of the log and keeps every whole one', async () => {
    const dir = await tempDir();
    const first = new LocalQueue(dir);
    await first.publish('t', [
      { key: 'a', value: Buffer.from('one') },
      { key: 'a', value: Buffer.from('two') },
    ]);
    await first.close();
    const [segment] = await readdir(join(dir, 't'));
    // A crash in the middle of a write leaves a partial frame behind.
    await appendFile(join(dir, 't', segment!), Buffer.from([40, 0, 0, 0, 1, 2, 3]));
    const second = new LocalQueue(dir);
    await second.publish('t', [{ key: 'a', value: Buffer.from('three') }]);
    const seen: string[] = [];
    await new Promise<void>((resolve) => {
      second.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => {
        seen.push(...batch.map((r) => r.value.toString()));
        if (seen.length === 3) resolve();
      });
    });
    await second.close();
    expect(seen).toEqual(['one', 'two', 'three']);
  });

  // Six records of 100 bytes (119-byte frames), two a segment; then one byte of the first
  // segment, `at` bytes in, is flipped and a new queue delivers what it can.
  async function deliveredAfterFlip(at: number) {
    const dir = await tempDir();
    const first = new LocalQueue(dir, { segmentBytes: 200 });
    for (let i = 0; i < 6; i++) await first.publish('t', [{ key: 'k', value: Buffer.alloc(100, i) }]);
    await first.close();
    const [damaged] = await segments(dir);
    await flipByte(join(dir, 't', damaged!), at);
    const errors: unknown[] = [];
    const second = new LocalQueue(dir, { segmentBytes: 200, onHandlerError: (error) => errors.push(error) });
    const seen: number[] = [];
    await new Promise<void>((resolve) => {
      second.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => {
        seen.push(...batch.map((r) => r.value[0]!));
        if (seen.includes(5)) resolve();
      });
    });
    await second.close();
    return { seen, errors };
  }

  it('steps over a damaged record to the next whole one in its segment, and keeps the segments after it', async () => {
    const { seen, errors } = await deliveredAfterFlip(60); // inside the first record's value
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(String(errors[0])).toMatch(/damaged at offset 0: reading goes on at offset 119/);
  });

  it('steps over a damaged length field rather than reading as many bytes as it claims', async () => {
    const dir = await tempDir();
    const first = new LocalQueue(dir, { segmentBytes: 200 });
    for (let i = 0; i < 4; i++) await first.publish('t', [{ key: 'k', value: Buffer.alloc(100, i) }]);
    await first.close();
    const [damaged] = await segments(dir);
    const handle = await open(join(dir, 't', damaged!), 'r+');
    await handle.write(Buffer.from([0xf0, 0xff, 0xff, 0x7f]), 0, 4, 0); // the first record claims 2 GB
    await handle.close();
    const second = new LocalQueue(dir, { segmentBytes: 200, onHandlerError: () => {} });
    const seen: number[] = [];
    second.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => {
      seen.push(...batch.map((r) => r.value[0]!));
    });
    for (let tries = 0; tries < 300 && !seen.includes(3); tries++) await new Promise((r) => setTimeout(r, 10));
    await second.close();
    expect(seen).toEqual([1, 2, 3]);
  });

  it('keeps the acknowledged records after damage in the newest segment at recovery, and says so', async () => {
    const dir = await tempDir();
    const first = new LocalQueue(dir);
    for (let i = 0; i < 4; i++) await first.publish('t', [{ key: 'k', value: Buffer.alloc(100, i) }]);
    await first.close();
    const [segment] = await segments(dir);
    await flipByte(join(dir, 't', segment!), 119 + 60); // inside the second record's value
    const errors: unknown[] = [];
    const second = new LocalQueue(dir, { onHandlerError: (error) => errors.push(error) });
    await second.publish('t', [{ key: 'k', value: Buffer.alloc(100, 4) }]);
    expect(errors.map(String)).toEqual([expect.stringMatching(/damaged at offset 119: 119 bytes are not whole records/)]);
    const seen: number[] = [];
    second.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => {
      seen.push(...batch.map((r) => r.value[0]!));
    });
    for (let tries = 0; tries < 300 && !seen.includes(4); tries++) await new Promise((r) => setTimeout(r, 10));
    await second.close();
    expect(seen).toEqual([0, 2, 3, 4]);
    // The reader steps over the damaged record, and says what it lost.
    expect(String(errors[1])).toMatch(/damaged at offset 119: reading goes on at offset 238/);
  });

  it('steps over damage in the segment being written while running, rather than retrying it for good', async () => {
    const dir = await tempDir();
    const errors: unknown[] = [];
    const queue = new LocalQueue(dir, { onHandlerError: (error) => errors.push(error) });
    const publish = (i: number) => queue.publish('t', [{ key: 'k', value: Buffer.alloc(100, i) }]);
    await publish(0);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const seen: number[] = [];
    queue.subscribe('t', { group: 'g', maxBatchSize: 1 }, async (batch) => {
      seen.push(...batch.map((r) => r.value[0]!));
      await held;
    });
    while (seen.length < 1) await new Promise((r) => setTimeout(r, 5));
    for (const i of [1, 2]) await publish(i);
    const [segment] = await segments(dir);
    await flipByte(join(dir, 't', segment!), 119 + 60); // inside record 1, in the one segment there is
    release();
    for (let tries = 0; tries < 300 && !seen.includes(2); tries++) await new Promise((r) => setTimeout(r, 10));
    await publish(3); // the writer goes on where it was; the reader reads it
    for (let tries = 0; tries < 300 && !seen.includes(3); tries++) await new Promise((r) => setTimeout(r, 10));
    await queue.close();
    expect(seen).toEqual([0, 2, 3]);
    expect(errors.map(String)).toEqual([expect.stringMatching(/damaged at offset 119: reading goes on at offset 238/)]);
  });

  it('delivers the whole records before a damaged one in the same read', async () => {
    const { seen } = await deliveredAfterFlip(119 + 60); // inside the second record's value
    expect(seen).toEqual([0, 2, 3, 4, 5]);
  });

  it('goes on delivering when a finished segment cannot be deleted, and deletes it later', async () => {
    const dir = await tempDir();
    const errors: unknown[] = [];
    const queue = new LocalQueue(dir, { segmentBytes: 200, onHandlerError: (error) => errors.push(error) });
    for (let i = 0; i < 6; i++) await queue.publish('t', [{ key: 'k', value: Buffer.alloc(100, i) }]);
    const [firstSegment] = await segments(dir);
    const path = join(dir, 't', firstSegment!);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const seen: number[] = [];
    const subscription = queue.subscribe('t', { group: 'g', maxBatchSize: 2 }, async (batch) => {
      seen.push(...batch.map((r) => r.value[0]!));
      await held;
    });
    while (seen.length < 2) await new Promise((r) => setTimeout(r, 5));
    // The first segment, read and handled, turns into a directory that cannot be removed.
    await rm(path);
    await mkdir(path);
    await writeFile(join(path, 'x'), '');
    release();
    for (let tries = 0; tries < 500 && seen.length < 6; tries++) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
    expect(String(errors[0])).toMatch(/deleting a finished queue segment failed/);
    // Removable again: the next commit deletes it.
    await rm(path, { recursive: true });
    await writeFile(path, '');
    await queue.publish('t', [{ key: 'k', value: Buffer.alloc(100, 6) }]);
    await subscription.stop({ drain: true, timeoutMs: 20_000 });
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(await readdir(join(dir, 't'))).not.toContain(firstSegment);
    await queue.close();
  });

  it('rolls segments and deletes the ones every consumer is done with', async () => {
    const dir = await tempDir();
    const queue = new LocalQueue(dir, { segmentBytes: 1024 });
    for (let i = 0; i < 10; i++) await queue.publish('t', [{ key: 'k', value: Buffer.alloc(300, i) }]);
    expect((await segments(dir)).length).toBeGreaterThan(2);
    let count = 0;
    await new Promise<void>((resolve) => {
      queue.subscribe('t', { group: 'g', maxBatchSize: 3 }, async (batch) => {
        count += batch.length;
        if (count === 10) resolve();
      });
    });
    await queue.close();
    const left = await segments(dir);
    expect(left).toHaveLength(1);
    expect((await stat(join(dir, 't', left[0]!))).size).toBeLessThanOrEqual(1024 + 400);
  });

  it('starts a new segment once the last is an hour old, so what was consumed leaves the disk on a quiet server too', async () => {
    const dir = await tempDir();
    const queue = new LocalQueue(dir, { segmentMaxAgeMs: 100 });
    const seen: string[] = [];
    queue.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => {
      seen.push(...batch.map((r) => r.value.toString()));
    });
    const consumed = async (value: string) => {
      for (let tries = 0; tries < 300 && !seen.includes(value); tries++) await new Promise((r) => setTimeout(r, 10));
    };
    await queue.publish('t', [{ key: 'k', value: Buffer.from('first payload') }]);
    await consumed('first payload');
    await new Promise((r) => setTimeout(r, 150));
    await queue.publish('t', [{ key: 'k', value: Buffer.from('second payload') }]);
    await consumed('second payload');
    // The commit after the second record deletes the first segment, whose record was consumed.
    for (let tries = 0; tries < 300 && (await segments(dir)).length > 1; tries++) await new Promise((r) => setTimeout(r, 10));
    await queue.close();
    const left = await segments(dir);
    expect(left).toHaveLength(1);
    const bytes = await readFile(join(dir, 't', left[0]!));
    expect(bytes.includes('first payload')).toBe(false);
    expect(bytes.includes('second payload')).toBe(true);
  });

  it('counts the lag exactly across restarts and segments, even after a crash right after a roll', async () => {
    const dir = await tempDir();
    const first = new LocalQueue(dir, { segmentBytes: 200 });
    for (let i = 0; i < 6; i++) await first.publish('t', [{ key: 'k', value: Buffer.alloc(100, i) }]);
    await first.close();
    // A crash just after the writer started a new, still empty segment.
    const names = await segments(dir);
    const lastBase = Number(names[names.length - 1]!.slice(0, 20));
    const lastSize = (await stat(join(dir, 't', names[names.length - 1]!))).size;
    await writeFile(join(dir, 't', `${String(lastBase + lastSize).padStart(20, '0')}.log`), '');
    const second = new LocalQueue(dir, { segmentBytes: 200 });
    await second.publish('t', [{ key: 'k', value: Buffer.alloc(100, 6) }]);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const seen: number[] = [];
    const subscription = second.subscribe('t', { group: 'g', maxBatchSize: 2 }, async (batch) => {
      seen.push(...batch.map((r) => r.value[0]!));
      if (seen.length >= 4) await held;
    });
    while (seen.length < 4) await new Promise((r) => setTimeout(r, 5));
    // Two batches of two were handled; the second is still in the handler, so uncommitted.
    expect((await second.lag()).find((l) => l.group === 'g')?.lag).toBe(5);
    release();
    await subscription.stop({ drain: true, timeoutMs: 20_000 });
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect((await second.lag()).find((l) => l.group === 'g')?.lag).toBe(0);
    await second.close();
  });

  it('retries a failed commit without handing its batch over again', async () => {
    const dir = await tempDir();
    const errors: unknown[] = [];
    const queue = new LocalQueue(dir, { onHandlerError: (error) => errors.push(error) });
    await queue.publish(
      't',
      [0, 1, 2, 3].map((i) => ({ key: 'k', value: Buffer.from([i]) })),
    );
    // A directory where the commit writes its temporary file: every commit fails until it goes.
    const blocker = join(dir, 't', 'g.offset.tmp');
    await mkdir(blocker);
    const seen: number[] = [];
    const subscription = queue.subscribe('t', { group: 'g', maxBatchSize: 2 }, async (batch) => {
      seen.push(...batch.map((r) => r.value[0]!));
    });
    for (let tries = 0; tries < 500 && errors.length < 2; tries++) await new Promise((r) => setTimeout(r, 10));
    expect(String(errors[1])).toMatch(/committing the consumer's position failed: .*EISDIR/);
    expect(seen).toEqual([0, 1]);
    expect((await queue.lag()).find((l) => l.group === 'g')?.lag).toBe(4);

    await rm(blocker, { recursive: true });
    await subscription.stop({ drain: true, timeoutMs: 20_000 });
    expect(seen).toEqual([0, 1, 2, 3]);
    expect((await queue.lag()).find((l) => l.group === 'g')?.lag).toBe(0);
    await queue.close();
  });

  // A segment's data synced at each publish (datasync), the directory when a segment is added (sync).
  for (const call of ['datasync', 'sync'] as const) {
    it(`refuses every publish once a ${call} of its files failed, fails the health check, and recovers on a restart`, async () => {
      const dir = await tempDir();
      const queue = new LocalQueue(dir, { segmentBytes: 1024 });
      await queue.publish('t', [{ key: 'k', value: Buffer.alloc(1100, 1) }]); // fills the first segment
      const restore = await replaceFileHandleSync(call, failingWith('EIO'));
      try {
        // The first segment is full: the publish rolls to a new one first.
        await expect(queue.publish('t', [{ key: 'k', value: Buffer.alloc(600, 2) }])).rejects.toThrow(/EIO/);
      } finally {
        restore();
      }
      // A sync retried after a failed one may report success with nothing written: refused.
      await expect(queue.publish('t', [{ key: 'k', value: Buffer.alloc(10, 3) }])).rejects.toThrow(
        /could not sync the queue's files in .*: Error: EIO/,
      );
      await expect(queue.ping()).rejects.toThrow(/restart the server/);
      await queue.close();

      const restarted = new LocalQueue(dir, { segmentBytes: 1024 });
      await restarted.publish('t', [{ key: 'k', value: Buffer.alloc(10, 4) }]);
      await restarted.ping();
      const seen: number[] = [];
      await new Promise<void>((resolve) => {
        restarted.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => {
          seen.push(...batch.map((r) => r.value[0]!));
          if (seen.includes(4)) resolve();
        });
      });
      await restarted.close();
      expect(seen[0]).toBe(1);
      expect(seen.at(-1)).toBe(4);
      expect(seen).not.toContain(3);
    });
  }

  it('lets appends within minFlushIntervalMs of the last flush share the next, and flushes at once after a quiet spell', async () => {
    const queue = new LocalQueue(await tempDir(), { minFlushIntervalMs: 200 });
    let now = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
    let syncs = 0;
    const restore = await replaceFileHandleSync(
      'datasync',
      (original) =>
        function (this: { fd: number }) {
          syncs++;
          return original.call(this);
        },
    );
    const publish = (n: number) => queue.publish('t', [{ key: 'k', value: Buffer.from([n]) }]);
    try {
      await publish(1); // the first: nothing flushed before it
      expect(syncs).toBe(1);
      now = 10; // 10 ms after that flush started: these three wait out the 200 ms, then share one flush
      const waited = Date.now(); // not mocked: the wait itself is a real timer
      await Promise.all([publish(2), publish(3), publish(4)]);
      expect(Date.now() - waited).toBeGreaterThanOrEqual(180);
      expect(syncs).toBe(2);
      now = 10_000; // a quiet spell: the first is flushed at once, and the next waits for its turn
      await Promise.all([publish(5), publish(6)]);
      expect(syncs).toBe(4);
    } finally {
      restore();
      clock.mockRestore();
    }
    const seen: number[] = [];
    await new Promise<void>((resolve) => {
      queue.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => {
        seen.push(...batch.map((r) => r.value[0]!));
        if (seen.length === 6) resolve();
      });
    });
    await queue.close();
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('waits out minBatchIntervalMs to fill a batch, except after a quiet spell, for a full batch and when draining', async () => {
    // A minute: a wait where there should be none would outlast the test's timeout.
    const queue = new LocalQueue(await tempDir(), { minBatchIntervalMs: 60_000 });
    const record = (value: string) => ({ key: 'k', value: Buffer.from(value) });
    const publish = (...values: string[]) => queue.publish('t', values.map(record));
    const calls: string[][] = [];
    const [firstMade, firstHeld, secondMade] = [deferred(), deferred(), deferred()];
    const subscription = queue.subscribe('t', { group: 'g', maxBatchSize: 2 }, async (batch) => {
      calls.push(batch.map((r) => r.value.toString()));
      if (calls.length === 1) {
        firstMade.resolve();
        await firstHeld.promise;
      }
      if (calls.length === 2) secondMade.resolve();
    });
    await publish('a'); // nothing handled before it: it goes at once
    await firstMade.promise;
    await publish('b', 'c'); // a full batch, waiting when the first call ends: it goes at once too
    firstHeld.resolve();
    await secondMade.promise;
    await publish('d'); // less than a batch within the interval: it waits
    await new Promise((resolve) => setTimeout(resolve, 300));
    await publish('e', 'f'); // arriving during the wait: they join it
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls).toEqual([['a'], ['b', 'c']]);
    // Draining: what is left goes at once, the part after a full batch too.
    await subscription.stop({ drain: true, timeoutMs: 20_000 });
    expect(calls).toEqual([['a'], ['b', 'c'], ['d', 'e'], ['f']]);
    await queue.close();
  });

  it('hands over at once after a quiet spell since the last call, and a plain stop ends the wait', async () => {
    const queue = new LocalQueue(await tempDir(), { minBatchIntervalMs: 60_000 });
    let now = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
    try {
      const calls: string[][] = [];
      let nextCall = deferred();
      const subscription = queue.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => {
        calls.push(batch.map((r) => r.value.toString()));
        nextCall.resolve();
      });
      const publish = (value: string) => queue.publish('t', [{ key: 'k', value: Buffer.from(value) }]);
      await publish('a');
      await nextCall.promise;
      nextCall = deferred();
      now = 120_000; // two minutes after that call started: the next record goes at once
      await publish('b');
      await nextCall.promise;
      await publish('c'); // within the minute after b's call started: it waits
      await new Promise((resolve) => setTimeout(resolve, 300));
      await subscription.stop(); // not draining: the wait ends, and c stays for the next start
      expect(calls).toEqual([['a'], ['b']]);
      await queue.close();
    } finally {
      clock.mockRestore();
    }
  });

  it('refuses to publish with 503 semantics once the backlog limit would be passed', async () => {
    const queue = new LocalQueue(await tempDir(), { maxBacklogBytes: 1000 });
    await queue.publish('t', [{ key: 'k', value: Buffer.alloc(900) }]);
    await expect(queue.publish('t', [{ key: 'k', value: Buffer.alloc(200) }])).rejects.toBeInstanceOf(UnavailableError);
    await queue.publish('t', [{ key: 'k', value: Buffer.alloc(10) }]);
    expect((await queue.lag()).length).toBe(0);
    await queue.close();
  });

  it('counts the records being published: one large publish cannot overshoot the limit', async () => {
    const dir = await tempDir();
    const queue = new LocalQueue(dir, { maxBacklogBytes: 1000 });
    await expect(
      queue.publish('t', [
        { key: 'k', value: Buffer.alloc(600) },
        { key: 'k', value: Buffer.alloc(600) },
      ]),
    ).rejects.toBeInstanceOf(UnavailableError);
    await queue.close();
    // Nothing of the refused publish was written.
    const reopened = new LocalQueue(dir);
    await reopened.publish('t', [{ key: 'k', value: Buffer.alloc(3) }]);
    const first = await new Promise<number[]>((resolve) => {
      reopened.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => resolve(batch.map((r) => r.value.length)));
    });
    expect(first).toEqual([3]);
    await reopened.close();
  });

  it('answers 503 for a topic whose log failed to open, fails its health check until a restart, and closes past it', async () => {
    const dir = await tempDir();
    // A file where the topic's directory belongs: opening its log fails, as a full disk or a wrong permission would.
    await writeFile(join(dir, 't'), 'in the way');
    await writeFile(join(dir, 'u'), 'in the way');
    const queue = new LocalQueue(dir);
    await expect(queue.publish('t', [{ key: 'k', value: Buffer.from('a') }])).rejects.toThrow(UnavailableError);
    await expect(queue.publish('t', [{ key: 'k', value: Buffer.from('a') }])).rejects.toThrow(/could not open topic t/);
    await expect(queue.publish('bad/name', [{ key: 'k', value: Buffer.from('a') }])).rejects.not.toThrow(UnavailableError);
    await expect(queue.ping()).rejects.toThrow(/could not open topic t .*restart the server/);
    // Not opened again while the server runs: a failed open may have left a segment whose entry never reached the disk.
    await rm(join(dir, 't'));
    await expect(queue.publish('t', [{ key: 'k', value: Buffer.from('b') }])).rejects.toThrow(UnavailableError);
    const stillOpening = queue.publish('u', [{ key: 'k', value: Buffer.from('c') }]);
    await queue.close(); // while 'u' is still opening, and past 't'
    await expect(stillOpening).rejects.toThrow(/could not open topic u/);
    // A restart opens it.
    const restarted = new LocalQueue(dir);
    await restarted.publish('t', [{ key: 'k', value: Buffer.from('d') }]);
    await restarted.ping();
    await restarted.close();
  });

  it('reports a subscription whose topic failed to open, and closes past it', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 't'), 'in the way');
    const errors: string[] = [];
    const queue = new LocalQueue(dir, { onHandlerError: (error) => errors.push(String(error)) });
    queue.subscribe('t', { group: 'g', maxBatchSize: 10 }, async () => {});
    await vi.waitFor(() => expect(errors.join('\n')).toMatch(/opening the queue's topic t failed: .*EEXIST/));
    await queue.close();
  });

  it('closes the segment a failed recovery opened', async () => {
    const dir = realpathSync(await tempDir());
    const first = new LocalQueue(dir);
    await first.publish('t', [{ key: 'k', value: Buffer.from('a') }]);
    await first.close();
    const openInTopic = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).startsWith(join(dir, 't'));
        } catch {
          return false; // the descriptor readdir itself used, closed since
        }
      });
    const second = new LocalQueue(dir);
    const restore = await replaceFileHandleSync('datasync', failingWith('EIO')); // recovery's sync of the last segment
    try {
      await expect(second.publish('t', [{ key: 'k', value: Buffer.from('b') }])).rejects.toThrow(/could not open topic t \(EIO/);
    } finally {
      restore();
    }
    expect(openInTopic()).toEqual([]);
    await second.close();
  });

  it('delivers a record larger than the read chunk', async () => {
    const queue = new LocalQueue(await tempDir());
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    await queue.publish('t', [
      { key: 'k', value: Buffer.from('small') },
      { key: 'k', value: big },
    ]);
    const seen: Buffer[] = [];
    await new Promise<void>((resolve) => {
      queue.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => {
        seen.push(...batch.map((r) => r.value));
        if (seen.length === 2) resolve();
      });
    });
    await queue.close();
    expect(seen[1]!.equals(big)).toBe(true);
  });
});

describe('LocalQueue split into a writer and a reader', () => {
  /** Two peers whose messages arrive asynchronously, as between threads. */
  function linkedPeers(): [QueuePeer, QueuePeer] {
    const handlers: Array<Array<(m: QueuePeerMessage) => void>> = [[], []];
    const peer = (self: number, other: number): QueuePeer => ({
      send: (message) => setImmediate(() => handlers[other]!.forEach((h) => h(structuredClone(message)))),
      onMessage: (handler) => void handlers[self]!.push(handler),
    });
    return [peer(0, 1), peer(1, 0)];
  }

  async function split(
    dir: string,
    options: {
      segmentBytes?: number;
      maxBacklogBytes?: number;
      minBatchIntervalMs?: number;
      onHandlerError?: (error: unknown) => void;
    } = {},
  ) {
    const [writerPeer, readerPeer] = linkedPeers();
    // The writer opens each topic's log on first use; the reader may open it first, before any
    // segment exists, and must find the segments as the writer creates them.
    const writer = new LocalQueue(dir, { ...options, mode: 'writer', peer: writerPeer });
    const reader = new LocalQueue(dir, { ...options, mode: 'reader', peer: readerPeer });
    const queue: Queue = {
      publish: (topic, records) => writer.publish(topic, records),
      subscribe: (topic, subscribeOptions, handler) => reader.subscribe(topic, subscribeOptions, handler),
      lag: () => writer.lag(),
      ping: () => writer.ping(),
      close: async () => {
        await writer.close();
        await reader.close();
      },
    };
    return { writer, reader, queue };
  }

  const splitDir = tempDir();
  describeQueueContract('local write-ahead log, writer and reader apart', async () => (await split(await splitDir)).queue);
  // As the standalone server runs it (backend-thread.ts), across segment ends.
  const pacedDir = tempDir();
  describeQueueContract(
    'local write-ahead log, writer and reader apart, batches paced',
    async () => (await split(await pacedDir, { minBatchIntervalMs: 50, segmentBytes: 64 * 1024 })).queue,
  );

  it('a reader whose topic failed to open reports it and opens it once it can, delivering what was published', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 't'), 'in the way');
    const errors: string[] = [];
    const { writer, queue } = await split(dir, { onHandlerError: (error) => errors.push(String(error)) });
    const seen: string[] = [];
    const delivered = new Promise<void>((resolve) => {
      queue.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => {
        seen.push(...batch.map((r) => r.value.toString()));
        resolve();
      });
    });
    await vi.waitFor(() => expect(errors.join('\n')).toMatch(/opening the queue's topic t failed: .*EEXIST/));
    await rm(join(dir, 't'));
    await writer.publish('t', [{ key: 'k', value: Buffer.from('after') }]);
    await delivered;
    expect(seen).toEqual(['after']);
    await queue.close();
  });

  it('a reader started with the ends the writer had synced reads no further until the writer says so', async () => {
    const dir = await tempDir();
    const before = new LocalQueue(dir);
    await before.publish('t', [{ key: 'k', value: Buffer.from('synced') }]);
    const ends = await before.durableEnds(['t']);
    // Whole on disk, as an append is between its write and its sync when the reader opens.
    await before.publish('t', [{ key: 'k', value: Buffer.from('in flight') }]);
    const later = await before.durableEnds(['t']);
    await before.close();

    const [writerPeer, readerPeer] = linkedPeers();
    const reader = new LocalQueue(dir, { mode: 'reader', peer: readerPeer, durableEnds: ends });
    const seen: string[] = [];
    reader.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => {
      seen.push(...batch.map((r) => r.value.toString()));
    });
    await vi.waitFor(() => expect(seen).toEqual(['synced']));
    await new Promise((r) => setTimeout(r, 200));
    expect(seen).toEqual(['synced']);
    // The writer's announcement once the sync is done.
    writerPeer.send({ kind: 'durable', topic: 't', end: later.t!.end, lastSequence: later.t!.lastSequence });
    await vi.waitFor(() => expect(seen).toEqual(['synced', 'in flight']));
    await reader.close();
  });

  it('reads no further than the known end after its first open failed, nor past what the writer announced meanwhile', async () => {
    const dir = await tempDir();
    const before = new LocalQueue(dir);
    await before.publish('t', [{ key: 'k', value: Buffer.from('synced') }]);
    const ends = await before.durableEnds(['t']);
    await before.publish('t', [{ key: 'k', value: Buffer.from('announced') }]);
    const announced = await before.durableEnds(['t']);
    await before.publish('t', [{ key: 'k', value: Buffer.from('in flight') }]);
    await before.close();
    // The topic's directory moved away, a file in its place: the reader's first open fails.
    await rename(join(dir, 't'), join(dir, 't.away'));
    await writeFile(join(dir, 't'), 'in the way');

    const errors: string[] = [];
    const [writerPeer, readerPeer] = linkedPeers();
    const reader = new LocalQueue(dir, {
      mode: 'reader',
      peer: readerPeer,
      durableEnds: ends,
      onHandlerError: (error) => errors.push(String(error)),
    });
    const seen: string[] = [];
    reader.subscribe('t', { group: 'g', maxBatchSize: 10 }, async (batch) => {
      seen.push(...batch.map((r) => r.value.toString()));
    });
    await vi.waitFor(() => expect(errors.join('\n')).toMatch(/opening the queue's topic t failed/));
    // An announcement while the log cannot open: kept for the next open.
    writerPeer.send({ kind: 'durable', topic: 't', end: announced.t!.end, lastSequence: announced.t!.lastSequence });
    await new Promise((r) => setTimeout(r, 50));
    await rm(join(dir, 't'));
    await rename(join(dir, 't.away'), join(dir, 't'));
    await vi.waitFor(() => expect(seen).toEqual(['synced', 'announced']), { timeout: 5_000 });
    await new Promise((r) => setTimeout(r, 200));
    expect(seen).toEqual(['synced', 'announced']);
    await reader.close();
  });

  it('lets each side do only its own part', async () => {
    const { writer, reader, queue } = await split(await tempDir());
    expect(() => writer.subscribe('t', { group: 'g', maxBatchSize: 1 }, async () => {})).toThrow(/only publishes/);
    await expect(reader.publish('t', [])).rejects.toThrow(/only consumes/);
    await queue.close();
  });

  // The reader holds the first of two records in a segment while the writer starts two more
  // segments; then `damage` spoils the first segment past the held record. What the reader then
  // reads next must be found in a segment it has not listed yet.
  async function readPastDamage(damage: (firstSegment: string) => Promise<void>): Promise<number[]> {
    const dir = await tempDir();
    const { reader, queue } = await split(dir, { segmentBytes: 200 });
    const publish = (i: number) => queue.publish('t', [{ key: 'k', value: Buffer.alloc(100, i) }]);
    for (const i of [0, 1]) await publish(i);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const seen: number[] = [];
    reader.subscribe('t', { group: 'g', maxBatchSize: 1 }, async (batch) => {
      seen.push(...batch.map((r) => r.value[0]!));
      await held;
    });
    while (seen.length < 1) await new Promise((r) => setTimeout(r, 5));
    for (const i of [2, 3, 4, 5]) await publish(i); // two records (119 bytes each) a segment
    const [first] = await segments(dir);
    await damage(join(dir, 't', first!));
    release();
    for (let tries = 0; tries < 500 && !seen.includes(5); tries++) await new Promise((r) => setTimeout(r, 10));
    await queue.close();
    return seen;
  }

  it('resumes after a damaged record in the next segment, one the reader had not listed yet', async () => {
    const seen = await readPastDamage((path) => flipByte(path, 119 + 30)); // inside the second record's value
    expect(seen).toEqual([0, 2, 3, 4, 5]);
  });

  it("goes on to the next segment past bytes a failed write left after a segment's last record", async () => {
    const seen = await readPastDamage((path) => appendFile(path, Buffer.from([40, 0, 0, 0, 1, 2, 3])));
    expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('follows the writer across segment files and lets it know what was committed', async () => {
    const dir = await tempDir();
    const { writer, queue } = await split(dir, { segmentBytes: 1024, maxBacklogBytes: 3000 });
    const seen: number[] = [];
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    queue.subscribe('t', { group: 'g', maxBatchSize: 2 }, async (batch) => {
      seen.push(...batch.map((r) => r.value[0]!));
      if (seen.length === 20) done();
    });
    // 20 x 300 bytes = 6000 bytes: over the backlog limit unless the reader's commits reach the writer.
    for (let i = 0; i < 20; i++) {
      await queue.publish('t', [{ key: 'k', value: Buffer.alloc(300, i) }]);
      await new Promise((r) => setTimeout(r, 5));
    }
    await finished;
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // The commit that follows the last handler call reaches the writer a moment later.
    for (let tries = 0; (await writer.lag()).find((l) => l.topic === 't')?.lag !== 0; tries++) {
      if (tries > 200) throw new Error('the writer never learned of the last commit');
      await new Promise((r) => setTimeout(r, 10));
    }
    await queue.close();
    expect(await segments(dir)).toHaveLength(1);
  });
});
