// Process lifecycle shared by every role: stop on SIGTERM/SIGINT exactly once, and close an
// HTTP server gracefully (stop accepting, let requests in flight finish, then cut the rest).
import type { Server } from 'node:http';
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

/** The open connections of each server started by listen, for closeServer. */
const connectionsOf = new WeakMap<Server, Set<Socket>>();

export function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  const connections = new Set<Socket>();
  connectionsOf.set(server, connections);
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
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
  // Node counts a connection that has sent nothing yet as busy (its headers' clock runs), so one
  // opened ahead of need (browsers preconnect) held the close until the cut-off. Its client has
  // no request to lose.
  for (const socket of connectionsOf.get(server) ?? []) if (socket.bytesRead === 0) socket.destroy();
}
