// The standalone server's main thread queries through RemoteSqlClient, over a message port to
// the backend thread's PGlite: held to the same SqlClient contract as the drivers. Parameters
// cross the port as structured clones, which keep no class, so the client must make them
// storable (jsonParam values to text) before they leave.
import { MessageChannel } from 'node:worker_threads';
import { afterAll } from 'vitest';
import { describeSqlClientContract } from '../../adapters/contracts/sql-client.contract.ts';
import { PGliteClient } from '../../adapters/pglite/pglite-client.ts';
import { RemoteSqlClient, sqlHandlers } from './remote-sql-client.ts';
import { RpcClient, serveRpc } from './thread-rpc.ts';

const channel = new MessageChannel();
let backend: PGliteClient | undefined;
let remote: Promise<RemoteSqlClient> | undefined;

afterAll(async () => {
  channel.port1.close();
  await backend?.close();
});

describeSqlClientContract('RemoteSqlClient over a message port', () => {
  remote ??= PGliteClient.open(undefined).then((client) => {
    backend = client;
    serveRpc(channel.port2, sqlHandlers(client));
    return new RemoteSqlClient(new RpcClient(channel.port1));
  });
  return remote;
});
