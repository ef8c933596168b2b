// SqlClient over `pg`: a connection pool to a real Postgres server, the distributed mode's
// MetadataStore. The stores, their SQL and their migrations are the same ones PGlite runs.
// Values come back as PGlite returns them (int8 and numeric as numbers), so no store branches.
import pg from 'pg';
import { classifyPgError } from './pg-errors.ts';
import { storableParams, type SqlClient, type SqlExecutor, type SqlResult } from './sql-client.ts';

// count(*) and sums are int8; every such value we keep fits in a double.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

interface PgPoolOptions {
  url: string;
  maxConnections?: number;
  /** Each statement is cancelled by the server after this long, so a stuck query cannot pin a connection. */
  statementTimeoutMs?: number;
  connectTimeoutMs?: number;
  onError?: (error: Error) => void;
}

export class PgPoolClient implements SqlClient {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly onError?: (error: Error) => void,
  ) {}

  static open(options: PgPoolOptions): PgPoolClient {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      statement_timeout: options.statementTimeoutMs ?? 60_000,
      idleTimeoutMillis: 30_000,
      types,
      application_name: 'errata',
    });
    // An idle connection the server dropped emits here; the pool replaces it on next use.
    pool.on('error', (error) => options.onError?.(error));
    return new PgPoolClient(pool, options.onError);
  }

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<SqlResult<T>> {
    try {
      const result = await this.pool.query(sql, storableParams(params));
      return { rows: result.rows as T[], affectedRows: result.rowCount ?? 0 };
    } catch (error) {
      throw classifyPgError(error);
    }
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const connection = await this.pool.connect().catch((error: unknown) => Promise.reject(classifyPgError(error)));
    let broken = false;
    // A checked-out connection has no listener of the pool's; without one, a connection the
    // server drops mid-transaction would be an uncaught 'error' and end the process.
    const onConnectionError = (error: Error) => {
      broken = true;
      this.onError?.(error);
    };
    connection.on('error', onConnectionError);
    try {
      await connection.query('BEGIN');
      const result = await work({
        async query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<SqlResult<R>> {
          const r = await connection.query(sql, storableParams(params));
          return { rows: r.rows as R[], affectedRows: r.rowCount ?? 0 };
        },
      });
      await connection.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await connection.query('ROLLBACK');
      } catch {
        broken = true; // the connection itself failed: do not hand it to the next caller
      }
      throw classifyPgError(error);
    } finally {
      connection.off('error', onConnectionError);
      connection.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
