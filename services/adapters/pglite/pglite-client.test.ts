// PGliteClient's prepared statements (one-exchange.ts): bounded, never left naming a statement
// Postgres does not have, and never used where a setting of the transaction should apply. What
// every SqlClient answers is held by the contract in pglite-stores.test.ts.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { longValuesList } from '../../../test/support/long-values-list.ts';
import { failBlockingWrites, replaceBlockingSyncs } from '../../../test/support/replaced-syncs.ts';
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
    const list = longValuesList('total');
    expect((await client.query(list.sql, list.values)).rows).toEqual([{ total: list.sum }]);
    expect(await prepared()).not.toContain(list.sql);
  });

  it('keeps such a list prepared when the caller says its text comes back, in a transaction too', async () => {
    const once = longValuesList('once');
    const inTransaction = longValuesList('in_transaction', 80);
    expect((await client.query(once.sql, once.values, { keepPrepared: true })).rows).toEqual([{ once: once.sum }]);
    await client.transaction(async (tx) => {
      const rows = (await tx.query(inTransaction.sql, inTransaction.values, { keepPrepared: true })).rows;
      expect(rows).toEqual([{ in_transaction: inTransaction.sum }]);
    });
    expect(await prepared()).toEqual(expect.arrayContaining([once.sql, inTransaction.sql]));
    // Run again under its name, with other values.
    const doubled = once.values.map((v) => v * 2);
    expect((await client.query(once.sql, doubled, { keepPrepared: true })).rows).toEqual([{ once: 2 * once.sum }]);
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
  // for Postgres's fsync, and fsyncSync (directories, disk-sync.ts): each call is recorded with
  // the file it syncs, and `failing` makes the calls for matching files throw as a failing disk would.
  let synced: string[] = [];
  let failing: RegExp | undefined;

  async function withDataDir(test: (dir: string) => Promise<void>): Promise<void> {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'errata-pglite-')));
    synced = [];
    failing = undefined;
    const restore = replaceBlockingSyncs((full) => {
      const path = full.startsWith(dir) ? full.slice(dir.length) : full; // the data directory's parent, whole
      if (failing?.test(path)) throw Object.assign(new Error(`EIO: i/o error, fsync`), { code: 'EIO' });
      synced.push(path);
    });
    try {
      await test(dir);
    } finally {
      restore();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('syncs a new data directory, the WAL before a commit returns, and the data files at a checkpoint', async () => {
    await withDataDir(async (dir) => {
      const disk = await PGliteClient.open(dir);
      try {
        // initdb's files, written by an instance whose filesystem never syncs, the directory's
        // entry in its parent, and the marker that says so.
        expect(synced).toEqual(
          expect.arrayContaining(['/PG_VERSION', '/global/pg_control', '/base', '', dirname(dir), '/errata-synced']),
        );
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
        await disk.close();
      }
    });
  });

  it('syncs the tree once, and again when a crash came before the marker', async () => {
    await withDataDir(async (dir) => {
      await (await PGliteClient.open(dir)).close();
      synced = [];
      await (await PGliteClient.open(dir)).close();
      expect(synced).not.toContain('/PG_VERSION');
      rmSync(join(dir, 'errata-synced'));
      await (await PGliteClient.open(dir)).close();
      expect(synced).toContain('/PG_VERSION');
      expect(existsSync(join(dir, 'errata-synced'))).toBe(true);
    });
  });

  it('refuses every statement once a sync failed, since the commit may not be on disk', async () => {
    await withDataDir(async (dir) => {
      const failures: Error[] = [];
      const disk = await PGliteClient.open(dir, { onDiskFailure: (error) => failures.push(error) });
      try {
        await disk.query('CREATE TABLE kept (v text)');
        failing = /^\/pg_wal\//;
        // Postgres's own answer (a PANIC, which PGlite reports and goes on from).
        await expect(disk.query('INSERT INTO kept VALUES ($1)', ['lost?'])).rejects.toThrow(/could not fsync file/);
        expect(failures).toHaveLength(1);
        expect(failures[0]!.message).toMatch(/could not sync its files to disk in .*: Error: EIO/);
        failing = undefined;
        await expect(disk.query('SELECT count(*) FROM kept')).rejects.toThrow(/could not sync/);
        await expect(disk.transaction((tx) => tx.query('SELECT 1'))).rejects.toThrow(/could not sync/);
      } finally {
        await disk.close().catch(() => undefined); // Postgres is past a PANIC
      }
    });
  });

  it('refuses every statement once a write failed (a full disk), and the next start has every commit before it', async () => {
    await withDataDir(async (dir) => {
      const failures: Error[] = [];
      const disk = await PGliteClient.open(dir, { onDiskFailure: (error) => failures.push(error) });
      try {
        await disk.query('CREATE TABLE kept (v text)');
        await disk.query('INSERT INTO kept VALUES ($1)', ['committed before']);
        const restore = failBlockingWrites(dir);
        try {
          // The commit's WAL write fails: Postgres answers with a PANIC, after which PGlite
          // answered no further exchange (the backend thread waited for good).
          await expect(disk.query('INSERT INTO kept VALUES ($1)', ['not written'])).rejects.toThrow(/No space left on device/);
        } finally {
          restore();
        }
        expect(failures).toHaveLength(1);
        expect(failures[0]!.message).toMatch(/could not write its files to disk in .*: Error: ENOSPC/);
        await expect(disk.query('SELECT count(*) FROM kept')).rejects.toThrow(/could not write its files/);
      } finally {
        await disk.close().catch(() => undefined); // Postgres is past a PANIC
      }
      const again = await PGliteClient.open(dir);
      try {
        expect((await again.query<{ v: string }>('SELECT v FROM kept')).rows).toEqual([{ v: 'committed before' }]);
      } finally {
        await again.close();
      }
    });
  }, 30_000);

  it('fails only the query whose sort spilled to a temporary file the disk had no room for', async () => {
    await withDataDir(async (dir) => {
      const failures: Error[] = [];
      const disk = await PGliteClient.open(dir, { onDiskFailure: (error) => failures.push(error) });
      try {
        const spilling =
          'SELECT count(*)::int AS n FROM (SELECT md5(g::text) AS v FROM generate_series(1, 200000) g ORDER BY v) sorted';
        const restore = failBlockingWrites(join(dir, 'base', 'pgsql_tmp'));
        try {
          await expect(disk.query(spilling)).rejects.toThrow(/No space left on device/);
        } finally {
          restore();
        }
        expect(failures).toEqual([]);
        expect((await disk.query<{ n: number }>(spilling)).rows).toEqual([{ n: 200_000 }]);
      } finally {
        await disk.close();
      }
    });
  }, 30_000);

  it("refuses a transaction that waited for the lock while another's commit failed to sync", async () => {
    await withDataDir(async (dir) => {
      const failures: Error[] = [];
      const disk = await PGliteClient.open(dir, { onDiskFailure: (error) => failures.push(error) });
      try {
        await disk.query('CREATE TABLE kept (v text)');
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        const first = disk.transaction(async (tx) => {
          await tx.query('INSERT INTO kept VALUES ($1)', ['first']);
          await held;
        });
        // Past the client's own code, waiting inside PGlite for the transaction lock: its BEGIN
        // is PGlite's, sent once the first commits.
        const second = disk.transaction((tx) => tx.query('INSERT INTO kept VALUES ($1)', ['second']));
        failing = /^\/pg_wal\//;
        release();
        await expect(first).rejects.toThrow(/could not fsync file|could not sync/);
        await expect(second).rejects.toThrow(/could not sync/);
        expect(failures).toHaveLength(1); // told once, though the second was refused too
      } finally {
        await disk.close().catch(() => undefined);
      }
    });
  }, 20_000);
});
