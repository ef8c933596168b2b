// A real @sentry/node client for the grouping-rules end-to-end test: two database errors of
// different types, and one validation error reached through two different worker functions.
// Usage: node grouping-rules.cjs <dsn> <marker>; prints {"eventIds": [...]} on stdout.
const Sentry = require('@sentry/node');

const [dsn, marker] = process.argv.slice(2);
Sentry.init({ dsn, release: `rules-client@${marker}`, environment: 'e2e', tracesSampleRate: 0 });

class PrimaryUnavailable extends Error {
  name = 'PrimaryUnavailable';
}
class ReplicaUnavailable extends Error {
  name = 'ReplicaUnavailable';
}
class ValidationError extends Error {
  name = 'ValidationError';
}

function connectPrimary() {
  throw new PrimaryUnavailable(`primary of ${marker} is down`);
}
function connectReplica() {
  throw new ReplicaUnavailable(`replica of ${marker} is down`);
}
function validate(order) {
  throw new ValidationError(`invalid order ${order} of ${marker}`);
}
function viaWorkerA() {
  validate('A');
}
function viaWorkerB() {
  validate('B');
}

const eventIds = [];
for (const run of [connectPrimary, connectReplica, viaWorkerA, viaWorkerB]) {
  try {
    run();
  } catch (error) {
    eventIds.push(Sentry.captureException(error));
  }
}

Sentry.flush(10_000).then((ok) => {
  console.log(JSON.stringify({ eventIds, flushed: ok }));
  process.exit(ok ? 0 : 1);
});
