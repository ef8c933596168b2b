// Test set-up that the product deliberately has no command for: a second organization on a
// (stopped) standalone instance, written through the real MetadataStore.
import { PGliteClient } from '../../services/adapters/pglite/pglite-client.ts';
import { createSqlStores } from '../../services/adapters/postgres/sql-stores.ts';
import { embeddedDatabaseDir } from '../../services/runtime/embedded/database-dir.ts';

export async function addOrganization(dataDir: string, slug: string): Promise<void> {
  const db = await PGliteClient.open(embeddedDatabaseDir(dataDir));
  try {
    await createSqlStores(db).metadata.ensureOrganization(slug, slug);
  } finally {
    await db.close();
  }
}

export async function tableText(dataDir: string, sql: string): Promise<string> {
  const db = await PGliteClient.open(embeddedDatabaseDir(dataDir));
  try {
    return JSON.stringify((await db.query(sql)).rows);
  } finally {
    await db.close();
  }
}
