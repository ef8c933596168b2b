import { describe, expect, it } from 'vitest';
import { discardedEvents, MAX_CLIENT_REPORT_BYTES } from './client-report.ts';

const report = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('discardedEvents', () => {
  it("reads an SDK's report of what it dropped, by reason and category", () => {
    const payload = report({
      timestamp: 1_700_000_000,
      discarded_events: [
        { reason: 'ratelimit_backoff', category: 'error', quantity: 12 },
        { reason: 'before_send', category: 'log_item', quantity: 3 },
      ],
    });
    expect(discardedEvents(payload)).toEqual([
      { reason: 'ratelimit_backoff', category: 'error', quantity: 12 },
      { reason: 'before_send', category: 'log_item', quantity: 3 },
    ]);
  });

  it('counts words SDKs do not use as other, and leaves out what is no count', () => {
    const payload = report({
      discarded_events: [
        { reason: 'made_up_{label}', category: 'error', quantity: 1 },
        { reason: 'queue_overflow', category: 'toString', quantity: 2 },
        { reason: 'queue_overflow', category: 'error', quantity: -4 },
        { reason: 'queue_overflow', category: 'error', quantity: 1.5 },
        { reason: 'queue_overflow', category: 'error', quantity: '7' },
        { reason: 'send_error', category: 'error', quantity: 1e15 },
        'not an entry',
      ],
    });
    expect(discardedEvents(payload)).toEqual([
      { reason: 'other', category: 'error', quantity: 1 },
      { reason: 'queue_overflow', category: 'other', quantity: 2 },
      { reason: 'send_error', category: 'error', quantity: 1_000_000 },
    ]);
  });

  it('reads nothing from a report that is not JSON, has no list, or is larger than Relay reads', () => {
    expect(discardedEvents(Buffer.from('{'))).toEqual([]);
    expect(discardedEvents(report({ discarded_events: {} }))).toEqual([]);
    const entry = { reason: 'network_error', category: 'error', quantity: 1 };
    const large = report({ discarded_events: [entry], pad: 'x'.repeat(MAX_CLIENT_REPORT_BYTES) });
    expect(discardedEvents(large)).toEqual([]);
    const many = report({ discarded_events: Array.from({ length: 500 }, () => entry) });
    expect(discardedEvents(many)).toHaveLength(100);
  });
});
