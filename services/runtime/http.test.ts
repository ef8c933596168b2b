// The request logger of every role's app (createHttpApp): lines a request writes carry its id,
// and a request that writes none costs no logger of its own.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHttpApp, type HealthCheck } from './http.ts';
import { createLogger, type Logger } from './logger.ts';
import { createMetrics } from './metrics.ts';

interface LogLine {
  msg: string;
  level: string;
  requestId?: string;
}

let server: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** An app with /ok (200) and /broken (throws), served on loopback; its log lines as written. */
async function serve(
  level: string,
  health: HealthCheck[] = [],
  healthTimeoutMs?: number,
): Promise<{ url: string; lines: LogLine[]; logger: Logger }> {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as LogLine);
      done();
    },
  });
  const logger = createLogger(level, sink);
  const app = createHttpApp({
    logger,
    metrics: createMetrics({ processMetrics: false }),
    health,
    ...(healthTimeoutMs !== undefined && { healthTimeoutMs }),
  });
  app.use((ctx) => {
    if (ctx.path === '/broken') throw new Error('the handler broke');
    ctx.body = { ok: true };
  });
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines, logger };
}

/** Four lines from two requests: each request's two share an id, and the second request has another. */
function expectTwoLinesPerRequest(lines: LogLine[]): void {
  const ids = lines.map((l) => l.requestId);
  expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(ids[1]).toBe(ids[0]);
  expect(ids[3]).toBe(ids[2]);
  expect(ids[2]).not.toBe(ids[0]);
}

describe('the request logger', () => {
  it('makes no logger for a request that logs nothing at the level set', async () => {
    const { url, lines, logger } = await serve('info');
    const child = vi.spyOn(logger, 'child');
    for (let i = 0; i < 3; i++) expect((await fetch(`${url}/ok`)).status).toBe(200);
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
  });

  it('gives every line of a failed request the same id, and another request another', async () => {
    const { url, lines } = await serve('info');
    expect((await fetch(`${url}/broken`)).status).toBe(500);
    expect((await fetch(`${url}/broken`)).status).toBe(500);
    expect(lines.map((l) => l.msg)).toEqual(['unhandled error', 'request failed', 'unhandled error', 'request failed']);
    expectTwoLinesPerRequest(lines);
  });

  it('answers /healthz 503 naming a check that does not answer in time, and the others as they are', async () => {
    const hung: HealthCheck = { name: 'database', check: () => new Promise<void>(() => {}) };
    const fine: HealthCheck = { name: 'queue', check: async () => {} };
    const { url, lines } = await serve('warn', [hung, fine], 100);
    const answer = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({ status: 'unavailable', failing: { database: 'unavailable' } });
    expect(lines.map((l) => l.msg)).toContain('health check failed');
  });

  it("gives a failing /healthz's lines the request's id, one id per request", async () => {
    const down: HealthCheck = { name: 'queue', check: () => Promise.reject(new Error('the queue is gone')) };
    const { url, lines } = await serve('info', [down]);
    expect((await fetch(`${url}/healthz`)).status).toBe(503);
    expect((await fetch(`${url}/healthz`)).status).toBe(503);
    expect(lines.map((l) => l.msg)).toEqual(['health check failed', 'request failed', 'health check failed', 'request failed']);
    expectTwoLinesPerRequest(lines);
  });

  it('logs each request with its id at debug level', async () => {
    const { url, lines } = await serve('debug');
    expect((await fetch(`${url}/ok`)).status).toBe(200);
    expect(lines).toEqual([expect.objectContaining({ msg: 'request', level: 'debug', requestId: expect.any(String) })]);
  });
});

describe("a client's address (ctx.ip)", () => {
  async function addressSeen(trustedProxies: number | undefined, forwardedFor: string): Promise<string> {
    const app = createHttpApp({
      logger: createLogger('silent'),
      metrics: createMetrics({ processMetrics: false }),
      health: [],
      ...(trustedProxies === undefined ? {} : { trustedProxies }),
    });
    app.use((ctx) => {
      ctx.body = { ip: ctx.ip };
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
      headers: { 'x-forwarded-for': forwardedFor },
    });
    const { ip } = (await response.json()) as { ip: string };
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    return ip;
  }

  it("is the connection's unless proxies are trusted: then the entry the outermost trusted one added", async () => {
    expect(await addressSeen(undefined, '203.0.113.7')).toMatch(/127\.0\.0\.1$/);
    expect(await addressSeen(0, '203.0.113.7')).toMatch(/127\.0\.0\.1$/);
    // What the client wrote itself comes first; the one proxy trusted appended the last.
    expect(await addressSeen(1, 'forged-by-client, 203.0.113.7')).toBe('203.0.113.7');
    expect(await addressSeen(2, 'forged-by-client, 203.0.113.7, 10.0.0.2')).toBe('203.0.113.7');
  });
});
