// The HTTP listener every role serves from, with the limits that keep slow or greedy clients
// from holding it: how long a client may take to send its headers and its whole request, how
// large the headers may be, how many connections may be open at once, and how many of those
// one client may hold, and how slowly a request body may arrive. Responses are not timed (MCP and the dashboard stream them).
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Metrics } from './metrics.ts';

export interface HttpServerLimits {
  /** Time to send the request line and headers (ERRATA_HTTP_HEADERS_TIMEOUT_SECONDS); 408 after it. */
  headersTimeoutMs: number;
  /** Time to send the whole request, body included (ERRATA_HTTP_REQUEST_TIMEOUT_SECONDS); 408 after it. */
  requestTimeoutMs: number;
  /**
   * Time to send a request body, a second more for each MIN_BODY_BYTES_PER_SECOND received
   * (ERRATA_HTTP_BODY_TIMEOUT_SECONDS); 408 after it.
   */
  bodyTimeoutMs: number;
  /** An idle kept-alive connection is closed after this long (longer than load balancers' 60 s). */
  keepAliveTimeoutMs: number;
  /** Request line and headers together (ERRATA_HTTP_MAX_HEADER_BYTES); 431 beyond it. */
  maxHeaderBytes: number;
  /** Open connections (ERRATA_HTTP_MAX_CONNECTIONS); further ones are closed as they arrive. */
  maxConnections: number;
  /** Open connections of one client address, an IPv6 /64 counting as one (ERRATA_HTTP_MAX_CONNECTIONS_PER_CLIENT). */
  maxConnectionsPerClient: number;
}

/** Share of maxConnections in use past which idle kept-alive connections are closed to make room. */
const PRESSURE_SHARE = 0.8;

export function createHttpServer(handler: RequestListener, limits: HttpServerLimits, metrics: Metrics): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs),
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      // Node checks the two timeouts every 30 s by default, which lets a slow client hold its
      // connection for up to 30 s past them.
      connectionsCheckingInterval: 1000,
    },
    handler,
  );
  server.maxConnections = limits.maxConnections;
  server.on('drop', () => metrics.httpConnectionsDropped.inc({ reason: 'server_full' }));
  shareConnections(server, limits, metrics);
  guardBodies(server, limits.bodyTimeoutMs, metrics);
  return server;
}

interface Receiving {
  res: ServerResponse;
  /** When the body's clock started: the request's headers, or the server reading again. */
  since: number;
  bytesBefore: number;
  /** When bytes last arrived (or the clock started), and how many had by then. */
  progressAt: number;
  bytesSeen: number;
}

/** Apache's mod_reqtimeout by default: body=20,MinRate=500. */
const MIN_BODY_BYTES_PER_SECOND = 500;

const SLOW_BODY_DETAIL = JSON.stringify({
  error: {
    code: 'request_timeout',
    message: `the request body arrived slower than ${MIN_BODY_BYTES_PER_SECOND} bytes a second: send it again`,
  },
});
const SLOW_BODY_RESPONSE =
  'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json\r\n' +
  `Content-Length: ${Buffer.byteLength(SLOW_BODY_DETAIL)}\r\n\r\n${SLOW_BODY_DETAIL}`;

/**
 * A request body must keep arriving: a client that sent its headers and then a byte now and then
 * held its connection, and the memory its request had taken, for the whole request timeout (300
 * s); a few addresses held every connection that way. Its connection is closed as Node closes one
 * past the request timeout: a 408 when nothing was answered yet. Bytes are counted on the socket,
 * so the guard never reads the body itself.
 */
function guardBodies(server: Server, bodyTimeoutMs: number, metrics: Metrics): void {
  const receiving = new Map<IncomingMessage, Receiving>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!req.complete) {
      const [now, bytes] = [performance.now(), req.socket.bytesRead];
      receiving.set(req, { res, since: now, bytesBefore: bytes, progressAt: now, bytesSeen: bytes });
    }
  });
  const sweep = () => {
    const now = performance.now();
    for (const [req, body] of receiving) {
      const socket = req.socket;
      if (req.complete || socket.destroyed) {
        receiving.delete(req);
        continue;
      }
      // While the server is not reading (a handler still authenticating, or holding the body
      // back), a body cannot arrive: the clock starts again once it reads.
      if (req.readableFlowing !== true) {
        body.since = body.progressAt = now;
        body.bytesBefore = body.bytesSeen = socket.bytesRead;
        continue;
      }
      if (socket.bytesRead > body.bytesSeen) [body.progressAt, body.bytesSeen] = [now, socket.bytesRead];
      const received = socket.bytesRead - body.bytesBefore;
      // The credit of bytes sent is for a body still arriving: one that sent most of 20 MiB at
      // once, then nothing, kept its share of the memory budget until the request timeout (300 s).
      const stalled = now - body.progressAt > bodyTimeoutMs;
      if (!stalled && now - body.since <= bodyTimeoutMs + (received / MIN_BODY_BYTES_PER_SECOND) * 1000) continue;
      receiving.delete(req);
      metrics.httpConnectionsDropped.inc({ reason: 'slow_body' });
      if (socket.writable && !body.res.headersSent) socket.end(SLOW_BODY_RESPONSE, () => socket.destroy());
      else socket.destroy();
    }
  };
  const timer = setInterval(sweep, 1000).unref();
  server.once('close', () => clearInterval(timer));
}

/**
 * One client cannot hold every connection: beyond its share, its new connections are closed as
 * they arrive. And when connections run short, the ones idle between requests are closed first,
 * so a client can hold a slot only by keeping a request in flight, which the timeouts bound.
 */
function shareConnections(server: Server, limits: HttpServerLimits, metrics: Metrics): void {
  const byClient = new Map<string, number>();
  let open = 0;
  // Checked each second too: connections answered after the last one arrived become idle later.
  const relieve = () => {
    if (open > limits.maxConnections * PRESSURE_SHARE) server.closeIdleConnections();
  };
  const timer = setInterval(relieve, 1000).unref();
  server.once('close', () => clearInterval(timer));
  server.on('connection', (socket: Socket) => {
    const client = clientOf(socket.remoteAddress ?? '');
    const held = byClient.get(client) ?? 0;
    if (held >= limits.maxConnectionsPerClient) {
      metrics.httpConnectionsDropped.inc({ reason: 'client_share' });
      socket.destroy();
      return;
    }
    byClient.set(client, held + 1);
    open += 1;
    socket.once('close', () => {
      open -= 1;
      const left = (byClient.get(client) ?? 1) - 1;
      if (left === 0) byClient.delete(client);
      else byClient.set(client, left);
    });
    relieve();
  });
}

/** The address a connection counts against: IPv4 as it is, IPv6 by its /64 (one host's usual share). */
export function clientOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${(parsed as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}
