// The SqlClient contract: what every query may send, whichever driver runs it (PGlite, `pg`).
// Postgres refuses a NUL in text and the escapes JSON.stringify writes for NUL and lone
// surrogates in jsonb, so a user's odd character anywhere (a search, a name, a note) answered
// 500. The client makes every text and JSON parameter storable instead, as ingest does. And a
// statement the caller keeps prepared (QueryOptions.keepPrepared) is, whatever its size.
import { describe, expect, it } from 'vitest';
import { longValuesList } from '../../../test/support/long-values-list.ts';
import { jsonParam, unnestRows, type SqlClient } from '../postgres/sql-client.ts';

export function describeSqlClientContract(name: string, open: () => Promise<SqlClient>): void {
  describe(`SqlClient contract: ${name}`, () => {
    const one = async <T>(client: SqlClient, sql: string, params: unknown[]): Promise<T> =>
      ((await client.query<{ v: T }>(sql, params)).rows[0] as { v: T }).v;

    it('stores a NUL in a text parameter as U+FFFD, and a lone surrogate as U+FFFD', async () => {
      const client = await open();
      expect(await one(client, 'SELECT $1::text AS v', ['a\u0000b'])).toBe('a\ufffdb');
      expect(await one(client, 'SELECT $1::text AS v', ['a\ud800b\udc00'])).toBe('a\ufffdb\ufffd');
      expect(await one(client, 'SELECT $1::text AS v', ['pair 😀, plain ✓'])).toBe('pair 😀, plain ✓');
      expect(await one(client, 'SELECT $1::text[] AS v', [['x\u0000', 'y']])).toEqual(['x\ufffd', 'y']);
      expect(await one(client, "SELECT $1::text LIKE '%' || $2::text || '%' AS v", ['a\ufffdb', '\u0000'])).toBe(true);
    });

    it('does so inside a transaction too', async () => {
      const client = await open();
      const inside = await client.transaction(
        async (tx) => ((await tx.query<{ v: string }>('SELECT $1::text AS v', ['\u0000\ud800'])).rows[0] as { v: string }).v,
      );
      expect(inside).toBe('\ufffd\ufffd');
    });

    it('keeps a statement of many parameters prepared from its first run when asked, in a transaction', async () => {
      const client = await open();
      const kept = longValuesList('kept_in_contract');
      // In one transaction, so that `pg` answers from the connection that ran the statement.
      const texts = await client.transaction(async (tx) => {
        expect((await tx.query(kept.sql, kept.values, { keepPrepared: true })).rows).toEqual([{ kept_in_contract: kept.sum }]);
        return (await tx.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')).rows;
      });
      expect(texts.map((row) => row.statement)).toContain(kept.sql);
    });

    it('stores a JSON parameter whose keys or values hold a NUL or a lone surrogate, replaced by U+FFFD', async () => {
      const client = await open();
      const value = {
        'key\u0000': 'nul \u0000 here',
        high: 'a\ud800b',
        low: '\udc00',
        pair: '😀 \ud83d\ude00',
        nested: [{ ['\ud83d']: ['\u0000\u0000'] }],
        control: '\u0001\u001f tab\t',
      };
      expect(await one(client, 'SELECT $1::jsonb AS v', [jsonParam(value)])).toEqual({
        'key\ufffd': 'nul \ufffd here',
        high: 'a\ufffdb',
        low: '\ufffd',
        pair: '😀 😀',
        nested: [{ ['\ufffd']: ['\ufffd\ufffd'] }],
        control: '\u0001\u001f tab\t',
      });
      expect(await one(client, 'SELECT $1::json AS v', [jsonParam(['\u0000'])])).toEqual(['\ufffd']);
      expect(await one(client, 'SELECT $1::jsonb AS v', [jsonParam(null)])).toBeNull();
    });

    it('keeps text that only looks like an escape: an escaped backslash followed by u0000', async () => {
      const client = await open();
      const value = { a: '\\u0000', b: '\\\\u0000', c: '\\\u0000', d: '\\ud800', e: 'u0000' };
      expect(await one(client, 'SELECT $1::jsonb AS v', [jsonParam(value)])).toEqual({ ...value, c: '\\\ufffd' });
      // A text parameter is text, never rewritten as JSON.
      expect(await one(client, 'SELECT $1::text AS v', ['{"a":"\\u0000"}'])).toBe('{"a":"\\u0000"}');
    });

    it('sends numbers, booleans, nulls, dates and one-dimensional arrays, read as the types the statement gives them', async () => {
      const client = await open();
      const at = new Date('2026-11-30T12:34:56.789Z');
      const result = await client.query<Record<string, unknown>>(
        `SELECT $1::integer + 1 AS int, $2::bigint AS big, $3::double precision AS float, $4::boolean AS yes,
                $5::boolean AS no, $6::text AS nothing, $7::timestamptz AS at, $8::integer[] AS ints,
                $9::text[] AS texts, $10::timestamptz[] AS ats, $11::text AS quoted, count(*) AS counted
           FROM generate_series(1, 3)`,
        [41, 9_007_199_254_740_991, 0.25, true, false, null, at, [1, 2, null], ['a,b', 'c"d', 'e\\f', '', null], [at], "it's"],
      );
      expect(result.rows).toEqual([
        {
          int: 42,
          big: 9_007_199_254_740_991,
          float: 0.25,
          yes: true,
          no: false,
          nothing: null,
          at,
          ints: [1, 2, null],
          texts: ['a,b', 'c"d', 'e\\f', '', null],
          ats: [at],
          quoted: "it's",
          counted: 3,
        },
      ]);
    });

    it('answers a statement run again and again as it did the first time', async () => {
      const client = await open();
      // Postgres may plan a prepared statement once for all parameters from its sixth run on.
      const sql =
        'SELECT n, $1::text || n AS label FROM generate_series(1, $2::integer) AS n WHERE n % $3::integer = 0 ORDER BY n';
      for (let run = 1; run <= 8; run++) {
        const { rows } = await client.query<{ n: number; label: string }>(sql, [`run ${run}: `, 10 + run, (run % 3) + 1]);
        const expected = Array.from({ length: 10 + run }, (_, i) => i + 1).filter((n) => n % ((run % 3) + 1) === 0);
        expect(rows).toEqual(expected.map((n) => ({ n, label: `run ${run}: ${n}` })));
      }
    });

    it('reads a table whose columns changed since the same statement last ran', async () => {
      const client = await open();
      const table = `contract_shape_${Date.now()}`;
      await client.query(`CREATE TABLE ${table} (id integer)`);
      try {
        await client.query(`INSERT INTO ${table} VALUES (1)`);
        expect((await client.query(`SELECT * FROM ${table}`)).rows).toEqual([{ id: 1 }]);
        await client.query(`ALTER TABLE ${table} ADD COLUMN note text DEFAULT 'added'`);
        expect((await client.query(`SELECT * FROM ${table}`)).rows).toEqual([{ id: 1, note: 'added' }]);
        await client.transaction(async (tx) => {
          await tx.query(`ALTER TABLE ${table} DROP COLUMN note`);
          expect((await tx.query(`SELECT * FROM ${table}`)).rows).toEqual([{ id: 1 }]);
        });
        expect((await client.query(`SELECT * FROM ${table}`)).rows).toEqual([{ id: 1 }]);
      } finally {
        await client.query(`DROP TABLE ${table}`);
      }
    });

    it('gives unnestRows rows back exactly as sent: quotes, backslashes, commas, braces, text that reads NULL, empty text, nulls', async () => {
      const client = await open();
      const rows = [
        [1, 'plain', true, null],
        [2, 'with "quotes", commas, {braces} and \\ backslashes \\"', false, 'NULL'],
        [3, '', true, ' spaced  '],
        [4, 'NULL', false, 'a\u0000b 😀'],
        [5, '{}', true, '{"json":["text"]}'],
      ];
      const values = unnestRows(rows, ['integer', 'text', 'boolean', 'text']);
      const result = await client.query<{ n: number; a: string; b: boolean; c: string | null }>(
        `SELECT * FROM ${values.sql} AS v (n, a, b, c)`,
        values.params,
      );
      // As sent, but for the NUL, which every text parameter stores as U+FFFD.
      const expected = structuredClone(rows);
      expected[3]![3] = 'a\ufffdb 😀';
      expect(result.rows.map((r) => [r.n, r.a, r.b, r.c])).toEqual(expected);
    });
  });
}
