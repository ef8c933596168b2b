// The listener's own limits against slow and greedy clients, on a real server: clients that
// trickle their headers or body are cut with 408 while everyone else is served, oversized
// headers get 431, one client address cannot take more than its share of connections, idle
// kept-alive connections make room when connections run short, and connections beyond the cap
// are closed as they arrive, not queued. Clients come from several loopback addresses.
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForIssue } from '../support/issues.ts';
import { metricTotal } from '../support/metrics.ts';
import { eventEnvelope, rawRequest } from '../support/raw-http.ts';
import {
  eventually,
  provision,
  startServer,
  stopAndRemove,
  type Provisioned,
  type StandaloneServer,
} from '../support/standalone-server.ts';

const MAX_CONNECTIONS = 200;
const PER_CLIENT = 80;
const HEADERS_TIMEOUT_SECONDS = 5;
const BODY_TIMEOUT_SECONDS = 2;
let server: StandaloneServer;
let p: Provisioned;

beforeAll(async () => {
  server = await startServer({
    env: {
      ERRATA_HTTP_HEADERS_TIMEOUT_SECONDS: String(HEADERS_TIMEOUT_SECONDS),
      ERRATA_HTTP_REQUEST_TIMEOUT_SECONDS: '8',
      ERRATA_HTTP_BODY_TIMEOUT_SECONDS: String(BODY_TIMEOUT_SECONDS),
      ERRATA_HTTP_MAX_HEADER_BYTES: '8192',
      ERRATA_HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
      ERRATA_HTTP_MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT),
    },
  });
  p = await provision(server, 'Limits');
});
afterAll(async () => {
  await stopAndRemove(server);
});

interface SlowClient {
  socket: Socket;
  /** Everything the server sent back. */
  received(): string;
  closed: Promise<void>;
  stop(): void;
}

/** A client that sends `start`, then one byte of `trickle` every 250 ms, from `from` (a loopback address). */
function slowClient(start: string, trickle = 'a', from = '127.0.0.1'): Promise<SlowClient> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: server.port, host: '127.0.0.1', localAddress: from });
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('error', () => {});
    socket.once('close', () => clearInterval(timer));
    socket.once('connect', () => {
      socket.write(start);
      timer = setInterval(() => socket.writable && socket.write(trickle), 250);
      resolve({ socket, received: () => received, closed, stop: () => (clearInterval(timer), socket.destroy()) });
    });
    socket.once('error', reject);
  });
}

async function servedMeanwhile(): Promise<void> {
  const health = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(5000) });
  expect(health.status).toBe(200);
  const marker = `served ${randomUUID().slice(0, 8)}`;
  const event = eventEnvelope({ event_id: randomUUID().replace(/-/g, ''), message: marker });
  const response = await rawRequest(`${server.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`, { body: event });
  expect(response.status).toBe(200);
  await waitForIssue(server, p, marker);
}

const PARTIAL_REQUEST = `GET /healthz HTTP/1.1\r\nHost: x\r\n`;
const WHOLE_REQUEST = `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`;

/** `count` clients from `from`, each sending `start`; resolves once each was answered, or closed unanswered. */
async function crowd(count: number, from: string, start: string): Promise<{ held: SlowClient[]; dropped: number }> {
  const clients = await Promise.all(Array.from({ length: count }, () => slowClient(start, '', from)));
  const closed = clients.map(() => false);
  clients.forEach((client, i) => void client.closed.then(() => (closed[i] = true)));
  const settled = (client: SlowClient, i: number) => closed[i] || client.received() !== '' || start !== WHOLE_REQUEST;
  // A partial request is never answered: give the server a moment to turn the extra ones away.
  if (start !== WHOLE_REQUEST) await new Promise((resolve) => setTimeout(resolve, 500));
  await eventually(async () => (clients.every(settled) ? true : undefined), `${count} clients from ${from} settled`);
  const held = clients.filter((client, i) => !closed[i]);
  return { held, dropped: clients.length - held.length };
}

const dropped = (reason: string) => metricTotal(server, 'errata_http_connections_dropped_total', { reason });

describe('slow clients', () => {
  it('serves others while 150 clients trickle their headers, then cuts those with 408', async () => {
    const slow = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        slowClient(`POST /api/${p.projectId}/envelope/ HTTP/1.1\r\nHost: x\r\nX-Slow: `, 'a', `127.0.0.${2 + (i % 3)}`),
      ),
    );
    await servedMeanwhile();
    await Promise.all(slow.map((client) => client.closed));
    for (const client of slow) expect(client.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    await servedMeanwhile();
  });

  it('cuts a client whose body keeps arriving, too slowly to end within the request timeout, with 408', async () => {
    // 800 bytes a second: fast enough for the body guard, 125 s for the whole body.
    const head = `POST /api/${p.projectId}/envelope/?sentry_key=${p.publicKey} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n`;
    const client = await slowClient(head, 'a'.repeat(200));
    await servedMeanwhile();
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    // Node's own answer, past ERRATA_HTTP_REQUEST_TIMEOUT_SECONDS: the body guard's says why.
    expect(client.received()).not.toContain('slower than 500 bytes a second');
  });

  it('cuts a client whose body stalls with a 408 that says why, long before the request timeout', async () => {
    const before = await dropped('slow_body');
    const head = `POST /api/${p.projectId}/envelope/?sentry_key=${p.publicKey} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{}\n`;
    const client = await slowClient(head, '');
    await servedMeanwhile();
    await client.closed;
    // Node's own 408, past the request timeout, has no body: this one is the body guard's.
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(client.received()).toContain('the request body arrived slower than 500 bytes a second: send it again');
    expect((await dropped('slow_body')) - before).toBe(1);
  });

  it('cuts a client that sent most of its body at once and then nothing, without waiting out the credit those bytes earned', async () => {
    const before = await dropped('slow_body');
    // 60,000 bytes earn 120 s at 500 bytes a second; the request timeout (8 s) would come first.
    const head = `POST /api/${p.projectId}/envelope/?sentry_key=${p.publicKey} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{}\n`;
    const client = await slowClient(head, '');
    // After the request began, so the bytes count as its body's.
    await new Promise((resolve) => setTimeout(resolve, 500));
    client.socket.write('a'.repeat(60_000));
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(client.received()).toContain('the request body arrived slower than 500 bytes a second: send it again');
    expect((await dropped('slow_body')) - before).toBe(1);
  });

  it('takes a body that keeps arriving for longer than ERRATA_HTTP_BODY_TIMEOUT_SECONDS', async () => {
    const marker = `steady ${randomUUID().slice(0, 8)}`;
    const body = Buffer.from(
      eventEnvelope({ event_id: randomUUID().replace(/-/g, ''), message: marker, extra: { pad: 'p'.repeat(12_000) } }),
    );
    const head = `POST /api/${p.projectId}/envelope/?sentry_key=${p.publicKey} HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const socket = connect({ port: server.port, host: '127.0.0.1' });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(head);
    // Four pieces over 3 s, past the 2 s allowed for a body that sent nothing, at ~4 KB/s.
    const piece = Math.ceil(body.length / 4);
    for (let at = 0; at < body.length; at += piece) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      socket.write(body.subarray(at, at + piece));
    }
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 OK/);
    await waitForIssue(server, p, marker);
  });

  it('refuses headers over ERRATA_HTTP_MAX_HEADER_BYTES with 431', async () => {
    const response = await rawRequest(`${server.url}/healthz`, { method: 'GET', headers: { 'x-big': 'b'.repeat(9000) } });
    expect(response.status).toBe(431);
    await servedMeanwhile();
  });
});

describe('query strings', () => {
  it('refuses an address with more than 100 query parameters with 400, before any page or API reads them', async () => {
    const many = Array.from({ length: 3000 }, () => 'a').join('&');
    for (const path of ['/login', '/api/v1/organizations/default/projects', `/api/${p.projectId}/envelope/`]) {
      const response = await rawRequest(`${server.url}${path}?${many}`, { method: 'GET' });
      expect([path, response.status]).toEqual([path, 400]);
      expect(response.json()).toEqual({
        error: { code: 'invalid_input', message: 'the address has more than 100 query parameters; send at most 100' },
      });
    }
    const hundred = Array.from({ length: 100 }, () => 'a').join('&');
    expect((await rawRequest(`${server.url}/login?${hundred}`, { method: 'GET' })).status).toBe(200);
    await servedMeanwhile();
  });
});

describe('sharing connections', () => {
  it('holds one client address to its share of connections, and serves the others meanwhile', async () => {
    const before = await dropped('client_share');
    const greedy = await crowd(PER_CLIENT + 40, '127.0.0.2', PARTIAL_REQUEST);
    expect(greedy.held).toHaveLength(PER_CLIENT);
    expect(greedy.dropped).toBe(40);
    expect((await dropped('client_share')) - before).toBe(40);
    await servedMeanwhile();
    for (const client of greedy.held) client.stop();
  });

  it('closes idle kept-alive connections to make room when connections run short', async () => {
    // 3 x 60 kept-alive connections, each answered once and then idle: past 80% of the cap.
    const idle = (
      await Promise.all(['127.0.0.2', '127.0.0.3', '127.0.0.4'].map((from) => crowd(60, from, WHOLE_REQUEST)))
    ).flatMap((group) => group.held);
    expect(idle.every((client) => client.received().startsWith('HTTP/1.1 200'))).toBe(true);
    // The server closes idle ones itself, long before their keep-alive timeout of 65 s, until
    // no more than 80% of the cap is open (those still in flight at that moment stay).
    const closedByServer = () => idle.filter((client) => client.socket.destroyed).length;
    await eventually(
      async () => (closedByServer() >= idle.length - MAX_CONNECTIONS * 0.8 ? true : undefined),
      'idle connections closed to make room',
    );
    await servedMeanwhile();
    for (const client of idle) client.stop();
  });

  it('closes connections beyond the cap as they arrive, counts them, and takes new ones once others are gone', async () => {
    const before = await dropped('server_full');
    // Requests in flight (unfinished headers) hold their connections; three addresses fill the cap.
    const groups = await Promise.all(['127.0.0.2', '127.0.0.3', '127.0.0.4'].map((from) => crowd(70, from, PARTIAL_REQUEST)));
    const held = groups.flatMap((group) => group.held);
    expect(held.length).toBeLessThanOrEqual(MAX_CONNECTIONS);
    expect(groups.reduce((sum, group) => sum + group.dropped, 0)).toBe(3 * 70 - held.length);
    // One more, from an address of its own: closed without an answer.
    const extra = await slowClient(WHOLE_REQUEST, '', '127.0.0.5');
    await extra.closed;
    expect(extra.received()).toBe('');
    for (const client of held) client.stop();
    await eventually(
      async () => ((await fetch(`${server.url}/healthz`)).status === 200 ? true : undefined),
      'the server to take connections again',
    );
    expect(await dropped('server_full')).toBeGreaterThan(before);
    await servedMeanwhile();
  });
});
