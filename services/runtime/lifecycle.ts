// Process lifecycle shared by every role: stop on SIGTERM/SIGINT exactly once, and listen with
// the connection tracking that closing gracefully needs (graceful-close.ts).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trackConnections } from './graceful-close.ts';

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

export function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  trackConnections(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
