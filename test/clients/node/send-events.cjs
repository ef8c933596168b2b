// A real @sentry/node client for the end-to-end suite.
// Usage: node send-events.cjs <dsn> <scenario> <marker>; prints {"eventIds": [...]} on stdout.
const Sentry = require('@sentry/node');

const [dsn, scenario, marker] = process.argv.slice(2);
Sentry.init({
  dsn,
  release: `node-client@${marker}`,
  environment: 'e2e',
  enableLogs: true,
  tracesSampleRate: 0,
  // The 'dropped' scenario's events go nowhere: the SDK reports them in a client report instead.
  beforeSend: (event) => (scenario === 'dropped' ? null : event),
});
Sentry.setUser({ id: `node-user-${marker}` });
Sentry.setTag('marker', marker);

function parseCart(cart) {
  if (!cart.items) throw new TypeError(`Cart ${cart.id} of ${marker} is empty`);
  return cart;
}
function loadCart(id) {
  return parseCart({ id });
}

const eventIds = [];
switch (scenario) {
  case 'exception':
    for (let i = 0; i < 3; i++) {
      try {
        loadCart(1000 + i);
      } catch (error) {
        eventIds.push(Sentry.captureException(error));
      }
    }
    break;
  case 'message':
    eventIds.push(Sentry.captureMessage(`Node message ${marker}`, 'warning'));
    break;
  case 'dropped':
    for (let i = 0; i < 2; i++) Sentry.captureException(new Error(`Dropped by before_send ${i} ${marker}`));
    break;
  case 'large': {
    // Over 32 KiB, so the SDK gzips the request.
    const blob = Array.from({ length: 60 }, (_, i) => `${i}-${'x'.repeat(700)}`);
    try {
      loadCart(7);
    } catch (error) {
      eventIds.push(Sentry.captureException(error, { extra: { blob } }));
    }
    break;
  }
  case 'logs':
    Sentry.logger.info(`Node log info ${marker}`, { cartId: 7, premium: true, ratio: 0.5 });
    Sentry.logger.warn(`Node log warn ${marker}`, { region: 'eu' });
    Sentry.logger.error(Sentry.logger.fmt`Node log error ${marker} for cart ${42}`);
    break;
  case 'log-flood':
    // More than the dashboard's live tail shows live (1000 in 10 s): it pauses, saying so.
    for (let i = 0; i < 2500; i++) Sentry.logger.info(`Node flood ${i} ${marker}`);
    break;
  default:
    console.error(`unknown scenario ${scenario}`);
    process.exit(2);
}

// The SDK counts a before_send drop once the event is processed, after a first flush began; the
// second flush sends the client report that counts it.
const processed = scenario === 'dropped' ? Sentry.flush(10_000) : Promise.resolve(true);
processed
  .then(() => Sentry.flush(10_000))
  .then((ok) => {
    console.log(JSON.stringify({ eventIds, flushed: ok }));
    process.exit(ok ? 0 : 1);
  });
