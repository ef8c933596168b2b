import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { capturedRequest } from '../../test/fixtures/sdk-fixtures.ts';
import { ErrataError, ForbiddenError, PayloadTooLargeError, UnavailableError } from '../core/errors.ts';
import { BodyBudget, readBody, type BodyLimits, type FirstLineCheck } from './read-body.ts';

// A real HTTP server, so the body arrives as a socket stream exactly as in production.
let server: Server;
let port: number;
const limits = { maxRequestBytes: 64 * 1024, maxDecompressedBytes: 256 * 1024 };

beforeAll(async () => {
  server = createServer(async (req, res) => {
    try {
      const body = await readBody(req, limits);
      res.end(JSON.stringify({ ok: true, length: body.length, sha: body.toString('base64').slice(0, 40) }));
    } catch (error) {
      res.statusCode = error instanceof ErrataError ? (error.code === 'payload_too_large' ? 413 : 400) : 500;
      res.end(JSON.stringify({ error: (error as Error).message }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function post(
  body: Buffer,
  headers: Record<string, string> = {},
  chunked = false,
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        headers: chunked ? headers : { ...headers, 'content-length': String(body.length) },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, json: JSON.parse(Buffer.concat(parts).toString()) as Record<string, unknown> }),
        );
      },
    );
    req.on('error', reject);
    if (chunked) {
      for (let i = 0; i < body.length; i += 1000) req.write(body.subarray(i, i + 1000));
      req.end();
    } else req.end(body);
  });
}

const text = Buffer.from('{"hello":"world"}\n'.repeat(100));

describe('readBody', () => {
  it.each([
    ['identity', text, {}],
    ['gzip', gzipSync(text), { 'content-encoding': 'gzip' }],
    ['x-gzip', gzipSync(text), { 'content-encoding': 'x-gzip' }],
    ['zlib-wrapped deflate', deflateSync(text), { 'content-encoding': 'deflate' }],
    ['raw deflate', deflateRawSync(text), { 'content-encoding': 'deflate' }],
    ['brotli', brotliCompressSync(text), { 'content-encoding': 'br' }],
    ['an empty encoding (sentry-ruby)', text, { 'content-encoding': '' }],
  ])('decodes %s', async (_name, body, headers) => {
    const response = await post(body, headers);
    expect(response).toEqual({ status: 200, json: { ok: true, length: text.length, sha: text.toString('base64').slice(0, 40) } });
  });

  it('reads the gzip body @sentry/node really sent', async () => {
    const fixture = capturedRequest('node-large-extra-002');
    const response = await post(fixture.rawBody!, { 'content-encoding': 'gzip' }, true);
    expect(response.json.length).toBe(fixture.body.length);
  });

  it('refuses a gzip bomb once the decompressed limit is reached', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(limits.maxRequestBytes);
    const response = await post(bomb, { 'content-encoding': 'gzip' });
    expect(response.status).toBe(413);
    expect(response.json.error).toMatch(/decompressed body exceeds 256 KiB \(ERRATA_MAX_ENVELOPE_BYTES\)/);
  });

  it('refuses a body over the request limit, declared or streamed', async () => {
    const big = Buffer.alloc(65 * 1024, 1);
    expect((await post(big)).json.error).toMatch(/request body exceeds 64 KiB as sent/);
    const streamed = await post(big, {}, true);
    expect(streamed.status).toBe(413);
  });

  it('says so when the body is not what its encoding claims', async () => {
    const response = await post(text, { 'content-encoding': 'gzip' });
    expect(response).toEqual({ status: 400, json: { error: expect.stringMatching(/not valid gzip data/) } });
    expect((await post(text, { 'content-encoding': 'zstd-nope' })).json.error).toMatch(/unsupported Content-Encoding/);
  });

  it('answers 503 when bodies in flight would exceed the shared budget, and 413 for a body larger than all of it', async () => {
    const budget = new BodyBudget(10 * 1024);
    const small = createServer(async (req, res) => {
      const lease = budget.lease();
      try {
        const body = await readBody(req, limits, lease);
        res.end(JSON.stringify({ ok: true, length: body.length }));
      } catch (error) {
        res.statusCode = error instanceof UnavailableError ? 503 : error instanceof PayloadTooLargeError ? 413 : 500;
        res.end(JSON.stringify({ error: (error as Error).message }));
      } finally {
        lease.release();
      }
    });
    await new Promise<void>((resolve) => small.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(small.address() as AddressInfo).port}/`;
    const post = (bytes: number) => fetch(url, { method: 'POST', body: Buffer.alloc(bytes) });
    try {
      // Another request holds 8 KiB: 4 KiB more would fit alone, so it is busy, for now.
      const other = budget.lease();
      expect(other.take(8 * 1024)).toBeUndefined();
      const busy = await post(4 * 1024);
      expect(busy.status).toBe(503);
      expect(((await busy.json()) as { error: string }).error).toMatch(/ingest is busy/);
      other.release();
      for (let i = 0; i < 3; i++) expect((await post(8 * 1024)).status).toBe(200);

      // More than the whole budget would be refused at every retry: 413, saying what to change.
      const never = await post(20 * 1024);
      expect(never.status).toBe(413);
      expect(((await never.json()) as { error: string }).error).toMatch(
        /needs more than the 10 KiB that ingest holds for all requests at once \(ERRATA_INGEST_MEMORY_BYTES/,
      );
      expect((await post(8 * 1024)).status).toBe(200); // its share went back
    } finally {
      await new Promise<void>((resolve) => small.close(() => resolve()));
    }
  });

  it('gives up with a clear error when the client goes away mid-body, compressed or not', async () => {
    const outcomes: Array<Promise<unknown>> = [];
    const seen = createServer((req) => outcomes.push(readBody(req, limits).catch((error: Error) => error.message)));
    await new Promise<void>((resolve) => seen.listen(0, '127.0.0.1', resolve));
    const { port: seenPort } = seen.address() as AddressInfo;
    try {
      for (const headers of [{}, { 'content-encoding': 'gzip' }]) {
        const req = request({
          host: '127.0.0.1',
          port: seenPort,
          method: 'POST',
          headers: { ...headers, 'content-length': '10000' },
        });
        req.on('error', () => {});
        req.write(gzipSync(text).subarray(0, 100));
        await vi.waitFor(() => expect(outcomes.length).toBeGreaterThan(0));
        req.destroy();
        expect(await outcomes.shift()).toMatch(/could not be read to its end/);
      }
    } finally {
      seen.closeAllConnections();
      await new Promise<void>((resolve) => seen.close(() => resolve()));
    }
  });

  it('decodes a large compressed body arriving in many small pieces', async () => {
    const large = Buffer.from(Array.from({ length: 4000 }, (_, i) => `{"line":${i},"text":"${'x'.repeat(i % 50)}"}\n`).join(''));
    const response = await post(gzipSync(large), { 'content-encoding': 'gzip' }, true);
    expect(response).toEqual({
      status: 200,
      json: { ok: true, length: large.length, sha: large.toString('base64').slice(0, 40) },
    });
  });

  it.each([
    ['with the key in the request', undefined],
    ['with the key in its first line, checked first', { maxBytes: 64 * 1024, check: async () => {} }],
  ] as Array<[string, FirstLineCheck | undefined]>)(
    'holds a compressed body that stalls as sent, not inflated (%s)',
    async (_name, firstLine) => {
      // 4 MiB of zeros in a few hundred bytes of brotli: inflated as it arrived, a client that
      // then sent nothing held 4 MiB of the shared budget until a timeout, for a few hundred bytes
      // sent. Past a first line to check, only the decoder's first pieces are out.
      const compressed = brotli(Buffer.concat([Buffer.from('{"dsn":"x"}\n'), Buffer.alloc(4 * 1024 * 1024)]));
      const limits = { maxRequestBytes: 1024 * 1024, maxDecompressedBytes: 8 * 1024 * 1024 };
      await withReader(limits, firstLine, async (url, taken) => {
        const { port: readerPort } = new URL(url);
        const req = request({
          host: '127.0.0.1',
          port: readerPort,
          method: 'POST',
          headers: { 'content-encoding': 'br', 'content-length': String(compressed.length + 10) },
        });
        req.on('error', () => {});
        try {
          req.write(compressed);
          await vi.waitFor(() => expect(taken()).toBeGreaterThanOrEqual(firstLine ? 12 : compressed.length));
          await new Promise((resolve) => setTimeout(resolve, 200));
          expect(taken()).toBeLessThan(128 * 1024);
        } finally {
          req.destroy();
        }
      });
    },
  );

  it('keeps serving after hostile bodies', async () => {
    expect((await post(text)).status).toBe(200);
  });
});

/** A server reading with the given limits and first-line check; counts the bytes its lease took. */
async function withReader(
  readLimits: BodyLimits,
  firstLine: FirstLineCheck | undefined,
  run: (url: string, taken: () => number) => Promise<void>,
): Promise<void> {
  let taken = 0;
  const reader = createServer(async (req, res) => {
    try {
      const body = await readBody(req, readLimits, { take: (bytes) => void (taken += bytes) }, firstLine);
      res.end(JSON.stringify({ ok: true, length: body.length, sha: body.toString('base64').slice(0, 40) }));
    } catch (error) {
      res.statusCode =
        error instanceof ErrataError
          ? (({ payload_too_large: 413, forbidden: 403 } as Record<string, number>)[error.code] ?? 400)
          : 500;
      res.end(JSON.stringify({ error: (error as Error).message }));
    }
  });
  await new Promise<void>((resolve) => reader.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(reader.address() as AddressInfo).port}/`, () => taken);
  } finally {
    await new Promise<void>((resolve) => reader.close(() => resolve()));
  }
}

/** Brotli at quality 5: as small as the default's output for zeros, 20 times faster to make. */
const brotli = (data: Buffer) => brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });

const send = async (url: string, body: Buffer, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { method: 'POST', body: new Uint8Array(body), headers });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};

describe('readBody without copies', () => {
  // Each copy of a body is an allocation of its size on the thread that answers requests, which a
  // loaded server promotes and frees only in a full collection (docs/benchmarks.md, 2026-12-05 (second)).
  it('hands over a body that arrived in one chunk as that chunk, and joins one in many', async () => {
    const oneChunk = createServer(async (req, res) => {
      const arrived: Buffer[] = [];
      req.on('data', (chunk: Buffer) => arrived.push(chunk));
      const body = await readBody(req, limits);
      res.end(
        JSON.stringify({
          ok: true,
          chunks: arrived.length,
          same: body === arrived[0],
          // A body that is a slice of a larger buffer (a decompressor's output) would keep it alive.
          ownBuffer: body.length === body.buffer.byteLength,
          text: body.toString(),
        }),
      );
    });
    await new Promise<void>((resolve) => oneChunk.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(oneChunk.address() as AddressInfo).port}/`;
      const read = async (body: ReadableStream<Uint8Array> | Buffer, headers: Record<string, string> = {}) =>
        (await fetch(url, { method: 'POST', body, headers, duplex: 'half' } as RequestInit)).json();
      expect(await read(text)).toEqual({ ok: true, chunks: 1, same: true, ownBuffer: true, text: text.toString() });
      // Over 4 KiB, so that a copy is a buffer of its own rather than a slice of node's pool.
      const larger = Buffer.from('{"hello":"world"}\n'.repeat(600));
      const gzipped = (await read(gzipSync(larger), { 'content-encoding': 'gzip' })) as Record<string, unknown>;
      expect(gzipped).toMatchObject({ ok: true, chunks: 1, ownBuffer: true, text: larger.toString() });
      const pieces = new ReadableStream<Uint8Array>({
        async start(controller) {
          for (let i = 0; i < text.length; i += 600) {
            controller.enqueue(text.subarray(i, i + 600));
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          controller.close();
        },
      });
      const joined = (await read(pieces)) as { chunks: number; same: boolean; text: string };
      expect(joined.chunks).toBeGreaterThan(1);
      expect(joined.same).toBe(false);
      expect(joined.text).toBe(text.toString());
    } finally {
      await new Promise<void>((resolve) => oneChunk.close(() => resolve()));
    }
  });
});

describe('readBody against compression bombs', () => {
  const roomy = { maxRequestBytes: 20 * 1024 * 1024, maxDecompressedBytes: 100 * 1024 * 1024, maxCompressionRatio: 1000 };

  it('stops a body that inflates more than the ratio allows, past its first 16 MiB', async () => {
    const bomb = brotli(Buffer.alloc(100 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(1024);
    await withReader(roomy, undefined, async (url, taken) => {
      const response = await send(url, bomb, { 'content-encoding': 'br' });
      expect(response.status).toBe(413);
      expect(response.json.error).toMatch(/more than 1000 times its compressed size \(ERRATA_MAX_COMPRESSION_RATIO\)/);
      expect(taken()).toBeLessThan(17 * 1024 * 1024);
    });
  });

  it('takes a real envelope that compresses far past the ratio: a 4 MiB attachment of repeated log lines', async () => {
    const line = '2026-11-24 10:00:00 INFO worker heartbeat ok\n';
    const attachment = line.repeat(Math.ceil((4 * 1024 * 1024) / line.length));
    const envelope = Buffer.from(`{}\n{"type":"attachment","length":${attachment.length}}\n${attachment}\n`);
    const body = brotli(envelope);
    expect(envelope.length / body.length).toBeGreaterThan(1000);
    await withReader(roomy, undefined, async (url) => {
      expect(await send(url, body, { 'content-encoding': 'br' })).toMatchObject({
        status: 200,
        json: { length: envelope.length },
      });
    });
  });

  it('lets ordinary compressed data through, however well it compresses below the ratio', async () => {
    const logs = Buffer.from(
      JSON.stringify({ items: Array.from({ length: 20_000 }, (_, i) => ({ level: 'info', body: `request ${i % 7} served` })) }),
    );
    await withReader(roomy, undefined, async (url) => {
      for (const [encoding, body] of [
        ['gzip', gzipSync(logs, { level: 9 })],
        ['br', brotli(logs)],
      ] as const) {
        const response = await send(url, body, { 'content-encoding': encoding });
        expect(response.json.length, encoding).toBe(logs.length);
      }
    });
  });

  it.each([
    ['br', (data: Buffer) => brotli(data)],
    ['gzip', (data: Buffer) => gzipSync(data)],
    ['deflate', (data: Buffer) => deflateSync(data)],
    ['deflate', (data: Buffer) => deflateRawSync(data)],
  ])(
    'inflates only the first line of a %s body until its check passes, and nothing more when it fails',
    async (encoding, compress) => {
      const header = Buffer.from('{"dsn":"http://unknownkey123@localhost/1"}\n');
      const body = compress(Buffer.concat([header, Buffer.alloc(100 * 1024 * 1024, 0x20)]));
      const lines: string[] = [];
      const refuse: FirstLineCheck = {
        maxBytes: 64 * 1024,
        check: async (line) => {
          lines.push(line.toString());
          throw new ForbiddenError('unknown DSN public key');
        },
      };
      await withReader({ ...roomy, maxCompressionRatio: Infinity }, refuse, async (url, taken) => {
        const response = await send(url, body, { 'content-encoding': encoding });
        expect(response).toEqual({ status: 403, json: { error: 'unknown DSN public key' } });
        expect(lines).toEqual([header.toString().trimEnd()]);
        expect(taken()).toBeLessThan(1024 * 1024);
      });
    },
  );

  it('reads the whole body once the first line passes, compressed or not, with or without a newline', async () => {
    const lines: string[] = [];
    const pass: FirstLineCheck = { maxBytes: 64 * 1024, check: async (line) => void lines.push(line.toString()) };
    const items = Array.from({ length: 20_000 }, (_, i) => `{"type":"log"}\n{"items":[{"body":"line ${i}"}]}\n`);
    const large = Buffer.from(`{"dsn":"k"}\n${items.join('')}`);
    await withReader(roomy, pass, async (url) => {
      for (const [body, headers] of [
        [large, {}],
        [gzipSync(large), { 'content-encoding': 'gzip' }],
        [brotli(large), { 'content-encoding': 'br' }],
        [Buffer.from('{"dsn":"only a header"}'), {}],
        [gzipSync('{"dsn":"only a header"}'), { 'content-encoding': 'gzip' }],
      ] as const) {
        const response = await send(url, body, headers);
        expect(response.status).toBe(200);
      }
      expect(lines).toEqual(['{"dsn":"k"}', '{"dsn":"k"}', '{"dsn":"k"}', '{"dsn":"only a header"}', '{"dsn":"only a header"}']);
    });
  });

  it("checks the body's first line as it is, even an empty one before the header (Relay reads the key there)", async () => {
    const lines: string[] = [];
    const pass: FirstLineCheck = { maxBytes: 64 * 1024, check: async (line) => void lines.push(line.toString()) };
    await withReader(roomy, pass, async (url) => {
      const body = Buffer.from('\n \r\n\t{"dsn":"k"}\n{"type":"event"}\n{}\n');
      expect((await send(url, body)).status).toBe(200);
      expect((await send(url, gzipSync(body), { 'content-encoding': 'gzip' })).status).toBe(200);
      expect(lines).toEqual(['', '']);
    });
  });

  it('refuses a first line longer than its bound without checking it', async () => {
    let checked = 0;
    const bounded: FirstLineCheck = { maxBytes: 1024, check: async () => void (checked += 1) };
    await withReader(roomy, bounded, async (url) => {
      const response = await send(url, gzipSync(`{"sdk":"${'x'.repeat(5000)}"}\n{}`), { 'content-encoding': 'gzip' });
      expect(response.status).toBe(413);
      expect(response.json.error).toMatch(/envelope header exceeds 1 KiB: send the DSN key in X-Sentry-Auth/);
      expect(checked).toBe(0);
    });
  });
});
