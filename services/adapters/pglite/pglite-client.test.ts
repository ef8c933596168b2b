// PGliteClient's prepared statements (one-exchange.ts): bounded, never left naming a statement
// Postgres does not have, and never used where a setting of the transaction should apply. What
// every SqlClient answers is held by the contract in pglite-stores.test.ts.
import fs, { mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteClient } from './pglite-client.ts';

let client: PGliteClient;

beforeAll(async () => {
  client = await PGliteClient.open(undefined);
});

afterAll(async () => {
  await client.close();
});

async function prepared(): Promise<string[]> {
  const { rows } = await client.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
  return rows.map((row) => row.statement);
}

describe('PGliteClient prepared statements', () => {
  it('keeps at most 100 statements prepared, closing the least recently used', async () => {
    for (let n = 0; n < 150; n++) {
      expect((await client.query<{ v: number }>(`SELECT ${n}::integer + $1::integer AS v`, [1])).rows).toEqual([{ v: n + 1 }]);
    }
    const statements = await prepared();
    expect(statements.length).toBeLessThanOrEqual(100);
    expect(statements).toContain('SELECT 149::integer + $1::integer AS v');
    expect(statements).not.toContain('SELECT 0::integer + $1::integer AS v');
    // A closed one is prepared again when it comes back.
    expect((await client.query<{ v: number }>('SELECT 0::integer + $1::integer AS v', [2])).rows).toEqual([{ v: 2 }]);
  });

  it('runs a statement whose first parse was refused (in a failed transaction) once it can', async () => {
    const sql = 'SELECT $1::text AS after_abort';
    await expect(
      client.transaction(async (tx) => {
        await tx.query('SELECT 1 / 0').catch(() => undefined); // the transaction is aborted from here
        await tx.query(sql, ['refused']);
      }),
    ).rejects.toThrow(/current transaction is aborted/);
    expect((await client.query<{ after_abort: string }>(sql, ['ran'])).rows).toEqual([{ after_abort: 'ran' }]);
  });

  it('runs a statement whose parameters could not be sent once they can', async () => {
    const sql = 'SELECT $1::timestamptz AS at';
    await expect(client.query(sql, [new Date(Number.NaN)])).rejects.toThrow(RangeError);
    const at = new Date('2026-11-30T00:00:00.000Z');
    expect((await client.query<{ at: Date }>(sql, [at])).rows).toEqual([{ at }]);
  });

  it('runs multi-row VALUES lists unnamed: their texts change with the row count', async () => {
    const values = Array.from({ length: 70 }, (_, i) => `($${i + 1}::integer)`).join(', ');
    const sql = `SELECT sum(v)::integer AS total FROM (VALUES ${values}) AS rows (v)`;
    expect(
      (
        await client.query(
          sql,
          Array.from({ length: 70 }, (_, i) => i),
        )
      ).rows,
    ).toEqual([{ total: 2415 }]);
    expect(await prepared()).not.toContain(sql);
  });

  it('runs the rest of a transaction unprepared after a SET LOCAL, so its setting applies', async () => {
    const sql = 'SELECT $1::integer AS after_set';
    await client.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      expect((await tx.query(sql, [1])).rows).toEqual([{ after_set: 1 }]);
    });
    expect(await prepared()).not.toContain(sql);
    await client.query(sql, [2]);
    expect(await prepared()).toContain(sql);
  });
});

describe('PGliteClient on a data directory', () => {
  // What reaches the disk is seen through node's fdatasyncSync, which private-node-fs.ts calls
  // for Postgres's fsync: each call is recorded with the file it syncs (Linux's /proc names it).
  it('syncs the WAL to disk before a commit returns, and the data files at a checkpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'errata-pglite-'));
    const synced: string[] = [];
    const fdatasyncSync = fs.fdatasyncSync;
    fs.fdatasyncSync = (fd: number) => {
      synced.push(readlinkSync(`/proc/self/fd/${fd}`).slice(dir.length));
      fdatasyncSync(fd);
    };
    syncBuiltinESMExports();
    const disk = await PGliteClient.open(dir);
    try {
      await disk.query('CREATE TABLE kept (v text)');
      synced.length = 0;
      await disk.query('INSERT INTO kept VALUES ($1)', ['one statement']);
      expect(synced.filter((path) => path.startsWith('/pg_wal/'))).toHaveLength(1);
      synced.length = 0;
      await disk.transaction(async (tx) => {
        await tx.query('INSERT INTO kept VALUES ($1)', ['a transaction']);
        await tx.query('INSERT INTO kept VALUES ($1)', ['of two']);
        expect(synced).toEqual([]); // nothing is flushed before the commit
      });
      expect(synced.filter((path) => path.startsWith('/pg_wal/'))).toHaveLength(1);
      synced.length = 0;
      await disk.query('CHECKPOINT');
      expect(synced.filter((path) => path.startsWith('/base/')).length).toBeGreaterThan(0);
      expect(synced).toContain('/global/pg_control');
    } finally {
      fs.fdatasyncSync = fdatasyncSync;
      syncBuiltinESMExports();
      await disk.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
