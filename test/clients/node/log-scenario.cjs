// A real @sentry/node client for the Logs page's suite: log records of every kind the page
// searches (levels, typed attributes, a body with markup), then a second trace holding a log,
// an error and another log, a few milliseconds apart, for the trace view.
// Usage: node log-scenario.cjs <dsn> <marker>; prints {"eventIds": [...]} on stdout.
const Sentry = require('@sentry/node');

const [dsn, marker] = process.argv.slice(2);
Sentry.init({ dsn, release: 'logs@1.0.0', environment: 'production', enableLogs: true, tracesSampleRate: 0 });

/** Busy-waits, so the records of the trace get distinct, ordered timestamps without leaving the callback. */
function pause(ms) {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

Sentry.logger.info(`served cart ${marker}`, { marker, duration_ms: 40, route: '/cart' });
pause(5);
Sentry.logger.info(`served pay ${marker}`, { marker, duration_ms: 900, route: '/pay' });
pause(5);
Sentry.logger.warn(`disk almost full ${marker}`, { marker, disk: 'sda' });
pause(5);
Sentry.logger.error(`<img src=x onerror=alert(1)> declined ${marker}`, { marker, 'http.status_code': 402 });

const eventIds = [];
Sentry.startNewTrace(() => {
  pause(20);
  Sentry.logger.info(`checkout started ${marker}`, { marker, step: 1 });
  pause(20);
  eventIds.push(Sentry.captureException(new Error(`checkout crashed ${marker}`)));
  pause(20);
  Sentry.logger.info(`checkout cleaned up ${marker}`, { marker, step: 2 });
});

Sentry.flush(10_000).then((ok) => {
  console.log(JSON.stringify({ eventIds, flushed: ok }));
  process.exit(ok ? 0 : 1);
});
