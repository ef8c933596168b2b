import { describe, expect, it } from 'vitest';
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

describe('prepareEvents', () => {
  it("holds each payload in the store's encoded form, encoded once from the normalized event's JSON", async () => {
    const seen: string[] = [];
    const encodePayload = (json: string) => {
      seen.push(json);
      return `encoded #${seen.length}`;
    };
    const records = [
      record('a'.repeat(32), { message: 'first', level: 'warning' }, 1),
      record('b'.repeat(32), { exception: { values: [{ type: 'TypeError', value: 'x is undefined' }] } }, 2),
    ];

    const { prepared, dropped } = await prepareEvents(records, { encodePayload, logger: createLogger('silent') });

    expect(dropped).toEqual([]);
    expect(prepared.map((p) => p.event.encodedPayload)).toEqual(['encoded #1', 'encoded #2']);
    const payloads = seen.map((json) => JSON.parse(json));
    expect(payloads.map((p) => p.event_id)).toEqual(['a'.repeat(32), 'b'.repeat(32)]);
    expect(payloads[0]).toMatchObject({ level: 'warning', logentry: { formatted: 'first' } });
    expect(payloads[1].exception.values[0]).toMatchObject({ type: 'TypeError', value: 'x is undefined' });
  });
});
