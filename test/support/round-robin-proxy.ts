// "Several ingest processes behind one address": a TCP listener that hands each new
// connection to the next backend in turn, as a Kubernetes Service does. A backend that refuses
// the connection is skipped, so a killed ingest does not take the address down.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  backends: number[];
  close(): Promise<void>;
}

export async function startRoundRobinProxy(backends: number[]): Promise<RoundRobinProxy> {
  let next = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    const tryBackend = (attemptsLeft: number) => {
      const port = backends[next++ % backends.length]!;
      const upstream = connect(port, '127.0.0.1');
      upstream.once('connect', () => {
        sockets.add(upstream);
        upstream.once('close', () => sockets.delete(upstream));
        client.pipe(upstream).pipe(client);
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
      });
      upstream.once('error', () => (attemptsLeft > 1 ? tryBackend(attemptsLeft - 1) : client.destroy()));
    };
    tryBackend(backends.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    backends,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
