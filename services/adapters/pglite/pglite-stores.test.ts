// The SQL stores on PGlite, held to the port contracts. One in-memory database for the file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { describeAlertStoreContract } from '../contracts/alert-store.contract.ts';
import { describeEventStoreContract } from '../contracts/event-store.contract.ts';
import { describeLogStoreContract } from '../contracts/log-store.contract.ts';
import { describeMetadataStoreContract } from '../contracts/metadata-store.contract.ts';
import { describeSqlClientContract } from '../contracts/sql-client.contract.ts';
import { describeUserStoreContract } from '../contracts/user-store.contract.ts';
import { migrate } from '../postgres/migrate.ts';
import { PgAlertStore } from '../postgres/pg-alert-store.ts';
import { PayloadSegments } from '../postgres/payload-segments.ts';
import { PgEventStore } from '../postgres/pg-event-store.ts';
import { PgLogStore } from '../postgres/pg-log-store.ts';
import { PgMetadataStore } from '../postgres/pg-metadata-store.ts';
import { PgUserStore } from '../postgres/pg-user-store.ts';
import { PGliteClient } from './pglite-client.ts';

let client: Promise<PGliteClient> | undefined;
function database(): Promise<PGliteClient> {
  client ??= PGliteClient.open(undefined).then(async (db) => {
    await migrate(db);
    return db;
  });
  return client;
}

const payloadDir = mkdtempSync(join(tmpdir(), 'errata-payloads-'));
let payloads: PayloadSegments | undefined;

afterAll(async () => {
  payloads?.close();
  rmSync(payloadDir, { recursive: true, force: true });
  await (await client)?.close();
});

describeSqlClientContract('PGlite', database);
describeMetadataStoreContract('PGlite', async () => new PgMetadataStore(await database()));
describeEventStoreContract('PGlite', async () => new PgEventStore(await database()));
describeEventStoreContract('PGlite, payloads in segment files (standalone)', async () => {
  payloads = await PayloadSegments.open(payloadDir, { mode: 'writer' });
  return new PgEventStore(await database(), payloads);
});
describeLogStoreContract('PGlite', async () => new PgLogStore(await database()));
describeAlertStoreContract('PGlite', async () => {
  const db = await database();
  return { alerts: new PgAlertStore(db), metadata: new PgMetadataStore(db) };
});
describeUserStoreContract('PGlite', async () => new PgUserStore(await database()));
