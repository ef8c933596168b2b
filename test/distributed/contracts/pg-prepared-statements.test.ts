// PgPoolClient's named statements on a real Postgres server: DML run more than once is prepared
// once per connection (with many parameters, only when the caller keeps it prepared), the rest
// of a transaction after a setting or DDL is not, and a statement prepared before another
// process changed its table (a newer release's migration, in a fleet) still runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../../services/core/errors.ts';
import { PgPoolClient } from '../../../services/adapters/postgres/pg-pool-client.ts';
import type { SqlExecutor } from '../../../services/adapters/postgres/sql-client.ts';
import { infraSetting } from '../../support/infra-env.ts';
import { longValuesList } from '../../support/long-values-list.ts';
import { withDatabase } from '../../support/postgres-database.ts';

const database = withDatabase(() => infraSetting('ERRATA_POSTGRES_URL'));
let url: string;
const clients: PgPoolClient[] = [];
beforeAll(async () => {
  url = await database.create();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await database.drop();
});

/** A client of its own, as another process would have: one connection unless told, so each run lands on it. */
function open(maxConnections = 1): PgPoolClient {
  const client = PgPoolClient.open({ url, maxConnections });
  clients.push(client);
  return client;
}

/** The texts this session has prepared. */
async function preparedTexts(tx: SqlExecutor): Promise<string[]> {
  const { rows } = await tx.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
  return rows.map((r) => r.statement);
}

let tables = 0;
async function table(client: PgPoolClient): Promise<string> {
  const name = `prepared_${++tables}`;
  await client.query(`CREATE TABLE ${name} (id integer)`);
  await client.query(`INSERT INTO ${name} VALUES (1)`);
  return name;
}

describe('named statements on Postgres', () => {
  it('prepares DML run a second time, and nothing after SET LOCAL in the same transaction', async () => {
    const client = open();
    const name = await table(client);
    const once = `SELECT id * 3 AS id FROM ${name} WHERE id = $1`;
    const twice = `SELECT id FROM ${name} WHERE id = $1`;
    const afterSet = `SELECT id + 1 AS id FROM ${name} WHERE id = $1`;
    const texts = await client.transaction(async (tx) => {
      expect((await tx.query(once, [1])).rows).toEqual([{ id: 3 }]);
      for (let run = 0; run < 2; run++) expect((await tx.query(twice, [1])).rows).toEqual([{ id: 1 }]);
      await tx.query('SET LOCAL enable_sort = off');
      for (let run = 0; run < 2; run++) expect((await tx.query(afterSet, [1])).rows).toEqual([{ id: 2 }]);
      return preparedTexts(tx);
    });
    expect(texts).toContain(twice);
    expect(texts).not.toContain(once);
    expect(texts).not.toContain(afterSet);
  });

  it('prepares a statement of many parameters when the caller keeps it prepared, from its first run, and no other', async () => {
    const client = open();
    const kept = longValuesList('total');
    const keptInTransaction = longValuesList('in_transaction');
    const unnamed = longValuesList('unnamed');
    expect((await client.query(kept.sql, kept.values, { keepPrepared: true })).rows).toEqual([{ total: kept.sum }]);
    const texts = await client.transaction(async (tx) => {
      const inTransaction = await tx.query(keptInTransaction.sql, keptInTransaction.values, { keepPrepared: true });
      expect(inTransaction.rows).toEqual([{ in_transaction: keptInTransaction.sum }]);
      for (let run = 0; run < 2; run++)
        expect((await tx.query(unnamed.sql, unnamed.values)).rows).toEqual([{ unnamed: unnamed.sum }]);
      return preparedTexts(tx);
    });
    expect(texts).toEqual(expect.arrayContaining([kept.sql, keptInTransaction.sql]));
    expect(texts).not.toContain(unnamed.sql);
  });

  it('runs a statement prepared before another process added a column to its table, reading the new column', async () => {
    const client = open();
    const other = open();
    const name = await table(client);
    const read = `SELECT * FROM ${name} WHERE id = $1`;
    for (let run = 0; run < 3; run++) expect((await client.query(read, [1])).rows).toEqual([{ id: 1 }]);
    await client.transaction(async (tx) => expect(await preparedTexts(tx)).toContain(read));
    await other.query(`ALTER TABLE ${name} ADD COLUMN note text DEFAULT 'added'`);
    expect((await client.query(read, [1])).rows).toEqual([{ id: 1, note: 'added' }]);
  });

  it('fails one transaction whose prepared statement read a table another process changed as transient, and runs it in the next', async () => {
    const client = open();
    const other = open();
    const name = await table(client);
    const read = `SELECT * FROM ${name} WHERE id = $1`;
    const inTransaction = () => client.transaction((tx) => tx.query(read, [1]));
    for (let run = 0; run < 2; run++) expect((await inTransaction()).rows).toEqual([{ id: 1 }]);
    await other.query(`ALTER TABLE ${name} ADD COLUMN note text DEFAULT 'added'`);
    const failed = await inTransaction().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(UnavailableError);
    expect((failed as Error).cause).toMatchObject({ code: '0A000' });
    expect((await inTransaction()).rows).toEqual([{ id: 1, note: 'added' }]);
  });

  it('reads a table it changed itself with statements prepared before, in and out of a transaction', async () => {
    const client = open();
    const name = await table(client);
    const read = `SELECT * FROM ${name} WHERE id = $1`;
    for (let run = 0; run < 2; run++) expect((await client.query(read, [1])).rows).toEqual([{ id: 1 }]);
    expect((await client.transaction((tx) => tx.query(read, [1]))).rows).toEqual([{ id: 1 }]);
    await client.query(`ALTER TABLE ${name} ADD COLUMN note text DEFAULT 'added'`);
    expect((await client.transaction((tx) => tx.query(read, [1]))).rows).toEqual([{ id: 1, note: 'added' }]);
    expect((await client.query(read, [1])).rows).toEqual([{ id: 1, note: 'added' }]);
    await client.transaction((tx) => tx.query(`ALTER TABLE ${name} DROP COLUMN note`));
    expect((await client.transaction((tx) => tx.query(read, [1]))).rows).toEqual([{ id: 1 }]);
  });

  it('after a column changed type under statements prepared on two connections, fails one transaction and runs the next on the other', async () => {
    const client = open(2);
    const other = open();
    const name = await table(client);
    const read = `SELECT id FROM ${name} WHERE id = $1`;
    const inTransaction = () => client.transaction((tx) => tx.query(read, [1]));
    // Concurrent transactions hold both connections: from the second round on, each has it prepared.
    for (let round = 0; round < 3; round++) {
      for (const { rows } of await Promise.all([inTransaction(), inTransaction()])) expect(rows).toEqual([{ id: 1 }]);
    }
    // Prepared with an integer parameter; parsed afresh, the parameter is text like the column.
    await other.query(`ALTER TABLE ${name} ALTER COLUMN id TYPE text`);
    await expect(inTransaction()).rejects.toMatchObject({ code: '42883' });
    expect((await inTransaction()).rows).toEqual([{ id: '1' }]);
  });

  it('runs a prepared statement in a transaction after another transaction could not bind a value for it', async () => {
    const client = open();
    const name = await table(client);
    const read = `SELECT id FROM ${name} WHERE id = $1 AND $2::text IS NOT NULL`;
    const inTransaction = (value: unknown) => client.transaction((tx) => tx.query(read, [1, value]));
    for (let run = 0; run < 2; run++) expect((await inTransaction('x')).rows).toEqual([{ id: 1 }]);
    const circular: Record<string, unknown> = {};
    circular.self = circular; // pg serializes an object as JSON: this one it cannot
    await expect(inTransaction(circular)).rejects.toThrow(/circular/i);
    expect((await inTransaction('x')).rows).toEqual([{ id: 1 }]);
  });
});
