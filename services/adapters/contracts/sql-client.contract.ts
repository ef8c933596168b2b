// The SqlClient contract: what every query may send, whichever driver runs it (PGlite, `pg`).
// Postgres refuses a NUL in text and the escapes JSON.stringify writes for NUL and lone
// surrogates in jsonb, so a user's odd character anywhere (a search, a name, a note) answered
// 500. The client makes every text and JSON parameter storable instead, as ingest does.
import { describe, expect, it } from 'vitest';
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
