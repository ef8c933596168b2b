// The live tail's loop over the real SQL LogStore (in-memory PGlite), stepped poll by poll with an
// injected clock and scheduler: no real waiting, and the scheduler shows whether a timer is left.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../core/logs/log-record.ts';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { startLogTail, type TailTimers } from './log-tail-stream.ts';

let stores: EmbeddedStores;
let projectId = 0;
beforeAll(async () => {
  stores = await openEmbeddedStores();
}, 120_000);
afterAll(() => stores?.close());

/** Polls run only when the test says; `pending` is what a real setTimeout would still hold. */
class SteppedTimers implements TailTimers {
  readonly pending = new Map<number, () => Promise<void>>();
  private next = 0;
  set(poll: () => Promise<void>): number {
    this.pending.set(++this.next, poll);
    return this.next;
  }
  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  async poll(): Promise<void> {
    const [handle, poll] = [...this.pending][0] ?? [];
    if (!poll) throw new Error('no poll is scheduled');
    this.pending.delete(handle!);
    await poll();
  }
}

interface Harness {
  timers: SteppedTimers;
  clock: { ms: number };
  events: Array<{ event: string; data: any }>;
  ended: () => boolean;
  stop: () => void;
  projectId: number;
}

async function openTail(
  client: { unread?: () => number; abandon?: () => void; stillAllowed?: () => Promise<boolean> } = {},
): Promise<Harness> {
  const id = ++projectId;
  const timers = new SteppedTimers();
  const clock = { ms: Date.UTC(2026, 0, 1, 12, 0, 0) };
  const events: Harness['events'] = [];
  let ended = false;
  const stop = startLogTail({
    logs: stores.logs,
    query: { projectId: id },
    write(chunk) {
      const event = /^event: (\w+)\ndata: (.*)\n\n$/.exec(chunk);
      if (event) events.push({ event: event[1]!, data: JSON.parse(event[2]!) });
    },
    end: () => (ended = true),
    now: () => clock.ms,
    timers,
    ...client,
  });
  return { timers, clock, events, ended: () => ended, stop, projectId: id };
}

function record(projectId: number, id: string, timestamp: number, body = id): LogRecord {
  return {
    id,
    projectId,
    timestamp,
    observedAt: timestamp,
    traceId: null,
    spanId: null,
    level: 'info',
    severityNumber: 9,
    body,
    attributes: {},
    release: null,
    environment: null,
  };
}

const bodies = (h: Harness) => h.events.filter((e) => e.event === 'record').map((e) => e.data.body);

describe('the live tail loop', () => {
  it('writes each new record once, ties by id, late ones too, and nothing from before it opened', async () => {
    const h = await openTail();
    const t0 = h.clock.ms / 1000;
    await stores.logs.insertLogs([record(h.projectId, 'before', t0 - 1)]);
    await stores.logs.insertLogs([record(h.projectId, 'b:0', t0 + 0.5), record(h.projectId, 'a:0', t0 + 0.5)]);
    h.clock.ms += 1000;
    await h.timers.poll();
    expect(bodies(h)).toEqual(['a:0', 'b:0']);

    // Same timestamp, stored after the first poll; and one stamped earlier, arriving late.
    await stores.logs.insertLogs([record(h.projectId, 'c:0', t0 + 0.5), record(h.projectId, 'late', t0 + 0.2)]);
    h.clock.ms += 1000;
    await h.timers.poll();
    h.clock.ms += 1000;
    await h.timers.poll();
    expect(bodies(h)).toEqual(['a:0', 'b:0', 'late', 'c:0']);
    expect(h.events[0]).toEqual({ event: 'started', data: { maxMinutes: 10, maxPerSecond: 100 } });
    h.stop();
  });

  it('leaves no timer when the client goes away, even with a poll under way', async () => {
    const h = await openTail();
    expect(h.timers.pending.size).toBe(1);
    h.stop();
    expect(h.timers.pending.size).toBe(0);

    const busy = await openTail();
    const polling = busy.timers.poll();
    busy.stop();
    await polling;
    expect(busy.timers.pending.size).toBe(0);
    expect(busy.ended()).toBe(false);
  });

  it('drops a client that stopped reading, past 1 MiB unread: nothing more written, no timer left', async () => {
    let unread = 0;
    let abandoned = false;
    const h = await openTail({ unread: () => unread, abandon: () => (abandoned = true) });
    const t0 = h.clock.ms / 1000;
    await stores.logs.insertLogs([record(h.projectId, 'read', t0 + 0.5)]);
    h.clock.ms += 1000;
    await h.timers.poll();
    expect(bodies(h)).toEqual(['read']);
    unread = 1024 * 1024 + 1;
    await stores.logs.insertLogs([record(h.projectId, 'never read', t0 + 1.5)]);
    h.clock.ms += 1000;
    await h.timers.poll();
    expect(bodies(h)).toEqual(['read']);
    expect(abandoned).toBe(true);
    expect(h.timers.pending.size).toBe(0);
  });

  it('stops within 5 seconds of the session ending: a stopped event, nothing more written, no timer left', async () => {
    let allowed = true;
    let checks = 0;
    const h = await openTail({ stillAllowed: async () => (checks++, allowed) });
    const t0 = h.clock.ms / 1000;
    for (let second = 1; second <= 5; second++) {
      await stores.logs.insertLogs([record(h.projectId, `s${second}`, t0 + second - 0.5)]);
      h.clock.ms += 1000;
      await h.timers.poll();
    }
    expect(bodies(h)).toEqual(['s1', 's2', 's3', 's4', 's5']);
    expect(checks).toBe(1);
    allowed = false;
    let polls = 0;
    while (!h.ended() && polls < 10) {
      h.clock.ms += 1000;
      await h.timers.poll();
      polls++;
    }
    expect(polls).toBe(5);
    expect(h.events.at(-1)).toEqual({ event: 'stopped', data: { message: expect.stringMatching(/^Your session ended/) } });
    expect(h.timers.pending.size).toBe(0);
  });

  it('goes on when the session lookup fails, and asks again at the next check', async () => {
    let answer: () => Promise<boolean> = () => Promise.reject(new Error('the user table did not answer'));
    const h = await openTail({ stillAllowed: () => answer() });
    for (let second = 1; second <= 6; second++) {
      h.clock.ms += 1000;
      await h.timers.poll();
    }
    expect(h.ended()).toBe(false);
    expect(h.events.map((e) => e.event)).toEqual(['started']);
    answer = async () => false;
    for (let second = 7; second <= 12 && !h.ended(); second++) {
      h.clock.ms += 1000;
      await h.timers.poll();
    }
    expect(h.events.at(-1)!.event).toBe('stopped');
  });

  it('pauses above 1000 records in 10 s: a paused event, the stream ended, no timer left', async () => {
    const h = await openTail();
    const t0 = h.clock.ms / 1000;
    await stores.logs.insertLogs(Array.from({ length: 1001 }, (_, i) => record(h.projectId, `x:${i}`, t0 + 0.5)));
    h.clock.ms += 1000;
    await h.timers.poll();
    expect(bodies(h)).toEqual([]);
    expect(h.events.at(-1)).toEqual({
      event: 'paused',
      data: {
        message:
          'Paused: 1,001 records arrived in 1 s; the live tail shows at most 1,000 in 10 s (100 a second). Narrow the filters, or resume to go on from now.',
      },
    });
    expect(h.ended()).toBe(true);
    expect(h.timers.pending.size).toBe(0);
  });

  it('stops after 10 minutes: a stopped event, the stream ended, no timer left', async () => {
    const h = await openTail();
    h.clock.ms += 9 * 60_000;
    await h.timers.poll();
    expect(h.ended()).toBe(false);
    h.clock.ms += 60_000;
    await h.timers.poll();
    expect(h.events.at(-1)).toEqual({
      event: 'stopped',
      data: { message: 'Stopped: the live tail ran for 10 minutes, its longest. Start again to go on from now.' },
    });
    expect(h.ended()).toBe(true);
    expect(h.timers.pending.size).toBe(0);
  });
});
