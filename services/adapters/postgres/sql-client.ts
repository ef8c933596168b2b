// The one thing the SQL stores need from a database driver. Implemented over PGlite
// (standalone, in-process WebAssembly Postgres) and over `pg` (a real Postgres server), so the
// stores, their SQL and their migrations are the same in both modes.

export interface SqlResult<T> {
  rows: T[];
  affectedRows: number;
}

export interface SqlExecutor {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<SqlResult<T>>;
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
