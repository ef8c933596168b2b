// Process lifecycle shared by every role: stop on SIGTERM/SIGINT exactly once, and close an
// HTTP server gracefully (stop accepting, let requests in flight finish, then cut the rest).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export function onShutdownSignal(stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      stop(signal).then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(error);
          process.exit(1);
        },
      );
    });
  }
}

/** What closeServer ends at once on a server started by listen. */
interface Tracked {
  connections: Set<Socket>;
  /** Responses to GET requests in flight: the event streams among them never finish on their own. */
  responses: Set<ServerResponse>;
}
const trackedOf = new WeakMap<Server, Tracked>();

export function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  const tracked: Tracked = { connections: new Set(), responses: new Set() };
  trackedOf.set(server, tracked);
  server.on('connection', (socket: Socket) => {
    tracked.connections.add(socket);
    socket.once('close', () => tracked.connections.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET') return;
    tracked.responses.add(res);
    res.once('close', () => tracked.responses.delete(res));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

export function closeServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const cutOff = setTimeout(() => server.closeAllConnections(), timeoutMs);
    cutOff.unref();
    // Node closes the idle connections only when close is called: one whose response finished
    // later stayed open for the keep-alive timeout, holding the close until the cut-off.
    const sweep = setInterval(() => closeIdleConnections(server), 100);
    server.close(() => {
      clearTimeout(cutOff);
      clearInterval(sweep);
      resolve();
    });
    closeIdleConnections(server);
  });
}

function closeIdleConnections(server: Server): void {
  server.closeIdleConnections();
  const tracked = trackedOf.get(server);
  if (!tracked) return;
  // Node counts a connection that has sent nothing yet as busy (its headers' clock runs), so one
  // opened ahead of need (browsers preconnect) held the close until the cut-off. Its client has
  // no request to lose.
  for (const socket of tracked.connections) if (socket.bytesRead === 0) socket.destroy();
  // An event stream (the live tail) held it too. Its client reconnects, to a server that runs.
  for (const res of tracked.responses) {
    if (String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) res.destroy();
  }
}
