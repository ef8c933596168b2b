import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.ts';

const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

describe('work queue', () => {
  it('runs a key once however often it was added while waiting, and again if added while running', async () => {
    const runs: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const queue = new WorkQueue(
      async (key) => {
        runs.push(key);
        if (runs.length === 1) await gate;
      },
      { concurrency: 1 },
    );
    queue.add('ns/a');
    queue.add('ns/b');
    queue.add('ns/b');
    await tick();
    queue.add('ns/a'); // while ns/a runs: it must run again afterwards
    queue.add('ns/a');
    release();
    await queue.idle();
    expect(runs).toEqual(['ns/a', 'ns/b', 'ns/a']);
  });

  it('never hands one key to two workers at once', async () => {
    let running = 0;
    let most = 0;
    const queue = new WorkQueue(
      async () => {
        running++;
        most = Math.max(most, running);
        await tick(5);
        running--;
      },
      { concurrency: 4 },
    );
    for (let i = 0; i < 20; i++) {
      queue.add('ns/only');
      await tick(1);
    }
    await queue.idle();
    expect(most).toBe(1);
  });

  it('retries a failing key with growing delays, and forgets the failures after a success', async () => {
    const delays: number[] = [];
    let attempts = 0;
    const queue = new WorkQueue(
      async () => {
        attempts++;
        if (attempts <= 3) throw new Error('conflict');
      },
      { baseDelayMs: 10, onError: (_key, _error, retryInMs) => delays.push(retryInMs) },
    );
    queue.add('ns/x');
    for (let i = 0; i < 100 && attempts < 4; i++) await tick(10);
    expect(attempts).toBe(4);
    expect(delays).toEqual([10, 20, 40]);
    await queue.stop();
  });

  it('keeps one delayed add per key, the earliest', async () => {
    const runs: string[] = [];
    const queue = new WorkQueue(async (key) => {
      runs.push(key);
    });
    for (let i = 0; i < 50; i++) queue.addAfter('ns/slow', 40);
    queue.addAfter('ns/slow', 10);
    await tick(80);
    expect(runs).toEqual(['ns/slow']);
    await queue.stop();
  });
});
