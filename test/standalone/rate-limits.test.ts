// Per-project rate limits: over the limit, ingest answers 429 with Retry-After and
// X-Sentry-Rate-Limits (which SDKs obey); when only some items are limited, the rest is
// accepted and the header names what was limited. Limited items are counted as outcomes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventEnvelope, rawRequest } from '../support/raw-http.ts';
import { waitForLogs } from '../support/issues.ts';
import {
  provision,
  runCliJson,
  startServer,
  stopAndRemove,
  type Provisioned,
  type StandaloneServer,
} from '../support/standalone-server.ts';

let server: StandaloneServer;
let p: Provisioned;

beforeAll(async () => {
  server = await startServer({ env: { ERRATA_RATE_LIMIT_EVENTS_PER_MINUTE: '2' } });
  p = await provision(server, 'Limited');
});
afterAll(async () => {
  await stopAndRemove(server);
});

const id = () => randomUUID().replace(/-/g, '');
const url = () => `${server.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`;

describe('rate limits', () => {
  it('answers 429 with the headers SDKs obey once a project is over its limit', async () => {
    for (let i = 0; i < 2; i++)
      expect((await rawRequest(url(), { body: eventEnvelope({ event_id: id(), message: `ok ${i}` }) })).status).toBe(200);
    const limited = await rawRequest(url(), { body: eventEnvelope({ event_id: id(), message: 'too many' }) });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['x-sentry-rate-limits']).toMatch(/^\d+:error;default:project:project_quota$/);
    expect(limited.json()).toEqual({
      error: { code: 'rate_limited', message: expect.stringMatching(/rate limit of this project reached/) },
    });
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/errata_outcomes_total\{reason="rate_limited",category="error",stage="ingest"\} 1/);
  });

  it('takes a per-project limit set with the CLI, at once', async () => {
    await runCliJson(['setratelimit', '--project', p.projectSlug, '--events-per-minute', '1000'], server.env);
    expect((await rawRequest(url(), { body: eventEnvelope({ event_id: id(), message: 'raised limit' }) })).status).toBe(200);
    await runCliJson(['setratelimit', '--project', p.projectSlug, '--events-per-minute', 'default'], server.env);
    // Back to 2 a minute: at most a fresh bucket of 2 goes through, then 429 again.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await rawRequest(url(), { body: eventEnvelope({ event_id: id(), message: `default ${i}` }) })).status);
    expect(statuses.at(-1)).toBe(429);
  });

  it('accepts the items that are within their limit and names the limited ones', async () => {
    const marker = `logs pass ${randomUUID().slice(0, 8)}`;
    const logs = JSON.stringify({
      items: [{ timestamp: Date.now() / 1000, level: 'info', body: marker, trace_id: 'a'.repeat(32) }],
    });
    const body = `${eventEnvelope({ event_id: id(), message: 'still limited' })}{"type":"log","item_count":1,"content_type":"application/vnd.sentry.items.log+json"}\n${logs}\n`;
    const response = await rawRequest(url(), { body });
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({});
    expect(response.headers['x-sentry-rate-limits']).toMatch(/:error;default:project:project_quota$/);
    await waitForLogs(server, p, `query=${encodeURIComponent(marker)}`, 1);
  });
});
