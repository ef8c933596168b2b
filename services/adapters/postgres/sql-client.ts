// The one thing the SQL stores need from a database driver. Implemented over PGlite
// (standalone, in-process WebAssembly Postgres) and over `pg` (a real Postgres server), so the
// stores, their SQL and their migrations are the same in both modes. Every parameter of every
// query passes through storableParams in each SqlClient (PGlite, `pg`, and the standalone main
// thread's RemoteSqlClient): the one place user text becomes text Postgres accepts, so no odd
// character in a name, note or search is ever a 500.
import { storableJsonText, storableText } from '../../core/storable-text.ts';

export interface SqlResult<T> {
  rows: T[];
  affectedRows: number;
}

export interface QueryOptions {
  /**
   * The text comes back verbatim (a multi-row statement of a fixed row count, such as a full
   * chunk of event rows): kept prepared whatever its number of parameters, where the clients
   * otherwise run a statement of more than a few dozen unnamed (preparable.ts).
   */
  keepPrepared?: boolean;
}

export interface SqlExecutor {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<SqlResult<T>>;
}

/**
 * A json or jsonb value. Pass values for those columns as `jsonParam(value)`, never as
 * JSON.stringify text: the client cannot tell JSON text from other text, and jsonb refuses the
 * escapes JSON.stringify writes for NUL and lone surrogates, which the client rewrites here.
 */
class JsonParam {
  constructor(readonly value: unknown) {}
}

export function jsonParam(value: unknown): JsonParam {
  return new JsonParam(value);
}

/**
 * The parameters as the drivers get them: text (in arrays too) with NUL and lone surrogates
 * replaced by U+FFFD, as ingest stores them (so a search with one finds what ingest kept);
 * JSON values serialized with the escapes of those replaced likewise. Other values as they are.
 */
export function storableParams(params: readonly unknown[] | undefined): unknown[] | undefined {
  return params?.map(storableParam);
}

function storableParam(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (value instanceof JsonParam) {
    const json = JSON.stringify(value.value);
    return json === undefined ? null : storableJsonText(json);
  }
  if (Array.isArray(value)) return value.map(storableParam);
  return value;
}

export interface SqlClient extends SqlExecutor {
  /** Runs `work` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** `($1, $2), ($3, $4)...` for a multi-row VALUES list, with the flattened parameters. */
export function valuesList(rows: unknown[][], casts: string[] = [], offset = 0): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const tuples = rows.map((row) => {
    const placeholders = row.map((value, column) => {
      params.push(value);
      const cast = casts[column];
      return `$${offset + params.length}${cast ? `::${cast}` : ''}`;
    });
    return `(${placeholders.join(', ')})`;
  });
  return { sql: tuples.join(', '), params };
}

/**
 * `unnest($1::integer[], $2::text[], ...)`, one array parameter per column, for a multi-row
 * statement over narrow rows: Postgres parses and plans it once whatever the row count, where a
 * VALUES list of 600 rows costs it twice as much CPU (2,400 placeholders to type and plan). Not
 * for wide text such as event payloads: escaping them into array literals costs more than it
 * saves. Columns must be one-dimensional (no array-typed columns).
 */
export function unnestRows(rows: unknown[][], casts: string[]): { sql: string; params: unknown[] } {
  const params = casts.map((_, column) => rows.map((row) => row[column]));
  return { sql: `unnest(${casts.map((cast, column) => `$${column + 1}::${cast}[]`).join(', ')})`, params };
}

/** Splits rows so one statement stays well under Postgres's 65535-parameter limit. */
export function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** A LIKE pattern that matches `text` literally anywhere. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
