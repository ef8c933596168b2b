// The read API's logs default to the whole retention period and no more: a record older than
// retention that the daily drop has not reached yet is left out, as search_logs and the Logs page
// leave it out, while a sinceMinutes window still narrows the search.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { searchLogs, waitForLogs } from '../support/issues.ts';
import { rawRequest } from '../support/raw-http.ts';
import { provision, startServer, stopAndRemove, type Provisioned, type StandaloneServer } from '../support/standalone-server.ts';

let server: StandaloneServer;
let project: Provisioned;

beforeAll(async () => {
  server = await startServer({ env: { ERRATA_EVENT_RETENTION_DAYS: '1' } });
  project = await provision(server);
}, 120_000);
afterAll(async () => {
  if (server) await stopAndRemove(server);
});

function logEnvelope(items: Array<{ timestamp: number; body: string }>): string {
  const payload = { items: items.map((item) => ({ ...item, level: 'info' })) };
  return [
    JSON.stringify({ sdk: { name: 'sentry.javascript.node', version: '10.0.0' } }),
    JSON.stringify({ type: 'log', item_count: items.length, content_type: 'application/vnd.sentry.items.log+json' }),
    JSON.stringify(payload),
  ].join('\n');
}

it('searches the retention period by default, never before it', async () => {
  const now = Date.now() / 1000;
  const sent = await rawRequest(`${server.url}/api/${project.projectId}/envelope/?sentry_key=${project.publicKey}`, {
    body: logEnvelope([
      { timestamp: now - 2 * 86_400, body: 'two days old, past retention' },
      { timestamp: now - 2 * 3600, body: 'two hours old' },
      { timestamp: now - 60, body: 'a minute old' },
    ]),
  });
  expect(sent.status).toBe(200);
  expect((await waitForLogs(server, project, 'query=old', 2)).map((log) => log.body)).toEqual(['a minute old', 'two hours old']);
  expect((await searchLogs(server, project, 'query=old&sinceMinutes=60')).map((log) => log.body)).toEqual(['a minute old']);
});
