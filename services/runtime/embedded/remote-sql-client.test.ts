// The standalone server's main thread queries through RemoteSqlClient, over a message port to
// the backend thread's PGlite: held to the same SqlClient contract as the drivers. Parameters
// cross the port as structured clones, which keep no class, so the client must make them
// storable (jsonParam values to text) before they leave.
import { MessageChannel } from 'node:worker_threads';
import { afterAll, expect, it } from 'vitest';
import { UnavailableError } from '../../core/errors.ts';
import { longValuesList } from '../../../test/support/long-values-list.ts';
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

/** The one RemoteSqlClient of this file, over the channel to a PGlite of its own. */
function connect(): Promise<RemoteSqlClient> {
  remote ??= PGliteClient.open(undefined).then((client) => {
    backend = client;
    serveRpc(channel.port2, sqlHandlers(client));
    return new RemoteSqlClient(new RpcClient(channel.port1));
  });
  return remote;
}

describeSqlClientContract('RemoteSqlClient over a message port', connect);

it('passes keepPrepared to the backend outside a transaction too', async () => {
  const client = await connect();
  const kept = longValuesList('kept_remotely');
  expect((await client.query(kept.sql, kept.values, { keepPrepared: true })).rows).toEqual([{ kept_remotely: kept.sum }]);
  const { rows } = await client.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
  expect(rows.map((row) => row.statement)).toContain(kept.sql);
});

it('stops waiting for a backend that does not answer, and ends a transaction it began too late', async () => {
  const stuck = new MessageChannel();
  const rolledBack: number[] = [];
  serveRpc(stuck.port2, {
    'sql.query': () => new Promise(() => {}),
    'sql.begin': () => new Promise((resolve) => setTimeout(() => resolve({ tx: 7 }), 150)),
    'sql.rollback': async ({ tx }: { tx: number }) => void rolledBack.push(tx),
  });
  const client = new RemoteSqlClient(new RpcClient(stuck.port1), 50);
  try {
    const hung = client.query('SELECT 1');
    await expect(hung).rejects.toBeInstanceOf(UnavailableError);
    await expect(hung).rejects.toThrow(
      'the database did not answer within 0.05 s (busy with something long, or stuck): retry later',
    );
    await expect(client.transaction(async () => 'never')).rejects.toBeInstanceOf(UnavailableError);
    // Begun after the caller gave up, it would hold the one connection open: it is rolled back.
    for (let tries = 0; tries < 100 && rolledBack.length === 0; tries++) await new Promise((r) => setTimeout(r, 10));
    expect(rolledBack).toEqual([7]);
  } finally {
    stuck.port1.close();
  }
});
