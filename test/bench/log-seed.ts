// Fills a project with LOGS log records for bench:dashboard's Logs page: spread over the last
// 24 hours (so the default hour holds about a 24th), levels skewed as in life (mostly info),
// typed attributes to search (route, a number to compare, a user) and a trace id per ten
// records. Written through LogStore.insertLogs in large batches, what the dispatcher ends in.
import { SEVERITY_NUMBER, type LogLevel, type LogRecord } from '../../services/core/logs/log-record.ts';
import type { LogStore } from '../../services/core/ports/log-store.ts';

const BATCH = 5_000;
const SPAN_S = 86_400;
const ROUTES = ['/cart', '/pay', '/search', '/items', '/login'];

function level(n: number): LogLevel {
  if (n % 97 === 0) return 'error';
  if (n % 23 === 0) return 'warn';
  if (n % 5 === 0) return 'debug';
  return 'info';
}

export async function seedLogs(logs: LogStore, projectId: number, count: number, report: (done: number) => void): Promise<void> {
  const now = Date.now() / 1000;
  for (let start = 0; start < count; start += BATCH) {
    const records: LogRecord[] = [];
    for (let n = start; n < Math.min(count, start + BATCH); n++) {
      const lvl = level(n);
      const route = ROUTES[n % ROUTES.length]!;
      records.push({
        id: `bench:${n}`,
        projectId,
        // Newest first in n, evenly over the span.
        timestamp: now - (n / count) * SPAN_S,
        observedAt: now,
        traceId: (Math.floor(n / 10) + 1).toString(16).padStart(32, '0'),
        spanId: null,
        level: lvl,
        severityNumber: SEVERITY_NUMBER[lvl],
        body: lvl === 'error' ? `request to ${route} failed: upstream timeout` : `served ${route} for user ${n % 997}`,
        attributes: {
          route: { type: 'string', value: route },
          duration_ms: { type: 'integer', value: (n * 37) % 1200 },
          'user.id': { type: 'string', value: `user-${n % 997}` },
        },
        release: 'web@1.0.0',
        environment: n % 4 === 0 ? 'staging' : 'production',
      });
    }
    await logs.insertLogs(records);
    report(Math.min(count, start + BATCH));
  }
}
