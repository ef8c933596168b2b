// A real @sentry/node client for the alert suites: sends the events it is given, each grouped by
// its own fingerprint. Usage: node alert-events.cjs <dsn> <release> <environment> '<json events>',
// where an event is {group, message, level?, user?}; prints {"eventIds": [...]} on stdout.
const Sentry = require('@sentry/node');

const [dsn, release, environment, eventsJson] = process.argv.slice(2);
Sentry.init({ dsn, release, environment, tracesSampleRate: 0 });

const eventIds = [];
for (const event of JSON.parse(eventsJson)) {
  Sentry.withScope((scope) => {
    scope.setFingerprint([event.group]);
    if (event.level) scope.setLevel(event.level);
    if (event.user) scope.setUser({ id: event.user });
    eventIds.push(Sentry.captureException(new Error(event.message)));
  });
}

Sentry.flush(10_000).then((ok) => {
  console.log(JSON.stringify({ eventIds, flushed: ok }));
  process.exit(ok ? 0 : 1);
});
