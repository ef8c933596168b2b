// Raw HTTP requests for hostile-input tests: full control over headers and body bytes, which
// fetch() does not give (it fixes Content-Length, refuses some headers).
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): Record<string, unknown>;
}

export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const body =
      options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body);
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'POST',
        headers: { ...(body ? { 'content-length': String(body.length) } : {}), ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: text,
            json: () => JSON.parse(text) as Record<string, unknown>,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** An envelope with one event item, the way Python's SDK frames it (with lengths). */
export function eventEnvelope(
  event: Record<string, unknown>,
  options: { withLength?: boolean; header?: Record<string, unknown> } = {},
): string {
  const payload = JSON.stringify(event);
  const itemHeader = options.withLength === false ? { type: 'event' } : { type: 'event', length: Buffer.byteLength(payload) };
  return `${JSON.stringify({ event_id: event.event_id, ...options.header })}\n${JSON.stringify(itemHeader)}\n${payload}\n`;
}

/** A fresh event id, as SDKs write them (32 hex characters). */
export function newEventId(): string {
  return randomUUID().replace(/-/g, '');
}

/** The envelope endpoint of a project, with its key in the query. */
export function envelopeUrlOf(server: { url: string }, p: { projectId: number; publicKey: string }): string {
  return `${server.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`;
}

/** POSTs raw bytes to an envelope URL: the hostile-input suites' one request helper. */
export function envelopePoster(url: () => string) {
  return (body: Buffer | string, headers: Record<string, string> = {}, to = url()) => rawRequest(to, { body, headers });
}
