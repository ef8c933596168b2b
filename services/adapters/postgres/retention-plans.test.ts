// Retention's hourly deletes find what has expired through an index, not by reading the whole
// table: checked on PGlite by asking the planner for the statement the store sends, with
// sequential scans made as costly as they can be. A statement an index can answer then shows it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteClient } from '../pglite/pglite-client.ts';
import { migrate } from './migrate.ts';
import { PgAlertStore } from './pg-alert-store.ts';
import { PgSourceMapIndex } from './pg-source-map-index.ts';
import type { SqlClient } from './sql-client.ts';

let db: PGliteClient;
const sent: Array<{ sql: string; params: unknown[] }> = [];

/** The database, noting each statement the store sends, to plan it again below. */
const noting: SqlClient = {
  query(sql, params) {
    sent.push({ sql, params: params ?? [] });
    return db.query(sql, params);
  },
  transaction: (work) => db.transaction(work),
  close: () => db.close(),
};

async function planOfLast(): Promise<string> {
  const { sql, params } = sent.at(-1)!;
  return db.transaction(async (tx) => {
    await tx.query('SET LOCAL enable_seqscan = off');
    const plan = await tx.query<Record<string, string>>(`EXPLAIN ${sql}`, params);
    return plan.rows.map((row) => Object.values(row)[0]).join('\n');
  });
}

beforeAll(async () => {
  db = await PGliteClient.open(undefined);
  await migrate(db);
});
afterAll(async () => {
  await db?.close();
});

describe('retention reads what expired through an index', () => {
  it('deleteFinishedDeliveriesBefore finds finished deliveries by when they finished', async () => {
    await new PgAlertStore(noting).deleteFinishedDeliveriesBefore(new Date());
    const plan = await planOfLast();
    expect(plan).toContain('alert_deliveries_finished');
    expect(plan).not.toMatch(/Seq Scan/);
  });

  it("forgetAssembliesBefore finds an assembly's files by the bundle that wrote them", async () => {
    await new PgSourceMapIndex(noting).forgetAssembliesBefore(new Date());
    const plan = await planOfLast();
    expect(plan).toContain('source_map_artifacts_bundle');
    expect(plan).not.toMatch(/Seq Scan/);
  });
});
