// The example receiver over real HTTP, with requests signed as Errata signs them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWebhookBody } from '../../services/core/alerts/webhook-body.ts';
import { mintSigningSecret, webhookSignature } from '../../services/core/alerts/webhook-signature.ts';
import { errataWebhookHandler } from './receiver.ts';

const secret = mintSigningSecret();
const alerts: string[] = [];
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer(errataWebhookHandler({ secret, onAlert: (alert) => alerts.push(alert.title), maxBodyBytes: 64 * 1024 }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function send(body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

function signed(title: string, at = Math.floor(Date.now() / 1000)): { body: string; signature: string } {
  const body = encodeWebhookBody({ kind: 'new_issue', title, body: '', url: 'https://errata.example/x' });
  return { body, signature: webhookSignature(secret, at, body) };
}

describe('the example webhook receiver', () => {
  it('handles a delivery once, however often Errata sends it again or anyone replays it', async () => {
    const first = signed('first');
    expect((await send(first.body, { 'x-errata-signature': first.signature, 'x-errata-delivery': '1' })).status).toBe(204);
    // Errata's retry: the same delivery id, signed anew a second later.
    const retry = signed('first', Math.floor(Date.now() / 1000) + 1);
    expect((await send(retry.body, { 'x-errata-signature': retry.signature, 'x-errata-delivery': '1' })).status).toBe(204);
    // A replay of the first request under another delivery id: not handled, and that id is not
    // taken, so the real delivery 2 still is.
    expect((await send(first.body, { 'x-errata-signature': first.signature, 'x-errata-delivery': '2' })).status).toBe(204);
    // A replay of Errata's retry under another id, or none.
    expect((await send(retry.body, { 'x-errata-signature': retry.signature, 'x-errata-delivery': '98' })).status).toBe(204);
    expect((await send(retry.body, { 'x-errata-signature': retry.signature })).status).toBe(204);
    const second = signed('second');
    expect((await send(second.body, { 'x-errata-signature': second.signature, 'x-errata-delivery': '2' })).status).toBe(204);
    expect(alerts).toEqual(['first', 'second']);
  });

  it('refuses an unsigned request, and it does not mark its delivery id as handled', async () => {
    const forged = await send(signed('forged').body, {
      'x-errata-signature': 't=1,v1=' + '0'.repeat(64),
      'x-errata-delivery': '3',
    });
    expect(forged.status).toBe(401);
    const third = signed('third');
    expect((await send(third.body, { 'x-errata-signature': third.signature, 'x-errata-delivery': '3' })).status).toBe(204);
    expect(alerts.at(-1)).toBe('third');
  });

  it('refuses a body over its limit with 413, without holding it', async () => {
    const huge = signed('x'.repeat(100 * 1024));
    const answer = await send(huge.body, { 'x-errata-signature': huge.signature, 'x-errata-delivery': '4' });
    expect(answer.status).toBe(413);
    expect(await answer.text()).toBe('the body is over 65536 bytes');
    expect(alerts).not.toContain('x'.repeat(100 * 1024));
  });
});
