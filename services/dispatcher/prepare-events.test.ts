import { describe, expect, it } from 'vitest';
import type { NormalizedEvent } from '../core/event/event.ts';
import { encodeQueuedItem, TOPICS } from '../core/pipeline/queued-item.ts';
import { createLogger } from '../runtime/logger.ts';
import { prepareEvents } from './prepare-events.ts';

function record(id: string, payload: object, offset: number) {
  const header = { v: 1, kind: 'event', id, projectId: 1, organizationId: 1, receivedAt: 1_790_000_000 } as const;
  return {
    topic: TOPICS.events,
    offset: String(offset),
    value: encodeQueuedItem({ header, payload: Buffer.from(JSON.stringify(payload)) }),
  };
}

const frames = [
  { filename: '/app/node_modules/lib/index.js', function: 'lib', lineno: 3, in_app: true },
  { filename: '/app/src/main.js', function: 'main', lineno: 10 },
];

describe('prepareEvents', () => {
  it("holds each payload in the store's encoded form, encoded once from the event as symbolicated and grouped", async () => {
    const seen: string[] = [];
    const encodePayload = (json: string) => {
      seen.push(json);
      return `encoded #${seen.length}`;
    };
    const records = [
      record('a'.repeat(32), { message: 'first', level: 'warning' }, 1),
      record(
        'b'.repeat(32),
        { platform: 'node', exception: { values: [{ type: 'TypeError', value: 'x is undefined', stacktrace: { frames } }] } },
        2,
      ),
    ];
    // Both change the event after it is normalized: the payload must be serialized after them.
    const symbolicate = async (_projectId: number, event: NormalizedEvent) => {
      const last = event.exception?.values.at(-1)?.stacktrace?.frames.at(-1);
      if (last) last.function = 'fromSourceMap';
    };

    const { prepared, dropped } = await prepareEvents(records, { encodePayload, symbolicate, logger: createLogger('silent') });

    expect(dropped).toEqual([]);
    expect(prepared.map((p) => p.event.encodedPayload)).toEqual(['encoded #1', 'encoded #2']);
    const payloads = seen.map((json) => JSON.parse(json));
    expect(payloads.map((p) => p.event_id)).toEqual(['a'.repeat(32), 'b'.repeat(32)]);
    expect(payloads[0]).toMatchObject({ level: 'warning', logentry: { formatted: 'first' } });
    expect(payloads[1].exception.values[0]).toMatchObject({ type: 'TypeError', value: 'x is undefined' });
    const stored = payloads[1].exception.values[0].stacktrace.frames;
    expect(stored.map((f: { function: string }) => f.function)).toEqual(['lib', 'fromSourceMap']);
    // The SDK said in-app; the server's in-app rules (applied in grouping) say a dependency is not.
    expect(stored[0].in_app).toBe(false);
  });

  it('lets the thread answer other work while a long batch is prepared', async () => {
    // An encoder that takes 2 ms a payload stands for a slow machine: the batch lasts 60 ms, and
    // a health check or a dashboard query waiting on the thread must not wait that long.
    const encodedBeforeTurn: number[] = [];
    let encoded = 0;
    let turned = false;
    setImmediate(() => {
      turned = true;
      encodedBeforeTurn.push(encoded);
    });
    const encodePayload = () => {
      const until = performance.now() + 2;
      while (performance.now() < until);
      return `encoded #${++encoded}`;
    };
    const records = Array.from({ length: 30 }, (_, i) => record(String(i).padStart(32, '0'), { message: `event ${i}` }, i));

    const { prepared } = await prepareEvents(records, { encodePayload, logger: createLogger('silent') });

    expect(prepared).toHaveLength(30);
    expect(turned).toBe(true);
    // Early in the batch (the yield comes after 10 ms, five payloads here; the bound allows for a
    // slow machine), not after all 30 as without it.
    expect(encodedBeforeTurn[0]).toBeLessThan(10);
  });
});
