import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../core/logs/log-record.ts';
import { breadcrumbLines, logLine } from './event-lines.ts';

const EVENT = Date.UTC(2026, 10, 21, 0, 0, 5) / 1000;

describe('breadcrumbLine and logLine', () => {
  it('gives the time of day on the event day, the full timestamp on another, and the level only when not info', () => {
    expect(
      breadcrumbLines(
        [
          { timestamp: EVENT - 10, type: 'http', level: 'warning', data: { status_code: 502 } },
          { timestamp: EVENT - 1, type: 'default', category: 'ui.click', level: 'info', message: 'Pay' },
        ],
        EVENT,
        200,
        30,
      ),
    ).toEqual(['2026-11-20T23:59:55.000Z http warning: status_code=502', '00:00:04.000 ui.click: Pay']);
    expect(breadcrumbLines([{ type: 'default', level: 'info', message: 'm'.repeat(10) }], EVENT, 12, 30)).toEqual([
      '? default: m…[truncated 9 characters]',
    ]);
    // Stored before normalizing dropped such times: a Date cannot hold it, and toISOString threw.
    expect(breadcrumbLines([{ timestamp: 9e12, type: 'default', level: 'info', message: 'x' }], EVENT, 200, 30)).toEqual([
      '? default: x',
    ]);
  });

  it('writes a run of the same breadcrumb as one line with how many and when the last was', () => {
    const poll = (offset: number) => ({
      timestamp: EVENT - offset,
      type: 'http',
      category: 'http',
      level: 'info' as const,
      message: 'GET /status',
    });
    const click = { timestamp: EVENT - 2, type: 'default', category: 'ui.click', level: 'info' as const, message: 'Pay' };
    expect(breadcrumbLines([poll(5), poll(4), poll(3), click, poll(1)], EVENT, 200, 30)).toEqual([
      '00:00:00.000 http: GET /status [3 times, the last at 00:00:02.000]',
      '00:00:03.000 ui.click: Pay',
      '00:00:04.000 http: GET /status',
    ]);
    // Past the limit, the note counts the breadcrumbs cut, not the lines: here 3 + 1.
    expect(breadcrumbLines([poll(5), poll(4), poll(3), click, poll(1)], EVENT, 200, 2)).toEqual([
      '[truncated 4 older breadcrumbs]',
      '00:00:04.000 http: GET /status',
    ]);
  });

  it("leaves out the SDK's own sentry.* log attributes", () => {
    const log = {
      timestamp: EVENT,
      level: 'warn',
      body: 'slow query',
      attributes: { ms: { type: 'integer', value: 900 }, 'sentry.sdk.name': { type: 'string', value: 'sentry.javascript.node' } },
    } as unknown as LogRecord;
    expect(logLine(log, EVENT, 200)).toBe('00:00:05.000 warn slow query ms=900');
  });
});
