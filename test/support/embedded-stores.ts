// Real stores for unit tests: the SQL stores on an in-memory PGlite with every migration
// applied, made by the same factory as the server's. Never a hand-written fake: tests see the
// same SQL the server runs.
import { createHash } from 'node:crypto';
import { readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGliteClient } from '../../services/adapters/pglite/pglite-client.ts';
import { migrate } from '../../services/adapters/postgres/migrate.ts';
import { MIGRATIONS } from '../../services/adapters/postgres/migrations/index.ts';
import { createSqlStores, type SqlStores } from '../../services/adapters/postgres/sql-stores.ts';

export interface EmbeddedStores extends SqlStores {
  client: PGliteClient;
  close(): Promise<void>;
}

export async function openEmbeddedStores(): Promise<EmbeddedStores> {
  const client = await PGliteClient.open(undefined, { from: await migratedDump() });
  await migrate(client); // a no-op on the dump, kept so a stale one could never go unnoticed
  return { client, ...createSqlStores(client), close: () => client.close() };
}

/**
 * A freshly migrated database, dumped once per schema into the temporary directory: PGlite's
 * initdb takes about 1.5 s and loading a dump 0.4 s, and most unit test files open stores. The
 * name carries a hash of every migration, so a changed schema makes a new dump.
 */
async function migratedDump(): Promise<Blob> {
  const schema = createHash('sha256').update(JSON.stringify(MIGRATIONS)).digest('hex').slice(0, 16);
  const file = join(tmpdir(), `errata-test-pglite-${schema}.tar`);
  try {
    return new Blob([await readFile(file)]);
  } catch {
    const client = await PGliteClient.open(undefined);
    await migrate(client);
    const dump = Buffer.from(await (await client.dump()).arrayBuffer());
    await client.close();
    // Test files run in parallel: each writes its own file and renames it into place whole.
    const partial = `${file}.${process.pid}.${Date.now()}`;
    await writeFile(partial, dump);
    await rename(partial, file);
    await forgetOtherSchemas(file);
    return new Blob([dump]);
  }
}

/** Dumps of earlier schemas are of no further use (about 40 MB each): removed when a new one is made. */
async function forgetOtherSchemas(current: string): Promise<void> {
  for (const name of await readdir(tmpdir())) {
    if (/^errata-test-pglite-[0-9a-f]{16}\.tar$/.test(name) && join(tmpdir(), name) !== current) {
      await unlink(join(tmpdir(), name)).catch(() => {});
    }
  }
}
