import { describe, expect, it } from 'vitest';
import { AssemblyQueue } from './assembly-queue.ts';

/** Queues a job at once, as the upload route does once it has claimed the assembly. */
function submit(queue: AssemblyQueue, projectId: number, key: string, run: () => Promise<void>) {
  queue.reserve({ id: projectId, slug: `p${projectId}` }, key)!.start(run);
}

/** Jobs that record when they start and finish when the test says so. */
function jobs() {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  return {
    started,
    job: (name: string) => () =>
      new Promise<void>((resolve) => {
        started.push(name);
        finishers.set(name, resolve);
      }),
    /** Finishes a running job and lets the queue start what comes next. */
    async finish(name: string) {
      finishers.get(name)!();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('the assembly queue', () => {
  it('serves projects in turn: a third project waits behind no more than one job of each of the others', async () => {
    const queue = new AssemblyQueue(2);
    const { started, job, finish } = jobs();
    // Two projects fill both slots, each with more waiting behind it; then a third arrives.
    for (let i = 1; i <= 6; i++) submit(queue, 1, `a${i}`, job(`a${i}`));
    for (let i = 1; i <= 6; i++) submit(queue, 2, `b${i}`, job(`b${i}`));
    submit(queue, 3, 'c1', job('c1'));
    expect(started).toEqual(['a1', 'b1']);
    // The slot a1 frees goes to the project that has not had one, not to a1's own next.
    await finish('a1');
    expect(started).toEqual(['a1', 'b1', 'c1']);
    // Then to whichever project was served longest ago.
    await finish('b1');
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2']);
    await finish('c1');
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'b2']);
    await finish('a2');
    await finish('b2');
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'b3']);
  });

  it('runs one job of a project at a time, in the order they came', async () => {
    const queue = new AssemblyQueue(4);
    const { started, job, finish } = jobs();
    submit(queue, 1, 'a1', job('a1'));
    submit(queue, 1, 'a2', job('a2'));
    submit(queue, 1, 'a3', job('a3'));
    expect(started).toEqual(['a1']);
    expect(queue.isWaiting(1, 'a2')).toBe(true);
    await finish('a1');
    expect(started).toEqual(['a1', 'a2']);
    expect(queue.isWaiting(1, 'a2')).toBe(false);
    await finish('a2');
    expect(started).toEqual(['a1', 'a2', 'a3']);
  });
});
