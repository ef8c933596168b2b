// Real stores for unit tests: the SQL stores on an in-memory PGlite with every migration
// applied, made by the same factory as the server's. Never a hand-written fake: tests see the
// same SQL the server runs.
import { PGliteClient } from '../../services/adapters/pglite/pglite-client.ts';
import { migrate } from '../../services/adapters/postgres/migrate.ts';
import { createSqlStores, type SqlStores } from '../../services/adapters/postgres/sql-stores.ts';

export interface EmbeddedStores extends SqlStores {
  client: PGliteClient;
  close(): Promise<void>;
}

export async function openEmbeddedStores(): Promise<EmbeddedStores> {
  const client = await PGliteClient.open(undefined);
  await migrate(client);
  return { client, ...createSqlStores(client), close: () => client.close() };
}
