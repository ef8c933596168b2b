// The escaping helper that every ClickHouse query goes through: unit tests of the text it
// writes, then round trips through a real engine (chdb) that parse each literal back.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { afterAll, describe, expect, it } from 'vitest';
import { createChdbClient } from './chdb-client.ts';
import { identifier, join, quote, raw, sql, type SqlValue } from './clickhouse-sql.ts';
import { describeClickHouseLiterals } from './clickhouse-suites.ts';

describe('quote', () => {
  it('escapes the quote and the backslash', () => {
    expect(quote("it's")).toBe("'it\\'s'");
    expect(quote('a\\b')).toBe("'a\\\\b'");
    expect(quote("\\'")).toBe("'\\\\\\''");
  });

  it('writes control characters as \\xHH and keeps other text as it is', () => {
    expect(quote('a\u0000b\nc\td\u001f\u007f')).toBe("'a\\x00b\\x0ac\\x09d\\x1f\\x7f'");
    expect(quote('ünï ✓ 😀 \u2028')).toBe("'ünï ✓ 😀 \u2028'");
  });

  it('replaces unpaired surrogates', () => {
    expect(quote('a\ud800')).toBe("'a\ufffd'");
    expect(quote('\udc00b')).toBe("'\ufffdb'");
    expect(quote('😀'.slice(0, 1) + 'x')).toBe("'\ufffdx'");
  });

  it('writes finite numbers, negative ones in parentheses', () => {
    expect(quote(42)).toBe('42');
    expect(quote(-42)).toBe('(-42)');
    expect(quote(1_700_000_000.25)).toBe('1700000000.25');
    expect(quote(-0)).toBe('0');
    expect(quote(1e-7)).toBe('1e-7');
    expect(quote(12n)).toBe('12');
    expect(quote(-12n)).toBe('(-12)');
  });

  it('refuses NaN and the infinities', () => {
    expect(() => quote(Number.NaN)).toThrow(/NaN/);
    expect(() => quote(Number.POSITIVE_INFINITY)).toThrow(/Infinity/);
    expect(() => quote(Number.NEGATIVE_INFINITY)).toThrow(/Infinity/);
  });

  it('writes booleans, null and arrays', () => {
    expect(quote(true)).toBe('1');
    expect(quote(false)).toBe('0');
    expect(quote(null)).toBe('NULL');
    expect(quote(['a', 1, null, ["'"]])).toBe("['a', 1, NULL, ['\\'']]");
    expect(quote([])).toBe('[]');
  });

  it('refuses anything else', () => {
    expect(() => quote(undefined as unknown as SqlValue)).toThrow(/undefined/);
    expect(() => quote({} as unknown as SqlValue)).toThrow(/object/);
    expect(() => quote(new Date() as unknown as SqlValue)).toThrow(/object/);
  });
});

describe('identifier', () => {
  it('backquotes and escapes', () => {
    expect(identifier('events').text).toBe('`events`');
    expect(identifier('a`b\\c').text).toBe('`a\\`b\\\\c`');
  });

  it('refuses empty names and control characters', () => {
    expect(() => identifier('')).toThrow();
    expect(() => identifier('a\u0000b')).toThrow();
    expect(() => identifier('a\nb')).toThrow();
  });
});

describe('sql', () => {
  it('quotes values and inlines fragments', () => {
    const table = sql`${identifier('db')}.${identifier('logs')}`;
    const filters = [sql`project_id = ${7}`, sql`body = ${"x' OR 1=1 --"}`];
    expect(sql`SELECT ${raw('id')} FROM ${table} WHERE ${join(filters, ' AND ')} LIMIT ${10}`.text).toBe(
      "SELECT id FROM `db`.`logs` WHERE project_id = 7 AND body = 'x\\' OR 1=1 --' LIMIT 10",
    );
  });

  it('treats a string that looks like SQL as a value', () => {
    expect(sql`SELECT ${'1; DROP TABLE x'}`.text).toBe("SELECT '1; DROP TABLE x'");
  });
});

let client: ClickHouseClient | undefined;
let dir: string | undefined;
async function chdb(): Promise<ClickHouseClient> {
  dir ??= await mkdtemp(joinPath(tmpdir(), 'errata-chdb-sql-'));
  client ??= createChdbClient(dir);
  return client;
}
afterAll(async () => {
  await client?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describeClickHouseLiterals('chdb', chdb);
