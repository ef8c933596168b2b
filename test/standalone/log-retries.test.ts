// An SDK sends an envelope again when it was not told it was stored (a 503 after the queue took
// it all the same, or a connection cut before the answer). Events are recognised by their id;
// log records by the bytes of their item, so the second copy stores nothing.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { searchLogs, waitForLogs } from '../support/issues.ts';
import { rawRequest } from '../support/raw-http.ts';
import { provision, startServer, stopAndRemove, type Provisioned, type StandaloneServer } from '../support/standalone-server.ts';

let server: StandaloneServer;
let project: Provisioned;

beforeAll(async () => {
  server = await startServer();
  project = await provision(server);
}, 120_000);
afterAll(async () => {
  if (server) await stopAndRemove(server);
});

const logItem = (bodies: string[], timestamp: number) =>
  [
    JSON.stringify({ type: 'log', item_count: bodies.length, content_type: 'application/vnd.sentry.items.log+json' }),
    JSON.stringify({ items: bodies.map((body, i) => ({ timestamp: timestamp + i / 1000, level: 'info', body })) }),
  ].join('\n');

// Near the receive time, so that no clock correction moves the records' times.
const sentAt = (offsetSeconds = 0) => new Date(Date.now() + offsetSeconds * 1000).toISOString();

const send = (items: string[], sent: string) =>
  rawRequest(`${server.url}/api/${project.projectId}/envelope/?sentry_key=${project.publicKey}`, {
    body: [JSON.stringify({ sent_at: sent, sdk: { name: 'sentry.javascript.node', version: '10.0.0' } }), ...items].join('\n'),
  });

it('stores the log records of an envelope sent again once (before, every attempt stored them anew)', async () => {
  const now = Date.now() / 1000;
  const envelope = [logItem(['retried first', 'retried second'], now - 30)];
  const sent = sentAt();
  expect((await send(envelope, sent)).status).toBe(200);
  expect((await send(envelope, sent)).status).toBe(200);
  // Records sent later with the same text are new records: their item's bytes differ. So is an
  // envelope of the same bytes sent at another time (its sent_at).
  expect((await send([logItem(['retried first'], now - 10)], sent)).status).toBe(200);
  expect((await send([logItem(['sent apart'], now - 5)], sentAt(1))).status).toBe(200);
  expect((await send([logItem(['sent apart'], now - 5)], sentAt(2))).status).toBe(200);
  await waitForLogs(server, project, 'query=sent apart', 2);
  // The last sends were processed after those before them (one queue, in order): nothing more comes.
  const bodies = (await searchLogs(server, project, 'query=retried')).map((log) => log.body);
  expect(bodies).toEqual(['retried first', 'retried second', 'retried first']);
});
