// The listener's own limits against slow and greedy clients, on a real server: clients that
// trickle their headers or body are cut with 408 while everyone else is served, oversized
// headers get 431, and connections beyond the cap are closed as they arrive, not queued.
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
let server: StandaloneServer;
let p: Provisioned;

beforeAll(async () => {
  server = await startServer({
    env: {
      ERRATA_HTTP_HEADERS_TIMEOUT_SECONDS: '2',
      ERRATA_HTTP_REQUEST_TIMEOUT_SECONDS: '4',
      ERRATA_HTTP_MAX_HEADER_BYTES: '8192',
      ERRATA_HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
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

/** A client that sends `start`, then one byte of `trickle` every 250 ms. */
function slowClient(start: string, trickle = 'a'): Promise<SlowClient> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
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

describe('slow clients', () => {
  it('serves others while 150 clients trickle their headers, then cuts those with 408', async () => {
    const slow = await Promise.all(
      Array.from({ length: 150 }, () => slowClient(`POST /api/${p.projectId}/envelope/ HTTP/1.1\r\nHost: x\r\nX-Slow: `)),
    );
    await servedMeanwhile();
    await Promise.all(slow.map((client) => client.closed));
    for (const client of slow) expect(client.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    await servedMeanwhile();
  });

  it('cuts a client that trickles its body past the request timeout with 408', async () => {
    const head = `POST /api/${p.projectId}/envelope/?sentry_key=${p.publicKey} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n`;
    const client = await slowClient(head);
    await servedMeanwhile();
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
  });

  it('refuses headers over ERRATA_HTTP_MAX_HEADER_BYTES with 431', async () => {
    const response = await rawRequest(`${server.url}/healthz`, { method: 'GET', headers: { 'x-big': 'b'.repeat(9000) } });
    expect(response.status).toBe(431);
    await servedMeanwhile();
  });
});

describe('the connection cap', () => {
  it('closes connections beyond it as they arrive, counts them, and takes new ones once others are gone', async () => {
    const dropped = await metricTotal(server, 'errata_http_connections_dropped_total');
    // Each holds a kept-alive connection open after its request was answered; those beyond
    // the cap (this suite's own fetch connections count too) are closed unanswered.
    const holders = await Promise.all(
      Array.from({ length: MAX_CONNECTIONS + 20 }, () => slowClient('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '')),
    );
    const isClosed = holders.map(() => false);
    holders.forEach((holder, i) => void holder.closed.then(() => (isClosed[i] = true)));
    const answered = (holder: SlowClient) => holder.received().startsWith('HTTP/1.1 200');
    await eventually(
      async () => (holders.every((holder, i) => answered(holder) || isClosed[i]) ? true : undefined),
      'every holder answered or closed',
    );
    const held = holders.filter(answered).length;
    expect(held).toBeLessThanOrEqual(MAX_CONNECTIONS);
    expect(held).toBeGreaterThan(MAX_CONNECTIONS - 20);
    expect(holders.filter((holder, i) => isClosed[i] && !answered(holder)).length).toBeGreaterThanOrEqual(20);
    // One more, on a connection of its own: closed without an answer.
    const extra = await slowClient('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '');
    await eventually(async () => (extra.received() !== '' || extra.socket.destroyed ? true : undefined), 'the extra connection');
    await extra.closed;
    expect(extra.received()).toBe('');
    for (const holder of holders) holder.stop();
    await eventually(
      async () => ((await fetch(`${server.url}/healthz`)).status === 200 ? true : undefined),
      'the server to take connections again',
    );
    expect(await metricTotal(server, 'errata_http_connections_dropped_total')).toBeGreaterThan(dropped);
    await servedMeanwhile();
  });
});
