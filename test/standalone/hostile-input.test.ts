// Bad and hostile input against a running server: each gets the right status and a message
// that says what was wrong, nothing already accepted is harmed, and the server keeps serving.
import { randomBytes, randomUUID } from 'node:crypto';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopePoster, envelopeUrlOf, eventEnvelope, newEventId, rawRequest } from '../support/raw-http.ts';
import { listIssues, searchLogs, waitForIssue, waitForLatestEvent, waitForLogs } from '../support/issues.ts';
import { metricTotal } from '../support/metrics.ts';
import {
  api,
  provision,
  runCliJson,
  startServer,
  stopAndRemove,
  type Provisioned,
  type StandaloneServer,
} from '../support/standalone-server.ts';

let server: StandaloneServer;
let p: Provisioned;
let envelopeUrl: string;

beforeAll(async () => {
  server = await startServer();
  p = await provision(server, 'Hostile');
  envelopeUrl = envelopeUrlOf(server, p);
});
afterAll(async () => {
  await stopAndRemove(server);
});

const id = newEventId;
const post = envelopePoster(() => envelopeUrl);

async function outcomes(reason: string): Promise<number> {
  return metricTotal(server, 'errata_outcomes_total', { reason });
}

async function stillServing(): Promise<void> {
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  const marker = `alive ${randomUUID().slice(0, 8)}`;
  const response = await post(eventEnvelope({ event_id: id(), message: marker }));
  expect(response.status).toBe(200);
  await waitForIssue(server, p, marker);
}

describe('framing', () => {
  it.each([
    ['a header that is not JSON', 'not json\n{"type":"event"}\n{}', /envelope header is not valid JSON/],
    ['an item header without a type', '{}\n{"length":2}\n{}', /item 1 header has no "type"/],
    ['a length beyond the body', '{}\n{"type":"event","length":500}\n{}', /declares length 500 but only 2 bytes follow/],
    [
      'a length shorter than the payload',
      '{}\n{"type":"event","length":3}\n{"message":"x"}\n',
      /expected a newline after its 3-byte payload/,
    ],
    ['an empty body', '', /empty request body/],
  ])('refuses %s with 400 and says what is wrong', async (_name, body, message) => {
    const before = await outcomes('invalid_envelope');
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(response.json()).toEqual({ error: { code: 'invalid_input', message: expect.stringMatching(message) } });
    expect(await outcomes('invalid_envelope')).toBe(before + 1);
  });

  it('refuses an envelope with two event items', async () => {
    const body = `{}\n{"type":"event"}\n{"message":"one"}\n{"type":"event"}\n{"message":"two"}\n`;
    const response = await post(body);
    expect(response.status).toBe(400);
    expect((response.json().error as { message: string }).message).toMatch(
      /2 event items: send each event in an envelope of its own/,
    );
  });

  it('accepts an envelope under a DSN path prefix and without item lengths', async () => {
    const marker = `prefixed ${randomUUID().slice(0, 8)}`;
    const response = await post(
      eventEnvelope({ event_id: id(), message: marker }, { withLength: false }),
      {},
      `${server.url}/errata/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`,
    );
    expect(response.status).toBe(200);
    await waitForIssue(server, p, marker);
  });
});

describe('limits', () => {
  it('refuses a gzip bomb with 413 without inflating it', async () => {
    const bomb = gzipSync(Buffer.alloc(150 * 1024 * 1024), { level: 9 });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const before = await outcomes('too_large');
    const response = await post(bomb, { 'content-encoding': 'gzip' });
    expect(response.status).toBe(413);
    expect(await outcomes('too_large')).toBe(before + 1);
    expect(response.json()).toEqual({
      error: {
        code: 'payload_too_large',
        message: expect.stringMatching(/decompressed body exceeds 100 MiB \(ERRATA_MAX_ENVELOPE_BYTES\)/),
      },
    });
    await stillServing();
  });

  it('refuses an event item over 1 MiB with 413 naming the limit', async () => {
    const response = await post(eventEnvelope({ event_id: id(), message: 'big', extra: { blob: 'x'.repeat(1024 * 1024) } }));
    expect(response.status).toBe(413);
    expect((response.json().error as { message: string }).message).toMatch(/exceeds 1 MiB \(ERRATA_MAX_EVENT_BYTES\)/);
  });

  it('refuses a log item over 4 MiB with 413 naming the limit, counting every item of the envelope, a log item by its records', async () => {
    const before = await outcomes('too_large');
    const items = Array.from({ length: 5000 }, (_, i) => ({
      timestamp: Date.now() / 1000,
      level: 'info',
      body: `line ${i} ${'z'.repeat(900)}`,
    }));
    const payload = JSON.stringify({ items });
    const body = `{}\n{"type":"log","item_count":5000}\n${payload}\n{"type":"event"}\n{"message":"with it"}\n`;
    const response = await post(gzipSync(body), { 'content-encoding': 'gzip' });
    expect(response.status).toBe(413);
    expect((response.json().error as { message: string }).message).toMatch(
      /log item of [\d.]+ (MiB|KiB|bytes) exceeds 4 MiB \(ERRATA_MAX_LOG_ITEM_BYTES\)/,
    );
    expect(await outcomes('too_large')).toBe(before + 5000 + 1);
  });

  it('stores a log container just under the limit', async () => {
    const marker = `bulk ${randomUUID().slice(0, 8)}`;
    const items = Array.from({ length: 4000 }, (_, i) => ({
      timestamp: Date.now() / 1000,
      level: 'info',
      body: `${marker} ${i} ${'y'.repeat(950)}`,
    }));
    const payload = JSON.stringify({ items });
    expect(payload.length).toBeGreaterThan(3.8 * 1024 * 1024);
    const response = await post(gzipSync(`{}\n{"type":"log","item_count":4000}\n${payload}\n`), { 'content-encoding': 'gzip' });
    expect(response.status).toBe(200);
    const page = await api<{ logs: unknown[] }>(
      server,
      `/api/v1/organizations/${p.organization}/projects/${p.projectSlug}/logs?query=${encodeURIComponent(marker)}&limit=1`,
      p.token,
    );
    expect(page.status).toBe(200);
    await waitForLogs(server, p, `query=${encodeURIComponent(`${marker} 3999 `)}`, 1);
    await stillServing();
  });

  it('refuses an oversized event on the store endpoint before parsing it', async () => {
    const response = await post(
      JSON.stringify({ message: 'huge', extra: { blob: 'x'.repeat(2 * 1024 * 1024) } }),
      { 'x-sentry-auth': `Sentry sentry_key=${p.publicKey}, sentry_version=7` },
      `${server.url}/api/${p.projectId}/store/`,
    );
    expect(response.status).toBe(413);
    expect((response.json().error as { message: string }).message).toMatch(/exceeds 1 MiB \(ERRATA_MAX_EVENT_BYTES\)/);
  });

  it('refuses a base64 store body too long for any event before decoding it (it was decoded, then 400)', async () => {
    const before = await outcomes('too_large');
    const response = await post(
      gzipSync(`\n${'A'.repeat(3 * 1024 * 1024)}`),
      { 'x-sentry-auth': `Sentry sentry_key=${p.publicKey}, sentry_version=7`, 'content-encoding': 'gzip' },
      `${server.url}/api/${p.projectId}/store/`,
    );
    expect(response.status).toBe(413);
    expect((response.json().error as { message: string }).message).toMatch(
      /event of 2304 KiB exceeds 1 MiB \(ERRATA_MAX_EVENT_BYTES\)/,
    );
    expect(await outcomes('too_large')).toBe(before + 1);
  });

  it('stores a base64 store body of uncompressed zlib in MIME lines, its event just under the limit', async () => {
    const eventId = id();
    const marker = `mime ${randomUUID().slice(0, 8)}`;
    const event = JSON.stringify({ event_id: eventId, message: marker, extra: { random: randomBytes(519_000).toString('hex') } });
    expect(event.length).toBeGreaterThan(1_038_000);
    expect(event.length).toBeLessThan(1024 * 1024);
    // Stored deflate blocks (level 0) and CRLF every 76 characters: the longest text such an
    // event makes, longer than base64 of the largest event without the allowance for line breaks.
    const lines = deflateSync(event, { level: 0 })
      .toString('base64')
      .match(/.{1,76}/g)!
      .join('\r\n');
    expect(lines.length).toBeGreaterThan(Math.ceil((1024 * 1024 + 400) / 3) * 4);
    const response = await post(
      gzipSync(lines),
      { 'x-sentry-auth': `Sentry sentry_key=${p.publicKey}, sentry_version=7`, 'content-encoding': 'gzip' },
      `${server.url}/api/${p.projectId}/store/`,
    );
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ id: eventId });
    await waitForIssue(server, p, marker);
  });

  it('refuses a request body over 20 MiB with 413 naming the limit', async () => {
    const response = await post(Buffer.alloc(21 * 1024 * 1024, 0x61));
    expect(response.status).toBe(413);
    expect((response.json().error as { message: string }).message).toMatch(/exceeds 20 MiB as sent \(ERRATA_MAX_REQUEST_BYTES\)/);
    await stillServing();
  });
});

describe('payloads', () => {
  it('keeps an event nested 200,000 levels deep, trimming the depth instead of failing', async () => {
    const marker = `deep ${randomUUID().slice(0, 8)}`;
    const nested = `{"message":"${marker}","extra":{"deep":${'['.repeat(200_000)}${']'.repeat(200_000)}}}`;
    expect((await post(`{"event_id":"${id()}"}\n{"type":"event"}\n${nested}`)).status).toBe(200);
    const issue = await waitForIssue(server, p, marker);
    const latestEvent = await waitForLatestEvent<{ payload: { extra: { deep: unknown } } }>(server, p, issue.shortId);
    expect(JSON.stringify(latestEvent.payload.extra.deep)).toMatch(
      /^\[\[\[\[\[\["\[truncated: nested too deeply\]"\]\]\]\]\]\]$/,
    );
    await stillServing();
  });

  it('keeps the event when a field has the wrong shape', async () => {
    const marker = `odd fields ${randomUUID().slice(0, 8)}`;
    const event = {
      event_id: id(),
      message: marker,
      timestamp: 'not a time',
      level: 12345,
      tags: 'nope',
      user: [1],
      breadcrumbs: 'x',
      exception: 7,
    };
    expect((await post(eventEnvelope(event))).status).toBe(200);
    expect(await waitForIssue(server, p, marker)).toMatchObject({ level: 'error' });
  });

  it('keeps log attributes named like Object members as data, and filters on them', async () => {
    const marker = `odd keys ${randomUUID().slice(0, 8)}`;
    const now = Date.now() / 1000;
    const attributes = '{"__proto__":{"value":"p","type":"string"},"constructor":{"value":"c","type":"string"}}';
    const items = `{"items":[{"timestamp":${now},"level":"info","body":"${marker} odd","attributes":${attributes}},{"timestamp":${now},"level":"info","body":"${marker} plain"}]}`;
    expect((await post(`{}\n{"type":"log","item_count":2}\n${items}\n`)).status).toBe(200);
    await waitForLogs(server, p, `query=${encodeURIComponent(marker)}`, 2);
    const bodies = async (filter: string) =>
      (await searchLogs(server, p, `query=${encodeURIComponent(marker)}&attribute=${encodeURIComponent(filter)}`)).map(
        (log) => log.body,
      );
    // Each filter matches the one record that has the key; a filter dropped would match both.
    expect(await bodies('__proto__:p')).toEqual([`${marker} odd`]);
    expect(await bodies('constructor:c')).toEqual([`${marker} odd`]);
  });

  it('acknowledges item types it does not store, counting them', async () => {
    const before = await outcomes('unknown_item_type');
    const notStored = await outcomes('item_not_stored');
    const body =
      '{}\n{"type":"who_knows"}\n{}\n{"type":"client_report"}\n{"discarded_events":[]}\n{"type":"session"}\n{"sid":"x"}\n';
    const response = await post(body);
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({});
    expect(await outcomes('unknown_item_type')).toBe(before + 1);
    expect(await outcomes('item_not_stored')).toBe(notStored + 2);
  });

  it('refuses invalid JSON on the store endpoint with 400', async () => {
    const response = await post(
      '{"message": oops',
      { 'x-sentry-auth': `Sentry sentry_key=${p.publicKey}, sentry_version=7` },
      `${server.url}/api/${p.projectId}/store/`,
    );
    expect(response.status).toBe(400);
    expect(response.json()).toEqual({ error: { code: 'invalid_input', message: expect.stringMatching(/invalid JSON data/) } });
  });

  it('stores an event sent to the legacy store endpoint', async () => {
    const eventId = id();
    const marker = `stored ${randomUUID().slice(0, 8)}`;
    const response = await post(
      JSON.stringify({ event_id: eventId, message: marker }),
      { 'x-sentry-auth': `Sentry sentry_key=${p.publicKey}, sentry_version=7` },
      `${server.url}/api/${p.projectId}/store/`,
    );
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ id: eventId });
    await waitForIssue(server, p, marker);
  });
});

describe('authentication', () => {
  const envelope = () => eventEnvelope({ event_id: id(), message: 'auth' });
  const bare = () => `${server.url}/api/${p.projectId}/envelope/`;

  it('refuses a request with no key with 401', async () => {
    const response = await post(envelope(), {}, bare());
    expect(response.status).toBe(401);
    expect((response.json().error as { message: string }).message).toMatch(/missing authorization information/);
  });

  it('refuses two keys at once with 401', async () => {
    const response = await post(envelope(), { 'x-sentry-auth': `Sentry sentry_key=${p.publicKey}` });
    expect(response.status).toBe(401);
    expect((response.json().error as { message: string }).message).toMatch(/multiple authorization payloads/);
  });

  it('refuses an unknown key with 403', async () => {
    const response = await post(envelope(), {}, `${bare()}?sentry_key=${'0'.repeat(31)}1`);
    expect(response.status).toBe(403);
    expect((response.json().error as { message: string }).message).toMatch(/unknown DSN public key/);
  });

  it('takes the key from the envelope header dsn when the request has none', async () => {
    const marker = `dsn header ${randomUUID().slice(0, 8)}`;
    const response = await post(eventEnvelope({ event_id: id(), message: marker }, { header: { dsn: p.dsn } }), {}, bare());
    expect(response.status).toBe(200);
    await waitForIssue(server, p, marker);
  });

  it('refuses a disabled key with 403 and accepts it again once enabled', async () => {
    await runCliJson(['disablekey', p.publicKey], server.env);
    const refused = await post(envelope());
    expect(refused.status).toBe(403);
    expect((refused.json().error as { message: string }).message).toMatch(/disabled/);
    await runCliJson(['enablekey', p.publicKey], server.env);
    expect((await post(envelope())).status).toBe(200);
  });
});

describe('CORS', () => {
  it('answers a preflight and exposes the rate-limit headers', async () => {
    const response = await rawRequest(envelopeUrl, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['access-control-allow-methods']).toContain('POST');
    expect(response.headers['access-control-allow-headers']).toContain('content-type');
    const post = await rawRequest(envelopeUrl, {
      body: eventEnvelope({ event_id: id(), message: 'cors' }),
      headers: { origin: 'http://app.example' },
    });
    expect(post.headers['access-control-allow-origin']).toBe('*');
    expect(post.headers['access-control-expose-headers']).toMatch(/x-sentry-rate-limits/);
    expect(post.headers['access-control-expose-headers']).toMatch(/retry-after/);
  });
});

describe('after all of that', () => {
  it('still serves and lost nothing it had accepted', async () => {
    await stillServing();
    const issues = await listIssues(server, p);
    expect(issues.length).toBeGreaterThan(5);
  });
});
