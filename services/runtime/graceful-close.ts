// Closing an HTTP server gracefully: it stops accepting, each request in flight gets its whole
// answer and then its connection closes, and what would hold the close for nothing ends at once.
// Node alone fell short three ways, each holding a stopping server until the cut-off
// (ERRATA_SHUTDOWN_TIMEOUT_SECONDS): it closes idle connections only as close is called, so one
// whose answer finished later stayed open for the keep-alive timeout (65 s); it counts a
// connection that has sent nothing as busy (browsers open them ahead of need); and an event
// stream never finishes.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

interface Tracked {
  closing: boolean;
  /** Each open connection, with its answers not yet handed whole to the OS. */
  connections: Map<Socket, Set<ServerResponse>>;
}
const trackedOf = new WeakMap<Server, Tracked>();

/** Call before the server listens, so that closeServer knows its connections and their answers. */
export function trackConnections(server: Server): void {
  const tracked: Tracked = { closing: false, connections: new Map() };
  trackedOf.set(server, tracked);
  server.on('connection', (socket: Socket) => {
    tracked.connections.set(socket, new Set());
    socket.once('close', () => tracked.connections.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const answers = tracked.connections.get(socket);
    if (!answers) return;
    answers.add(res);
    if (tracked.closing) lastOnItsConnection(res);
    // 'finish': the answer is with the OS whole, so the connection may go.
    const done = () => {
      answers.delete(res);
      if (tracked.closing && answers.size === 0 && !socket.writableEnded) socket.end(() => socket.destroy());
    };
    res.once('finish', done);
    res.once('close', done);
  });
}

export function closeServer(server: Server, timeoutMs: number): Promise<void> {
  const tracked = trackedOf.get(server);
  return new Promise((resolve) => {
    const cutOff = setTimeout(() => server.closeAllConnections(), timeoutMs);
    cutOff.unref();
    let sweep: NodeJS.Timeout | undefined;
    // Closes the connections idle now, as Node does.
    server.close(() => {
      clearTimeout(cutOff);
      clearInterval(sweep);
      resolve();
    });
    if (!tracked) return;
    tracked.closing = true;
    for (const answers of tracked.connections.values()) for (const res of answers) lastOnItsConnection(res);
    // From a moment on, not at once: a request already on its way has been read by then.
    sweep = setInterval(() => endWhatNeverFinishes(tracked), 100);
  });
}

/** An answer not begun says "Connection: close", and Node closes its connection once it is sent. */
function lastOnItsConnection(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
}

function endWhatNeverFinishes(tracked: Tracked): void {
  for (const [socket, answers] of tracked.connections) {
    // Its client sent nothing: it has no request to lose.
    if (answers.size === 0 && socket.bytesRead === 0) socket.destroy();
    for (const res of answers) {
      // The live tail: its client (EventSource) reconnects, to a server that runs.
      const streaming = String(res.getHeader('content-type') ?? '').startsWith('text/event-stream');
      if (streaming && res.req.method === 'GET') res.destroy();
    }
  }
}
