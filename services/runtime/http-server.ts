// The HTTP listener every role serves from, with the limits that keep slow or oversized
// clients from holding it: how long a client may take to send its headers and its whole
// request, how large the headers may be, and how many connections may be open at once.
// Responses are not timed (MCP and the dashboard stream them); requests are.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Metrics } from './metrics.ts';

export interface HttpServerLimits {
  /** Time to send the request line and headers (ERRATA_HTTP_HEADERS_TIMEOUT_SECONDS); 408 after it. */
  headersTimeoutMs: number;
  /** Time to send the whole request, body included (ERRATA_HTTP_REQUEST_TIMEOUT_SECONDS); 408 after it. */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this long (longer than load balancers' 60 s). */
  keepAliveTimeoutMs: number;
  /** Request line and headers together (ERRATA_HTTP_MAX_HEADER_BYTES); 431 beyond it. */
  maxHeaderBytes: number;
  /** Open connections (ERRATA_HTTP_MAX_CONNECTIONS); further ones are closed as they arrive. */
  maxConnections: number;
}

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
  server.on('drop', () => metrics.httpConnectionsDropped.inc());
  return server;
}
