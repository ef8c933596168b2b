// Protocol details where Errata follows Sentry's Relay, each sent to a real server as raw bytes
// and followed through to the stored event: an envelope with an empty line between its items
// (as an SDK joins a client_report to its event), an envelope header's event_id that differs
// from the payload's, the GET store endpoint, and clock-drift correction from `sent_at`.
import { randomUUID } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForIssue, waitForLatestEvent } from '../support/issues.ts';
import { envelopePoster, envelopeUrlOf, newEventId, rawRequest } from '../support/raw-http.ts';
import { provision, startServer, stopAndRemove, type Provisioned, type StandaloneServer } from '../support/standalone-server.ts';

let server: StandaloneServer;
let p: Provisioned;
let envelopeUrl: string;

beforeAll(async () => {
  server = await startServer();
  p = await provision(server, 'Conformance');
  envelopeUrl = envelopeUrlOf(server, p);
});
afterAll(async () => {
  await stopAndRemove(server);
});

const post = envelopePoster(() => envelopeUrl);
const marker = (what: string) => `${what}-${randomUUID().slice(0, 8)}`;

interface StoredEvent {
  eventId: string;
  payload: { event_id: string; timestamp: number; errors?: Array<{ type: string; name: string; value?: unknown }> };
}

describe('envelope framing', () => {
  it('stores the event of an envelope with an empty line before its client_report', async () => {
    const message = marker('empty-line');
    const eventId = newEventId();
    const report = JSON.stringify({
      timestamp: Date.now() / 1000,
      discarded_events: [{ reason: 'queue_overflow', category: 'error', quantity: 1 }],
    });
    const body =
      `${JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() })}\n` +
      `{"type":"event"}\n${JSON.stringify({ event_id: eventId, message, level: 'error' })}\n` +
      `\n{"type":"client_report"}\n${report}\n`;
    const response = await post(body);
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ id: eventId });
    const issue = await waitForIssue(server, p, message);
    const event = await waitForLatestEvent<StoredEvent>(server, p, issue.shortId);
    expect(event.payload.event_id).toBe(eventId);
  });

  it('authenticates by the header dsn only on the first line, as Relay does; with the key in the request an empty line first is framing', async () => {
    const message = marker('leading-line');
    const body = `\n${JSON.stringify({ dsn: p.dsn })}\n{"type":"event"}\n${JSON.stringify({ message })}\n`;
    const headerOnly = await post(body, {}, `${server.url}/api/${p.projectId}/envelope/`);
    expect(headerOnly.status).toBe(401);
    expect(headerOnly.json()).toMatchObject({
      error: { message: expect.stringMatching(/first line must be the whole envelope header/) },
    });
    const keyed = await post(body);
    expect(keyed.status).toBe(200);
    await waitForIssue(server, p, message);
  });

  it('keeps the envelope header event_id when the payload names another, as Relay does', async () => {
    const message = marker('two-ids');
    const headerId = newEventId();
    const payloadId = newEventId();
    const response = await post(
      `{"event_id":"${headerId}"}\n{"type":"event"}\n{"event_id":"${payloadId}","message":"${message}"}\n`,
    );
    expect(response.json()).toEqual({ id: headerId });
    const issue = await waitForIssue(server, p, message);
    const event = await waitForLatestEvent<StoredEvent>(server, p, issue.shortId);
    expect(event.payload.event_id).toBe(headerId);
  });
});

describe('the GET store endpoint', () => {
  const getStore = (query: string) => rawRequest(`${server.url}/api/${p.projectId}/store/?${query}`, { method: 'GET' });

  it('stores an event sent as JSON in sentry_data with the key in the query, and answers with a 1x1 GIF', async () => {
    const message = marker('get-json');
    const eventId = newEventId();
    const data = encodeURIComponent(JSON.stringify({ event_id: eventId, message }));
    const response = await getStore(
      `sentry_version=7&sentry_client=raven-js%2F3.27.0&sentry_key=${p.publicKey}&sentry_data=${data}`,
    );
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('image/gif');
    expect(response.body.startsWith('GIF89a')).toBe(true);
    const issue = await waitForIssue(server, p, message);
    expect((await waitForLatestEvent<StoredEvent>(server, p, issue.shortId)).payload.event_id).toBe(eventId);
  });

  it('stores an event sent as base64 of zlib-compressed JSON in sentry_data', async () => {
    const message = marker('get-zlib');
    const data = encodeURIComponent(deflateSync(JSON.stringify({ message })).toString('base64'));
    const response = await getStore(`sentry_key=${p.publicKey}&sentry_data=${data}`);
    expect(response.status).toBe(200);
    await waitForIssue(server, p, message);
  });

  it('refuses a GET without sentry_data, saying what to send', async () => {
    const response = await getStore(`sentry_key=${p.publicKey}`);
    expect(response.status).toBe(400);
    expect(response.json()).toEqual({
      error: {
        code: 'invalid_input',
        message:
          'missing sentry_data query parameter: a GET to the store endpoint carries the event in sentry_data ' +
          '(JSON, or base64 of zlib-compressed JSON); or POST the event instead',
      },
    });
  });
});

describe('clock drift', () => {
  it('shifts the timestamps of a client whose clock is a day behind by the drift sent_at shows', async () => {
    const message = marker('drift');
    const day = 86_400_000;
    const clientNow = new Date(Date.now() - day);
    const event = {
      message,
      timestamp: clientNow.toISOString(),
      breadcrumbs: [{ message: 'crumb', timestamp: clientNow.getTime() / 1000 - 5 }],
    };
    const before = Date.now() / 1000;
    const response = await post(
      `${JSON.stringify({ sent_at: clientNow.toISOString() })}\n{"type":"event"}\n${JSON.stringify(event)}\n`,
    );
    expect(response.status).toBe(200);
    const after = Date.now() / 1000;
    const issue = await waitForIssue(server, p, message);
    const stored = await waitForLatestEvent<StoredEvent & { payload: { breadcrumbs: { values: Array<{ timestamp: number }> } } }>(
      server,
      p,
      issue.shortId,
    );
    // Corrected by received - sent_at: the event's own time lands between the request's start and end.
    expect(stored.payload.timestamp).toBeGreaterThanOrEqual(before - 1);
    expect(stored.payload.timestamp).toBeLessThanOrEqual(after + 1);
    expect(stored.payload.timestamp - stored.payload.breadcrumbs.values[0]!.timestamp).toBeCloseTo(5, 3);
    expect(stored.payload.errors).toContainEqual(
      expect.objectContaining({
        type: 'invalid_data',
        name: 'timestamp',
        value: expect.objectContaining({ reason: 'clock drift: all timestamps adjusted by 1 day' }),
      }),
    );
  });
});
