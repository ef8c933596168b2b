// The stores that live in one SQL database (PGlite standalone, Postgres distributed):
// metadata, alerts, events, logs and users, made over one SqlClient (and, standalone, the event
// payload files beside the database). Every place that has a client
// (the composition root, the standalone backend thread and its main thread, the admin
// commands, the tests) makes its stores here. The stores do not own the client: whoever opened
// it closes it.
import { PgAlertStore } from './pg-alert-store.ts';
import type { PayloadSegments } from './payload-segments.ts';
import { PgEventStore } from './pg-event-store.ts';
import { PgLogStore } from './pg-log-store.ts';
import { PgMetadataStore } from './pg-metadata-store.ts';
import { PgUserStore } from './pg-user-store.ts';
import type { SqlClient } from './sql-client.ts';

export interface SqlStores {
  metadata: PgMetadataStore;
  alerts: PgAlertStore;
  events: PgEventStore;
  logs: PgLogStore;
  users: PgUserStore;
}

export function createSqlStores(client: SqlClient, payloads?: PayloadSegments): SqlStores {
  return {
    metadata: new PgMetadataStore(client),
    alerts: new PgAlertStore(client),
    events: new PgEventStore(client, payloads),
    logs: new PgLogStore(client),
    users: new PgUserStore(client),
  };
}
