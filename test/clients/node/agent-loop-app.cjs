// A small shop as a real @sentry/node client, for bench:agent-loop: eight kinds of error over
// three releases and two environments, a noisy warning, logs in each request's trace, and a
// fourth release in which the checkout bug comes back.
// Usage: node agent-loop-app.cjs <dsn> <release>   (shop@1.0.0, shop@1.1.0, shop@1.2.0, shop@1.3.0)
// Prints {"eventIds": [...]} on stdout.
const Sentry = require('@sentry/node');

const [dsn, release] = process.argv.slice(2);

const eventIds = [];

/** One request of the shop: its own trace, a log line, a breadcrumb, then the failure. */
function request(route, n) {
  Sentry.startNewTrace(() => {
    Sentry.addBreadcrumb({ category: 'http', message: `GET ${route}`, level: 'info' });
    Sentry.logger.info(`handling ${route}`, { route });
    try {
      serve(route, n);
    } catch (error) {
      Sentry.logger.error(`request failed: ${error.message}`, { route });
      eventIds.push(Sentry.captureException(error));
    }
  });
}

// Each failure has its own function, so each groups into its own issue; the numbers in the
// messages vary (grouping masks them), so the SDK's Dedupe does not drop repeats.
function checkoutTotal(cart) {
  if (cart.total === undefined) throw new TypeError(`Cannot read properties of undefined (reading 'total') in cart ${cart.id}`);
}
function paginate(page) {
  throw new RangeError(`page ${page} is out of range (1..${page - 3})`);
}
function chargeCard(order) {
  throw new Error(`payment gateway timed out after 3000 ms for order ${order}`);
}
function loadConfig(n) {
  JSON.parse(`{"flags": [${n},]}`);
}
function renderReport(n) {
  // eslint-disable-next-line no-undef
  return reportRows[n];
}
function cacheGet(n) {
  const error = new Error(`connect ECONNREFUSED 127.0.0.1:${6379 + (n % 2)}`);
  error.code = 'ECONNREFUSED';
  throw error;
}
function profileName(user) {
  return user.profile.name;
}
function exportCsv(rows) {
  throw new Error(`export of ${rows} rows exceeded the 30 s limit`, { cause: new Error(`query ${rows} cancelled`) });
}

// One place calls each handler, so a failure's stack is the same whichever release sends it
// (the grouping follows the stack).
function serve(route, n) {
  switch (route) {
    case '/checkout':
      return checkoutTotal({ id: n });
    case '/reports':
      return renderReport(n);
    case '/config':
      return loadConfig(n);
    case '/products':
      return paginate(n);
    case '/pay':
      return chargeCard(n);
    case '/cache':
      return cacheGet(n);
    case '/profile':
      return profileName({ id: n });
    case '/export':
      return exportCsv(n);
  }
}

// What each release of the shop does; 1.3.0 comes after the agent resolved the checkout bug.
const RELEASES = {
  'shop@1.0.0': {
    environment: 'production',
    plan() {
      for (let i = 0; i < 4; i++) request('/checkout', 100 + i);
      for (let i = 0; i < 3; i++) request('/reports', i);
      request('/config', 1);
    },
  },
  'shop@1.1.0': {
    environment: 'staging',
    plan() {
      for (let i = 0; i < 3; i++) request('/products', 10 + i);
      for (let i = 0; i < 2; i++) request('/pay', 500 + i);
      request('/cache', 1);
    },
  },
  'shop@1.2.0': {
    environment: 'production',
    plan() {
      for (let i = 0; i < 5; i++) request('/checkout', 200 + i);
      for (let i = 0; i < 2; i++) request('/profile', i);
      request('/export', 1000);
      // Noise: a warning every request logs, which an agent should set aside.
      for (let i = 0; i < 12; i++) eventIds.push(Sentry.captureMessage(`slow response: ${300 + i} ms`, 'warning'));
    },
  },
  'shop@1.3.0': {
    environment: 'production',
    plan() {
      for (let i = 0; i < 3; i++) request('/checkout', 300 + i);
    },
  },
};

async function main() {
  const shop = RELEASES[release];
  if (!shop) {
    console.error(`unknown release ${release}: one of ${Object.keys(RELEASES).join(', ')}`);
    process.exit(2);
  }
  Sentry.init({ dsn, release, environment: shop.environment, enableLogs: true, tracesSampleRate: 0 });
  Sentry.setUser({ id: `user-${release}` });
  shop.plan();
  await Sentry.flush(5000);
  process.stdout.write(JSON.stringify({ eventIds }));
}

main();
