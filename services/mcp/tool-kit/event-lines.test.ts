import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../core/logs/log-record.ts';
import { breadcrumbLine, logLine } from './event-lines.ts';

const EVENT = Date.UTC(2026, 10, 21, 0, 0, 5) / 1000;

describe('breadcrumbLine and logLine', () => {
  it('gives the time of day on the event day, the full timestamp on another, and the level only when not info', () => {
    expect(
      breadcrumbLine({ timestamp: EVENT - 1, type: 'default', category: 'ui.click', level: 'info', message: 'Pay' }, EVENT, 200),
    ).toBe('00:00:04.000 ui.click: Pay');
    expect(
      breadcrumbLine({ timestamp: EVENT - 10, type: 'http', level: 'warning', data: { status_code: 502 } }, EVENT, 200),
    ).toBe('2026-11-20T23:59:55.000Z http warning: {"status_code":502}');
    expect(breadcrumbLine({ type: 'default', level: 'info', message: 'm'.repeat(10) }, EVENT, 12)).toBe(
      '? default: m…[truncated 9 characters]',
    );
  });

  it("leaves out the SDK's own sentry.* log attributes", () => {
    const log = {
      timestamp: EVENT,
      level: 'warn',
      body: 'slow query',
      attributes: { ms: { type: 'integer', value: 900 }, 'sentry.sdk.name': { type: 'string', value: 'sentry.javascript.node' } },
    } as unknown as LogRecord;
    expect(logLine(log, EVENT, 200)).toBe('00:00:05.000 warn slow query {"ms":900}');
  });
});
