// Reading a small request body on a real HTTP server: a body over the limit gets its 413, and
// its connection stays usable.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayloadTooLargeError } from '../core/errors.ts';
import { readJsonBody } from './json-body.ts';

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    try {
      const body = await readJsonBody(req, 1024);
      res.end(JSON.stringify({ body }));
    } catch (error) {
      res.statusCode = error instanceof PayloadTooLargeError ? 413 : 400;
      res.end(JSON.stringify({ error: (error as Error).message }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('readJsonBody', () => {
  it('reads a body within the limit', async () => {
    const response = await fetch(url, { method: 'POST', body: JSON.stringify({ a: 1 }) });
    expect(await response.json()).toEqual({ body: { a: 1 } });
  });

  it('answers a body over the limit with its error, not a reset connection', async () => {
    const response = await fetch(url, { method: 'POST', body: JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }) });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: 'request body over 1024 bytes' });
  });

  it('answers a body over the limit with its error while the client is still sending it', async () => {
    const piece = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent++ === 32) return controller.close();
        await new Promise((resolve) => setTimeout(resolve, 5));
        controller.enqueue(piece);
      },
    });
    const response = await fetch(url, { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
    // Before, the request was destroyed under the answer, and the next request on that kept-alive
    // connection met a reset.
    const next = await fetch(url, { method: 'POST', body: '{"b":2}' });
    expect(await next.json()).toEqual({ body: { b: 2 } });
  });

  it('says so when the body is not JSON', async () => {
    const response = await fetch(url, { method: 'POST', body: '{' });
    expect(await response.json()).toEqual({ error: 'the request body is not valid JSON' });
  });
});
