import { describe, expect, it } from 'vitest';
import { deferred } from '../../../test/support/deferred.ts';
import { Semaphore } from './semaphore.ts';

describe('Semaphore', () => {
  it('lets `limit` holders run at once and the rest in arrival order', async () => {
    const slots = new Semaphore(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      slots.run(async () => {
        started.push(i);
        await gate.promise;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(slots.queued).toBe(2);
    gates[1]!.resolve();
    await runs[1];
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.resolve();
    gates[2]!.resolve();
    gates[3]!.resolve();
    await Promise.all(runs);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(slots.queued).toBe(0);
  });

  it('frees the slot when the work throws', async () => {
    const slots = new Semaphore(1);
    await expect(slots.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(slots.run(() => Promise.resolve('next'))).resolves.toBe('next');
  });

  it("refuses at once with the owner's error when maxWaiting already wait, and queues again once one moves on", async () => {
    const slots = new Semaphore(1, { maxWaiting: 1, full: () => new Error('busy') });
    const gates = [deferred(), deferred()];
    const runs = gates.map((gate) => slots.run(() => gate.promise));
    await Promise.resolve();
    expect(slots.queued).toBe(1);
    await expect(slots.run(() => Promise.resolve('third'))).rejects.toThrow('busy');
    gates[0]!.resolve();
    await runs[0];
    const fourth = slots.run(() => Promise.resolve('fourth'));
    gates[1]!.resolve();
    await runs[1];
    await expect(fourth).resolves.toBe('fourth');
    expect(slots.queued).toBe(0);
  });

  it('refuses a limit below one', () => {
    expect(() => new Semaphore(0)).toThrow(/at least 1/);
  });
});
