// A real @sentry/node client as a person installing Errata runs it: the install guide's test
// event, or the application's first real error. Usage: node install-check.cjs <dsn> test-event|error
// Prints {"eventIds": [...]} on stdout.
const Sentry = require('@sentry/node');

const [dsn, kind] = process.argv.slice(2);
Sentry.init({ dsn, tracesSampleRate: 0 });

const eventIds = [];
if (kind === 'test-event') {
  // Word for word what the install guides send (core/agent/test-event.ts).
  eventIds.push(
    Sentry.captureMessage('Errata test event: the SDK is installed and can reach Errata', { tags: { 'errata.test_event': 'true' } }),
  );
} else if (kind === 'error') {
  try {
    JSON.parse('{"cart": ');
  } catch (error) {
    eventIds.push(Sentry.captureException(error));
  }
} else {
  console.error(`unknown kind ${kind}: use test-event or error`);
  process.exit(2);
}

Sentry.flush(10_000).then((ok) => {
  console.log(JSON.stringify({ eventIds, flushed: ok }));
  process.exit(ok ? 0 : 1);
});
