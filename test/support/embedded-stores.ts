// Real stores for unit tests: the SQL stores on an in-memory PGlite with every migration
// applied. Never a hand-written fake: tests see the same SQL the server runs.
import { PGliteClient } from '../../services/adapters/pglite/pglite-client.ts';
import { migrate } from '../../services/adapters/postgres/migrate.ts';
import { PgAlertStore } from '../../services/adapters/postgres/pg-alert-store.ts';
import { PgEventStore } from '../../services/adapters/postgres/pg-event-store.ts';
import { PgLogStore } from '../../services/adapters/postgres/pg-log-store.ts';
import { PgMetadataStore } from '../../services/adapters/postgres/pg-metadata-store.ts';

export interface EmbeddedStores {
  client: PGliteClient;
  metadata: PgMetadataStore;
  alerts: PgAlertStore;
  events: PgEventStore;
  logs: PgLogStore;
  close(): Promise<void>;
}

export async function openEmbeddedStores(): Promise<EmbeddedStores> {
  const client = await PGliteClient.open(undefined);
  await migrate(client);
  return {
    client,
    metadata: new PgMetadataStore(client),
    alerts: new PgAlertStore(client),
    events: new PgEventStore(client),
    logs: new PgLogStore(client),
    close: () => client.close(),
  };
}
