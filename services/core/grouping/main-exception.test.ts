import { describe, expect, it } from 'vitest';
import { groupEvent, prepareEvent } from '../pipeline/process-event.ts';

const titleOf = (raw: unknown) =>
  groupEvent(prepareEvent(raw, { eventId: 'd'.repeat(32), receivedAt: 1_800_000_000 })).summary.title;

const REACT_RECOVERED =
  'There was an error during concurrent rendering but React was able to recover by instead synchronously rendering the entire root.';

describe('the exception that names an issue, as Sentry picks it', () => {
  it('names a React 19 recovered-rendering error after its cause, as the JavaScript SDK links them', () => {
    const raw = {
      platform: 'javascript',
      exception: {
        values: [
          {
            type: 'TypeError',
            value: 'items is undefined',
            mechanism: { type: 'chained', source: 'cause', exception_id: 1, parent_id: 0 },
          },
          { type: 'Error', value: REACT_RECOVERED, mechanism: { type: 'onerror', handled: false, exception_id: 0 } },
        ],
      },
    };
    expect(titleOf(raw)).toBe('TypeError: items is undefined');
  });

  it('keeps the last exception for any other error with a cause', () => {
    const raw = {
      platform: 'javascript',
      exception: {
        values: [
          {
            type: 'TypeError',
            value: 'items is undefined',
            mechanism: { type: 'chained', source: 'cause', exception_id: 1, parent_id: 0 },
          },
          { type: 'Error', value: 'Rendering failed', mechanism: { type: 'onerror', handled: false, exception_id: 0 } },
        ],
      },
    };
    expect(titleOf(raw)).toBe('Error: Rendering failed');
  });

  it('names an RxJava framework exception thrown to the uncaught handler after the exception it wraps', () => {
    const raw = {
      platform: 'java',
      exception: {
        values: [
          {
            type: 'IllegalStateException',
            value: 'Cart is empty',
            module: 'com.example.shop',
            mechanism: { type: 'chained', exception_id: 1, parent_id: 0 },
          },
          {
            type: 'OnErrorNotImplementedException',
            value: 'The exception was not handled due to missing onError handler',
            module: 'io.reactivex.rxjava3.exceptions',
            mechanism: { type: 'UncaughtExceptionHandler', handled: false, exception_id: 0 },
          },
        ],
      },
    };
    expect(titleOf(raw)).toBe('IllegalStateException: Cart is empty');
  });
});
