// A plain TCP server that counts the connections it is offered, for the tests that prove a
// refused webhook receiver is never connected to; and a port known to be closed, to show the
// delivery log cannot tell the two apart.
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';

export interface ConnectionCounter {
  port: number;
  /** A port nothing listens on. */
  closedPort: number;
  /** How many connections reached the server since the last call. */
  connectionsSoFar(): Promise<number>;
  close(): Promise<void>;
}

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    // Dual-stack, so the IPv4, IPv6 and IPv4-mapped loopback forms would all reach it.
    server.listen({ port: 0, host: '::', ipv6Only: false }, () => resolve((server.address() as AddressInfo).port)),
  );

export async function startConnectionCounter(): Promise<ConnectionCounter> {
  /** The client ports of the connections accepted, in order. */
  const accepted: number[] = [];
  const server = createServer((socket) => {
    accepted.push(socket.remotePort!);
    socket.destroy();
  });
  const port = await listen(server);
  const closed = createServer();
  const closedPort = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
  return {
    port,
    closedPort,
    // A connection of our own goes through the same accept queue as the others, so once the
    // server has seen it, it has seen every earlier one: no waiting for a time.
    async connectionsSoFar() {
      const probe = connect({ host: '127.0.0.1', port });
      await once(probe, 'connect');
      const own = probe.localPort!;
      while (!accepted.includes(own)) await new Promise((resolve) => setImmediate(resolve));
      probe.destroy();
      return accepted.splice(0).filter((p) => p !== own).length;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
