// SqlClient over `pg`: a connection pool to a real Postgres server, the distributed mode's
// MetadataStore. The stores, their SQL and their migrations are the same ones PGlite runs.
// Values come back as PGlite returns them (int8 and numeric as numbers), so no store branches.
import pg from 'pg';
import { classifyPgError, isStalePlan } from './pg-errors.ts';
import { changesShape, isPreparable, worthPreparing } from './preparable.ts';
import { storableParams, type QueryOptions, type SqlClient, type SqlExecutor, type SqlResult } from './sql-client.ts';

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

/** Distinct statement texts named at most; past this, new texts run unnamed. */
const MAX_NAMED = 200;

/** Texts seen once that are remembered, waiting for a second run to be named. */
const MAX_SEEN_ONCE = 1_000;

/**
 * A connection's lifetime: `pg` never closes a prepared statement, so those of earlier
 * generations (below) go with their connection.
 */
const CONNECTION_LIFETIME_SECONDS = 3_600;

/** A query for `pg`, and the generation of names it was given under. */
interface NamedQuery {
  config: pg.QueryConfig;
  generation: number;
}

/**
 * A name for each statement text worth preparing and run at least twice, the same on every
 * connection: `pg` parses a named statement on a connection the first time it runs there and
 * only binds and executes it after, which spares Postgres parsing, analysing and (once it finds
 * a generic plan no dearer) planning each run. A text seen once (a log search's filters make
 * many) runs unnamed, so one-off texts do not take the names; one the caller keeps prepared
 * (QueryOptions.keepPrepared) is named the first time.
 */
class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly seenOnce = new Set<string>();
  private generation = 1;

  /** The query `pg` is given: named when worth preparing, seen before and under the cap. */
  queryFor(
    sql: string,
    values: unknown[] | undefined,
    { prepare = true, keepPrepared = false }: { prepare?: boolean } & QueryOptions = {},
  ): NamedQuery {
    const generation = this.generation;
    if (!prepare || !worthPreparing(sql, values?.length ?? 0, keepPrepared)) return { config: { text: sql, values }, generation };
    let name = this.names.get(sql);
    if (name === undefined && this.names.size < MAX_NAMED) {
      // A text the caller keeps prepared is named at once: it comes back, however many one-off
      // texts (which clear seenOnce) run between its first two runs.
      if (this.seenOnce.delete(sql) || keepPrepared) {
        name = `errata_${generation}_${this.names.size + 1}`;
        this.names.set(sql, name);
      } else {
        if (this.seenOnce.size >= MAX_SEEN_ONCE) this.seenOnce.clear();
        this.seenOnce.add(sql);
      }
    }
    return { config: name === undefined ? { text: sql, values } : { name, text: sql, values }, generation };
  }

  /**
   * A prepared statement's result columns are fixed when it is parsed: once DDL changed a table
   * it reads, Postgres refuses to run it (pg-errors.ts, isStalePlan). New names make every
   * connection parse each statement afresh; the old ones stay unused until their connection
   * ends. Only once for the failures of one generation: statements failing together after a
   * migration renew the names once, not once each.
   */
  renameAll(from = this.generation): void {
    if (from !== this.generation) return;
    this.names.clear();
    this.generation++;
  }
}

/**
 * Whether a named statement's failure may come from a schema changed since its parse: its result
 * columns (isStalePlan), or its parameters' types (class 42: after ALTER COLUMN TYPE, 42883 or
 * 42804 where the same text parsed afresh would run). Renewing the names costs one parse each.
 */
function mayBeOutdated(query: NamedQuery, error: unknown): boolean {
  if (isStalePlan(error)) return true;
  return query.config.name !== undefined && error instanceof pg.DatabaseError && (error.code ?? '').startsWith('42');
}

export class PgPoolClient implements SqlClient {
  private readonly statements = new StatementNames();

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
      maxLifetimeSeconds: CONNECTION_LIFETIME_SECONDS,
      types,
      application_name: 'errata',
    });
    // An idle connection the server dropped emits here; the pool replaces it on next use.
    pool.on('error', (error) => options.onError?.(error));
    return new PgPoolClient(pool, options.onError);
  }

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<SqlResult<T>> {
    const values = storableParams(params);
    try {
      return await this.run<T>(sql, values, options);
    } catch (error) {
      // A statement prepared before another process (a newer release's migration) changed its
      // table runs once more, prepared afresh: the pool closed that connection, as after any
      // error, and run() renewed the names for the others.
      if (!isStalePlan(error)) throw classifyPgError(error);
      return this.run<T>(sql, values, options).catch((again: unknown) => Promise.reject(classifyPgError(again)));
    }
  }

  /** One statement on any connection; on an error the pool closes that connection. */
  private async run<T>(sql: string, values: unknown[] | undefined, options?: QueryOptions): Promise<SqlResult<T>> {
    const query = this.statements.queryFor(sql, values, options);
    try {
      const result = await this.pool.query(query.config);
      if (changesShape(sql)) this.statements.renameAll();
      return { rows: result.rows as T[], affectedRows: result.rowCount ?? 0 };
    } catch (error) {
      if (mayBeOutdated(query, error)) this.statements.renameAll(query.generation);
      throw error;
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
    const statements = this.statements;
    // After a statement that is not DML (the log search's SET LOCAL of a planner setting, DDL)
    // the rest of the transaction runs unnamed: a generic plan made under other settings, or
    // against a table shape the transaction changes, is not reused there.
    let prepare = true;
    let changedShape = false;
    try {
      await connection.query('BEGIN');
      const result = await work({
        async query<R = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<SqlResult<R>> {
          prepare &&= isPreparable(sql);
          changedShape ||= changesShape(sql);
          const query = statements.queryFor(sql, storableParams(params), { ...options, prepare });
          try {
            const r = await connection.query(query.config);
            return { rows: r.rows as R[], affectedRows: r.rowCount ?? 0 };
          } catch (error) {
            // Not retried here, in a transaction the error aborted: a stale plan is transient
            // (pg-errors.ts), and the caller's next try runs under new names. The connection is
            // retired, as the pool does after any failed query, and the rest of the transaction
            // runs unnamed: a value `pg` could not bind leaves a named statement closed on the
            // server but known to `pg` as parsed.
            if (mayBeOutdated(query, error)) statements.renameAll(query.generation);
            if (query.config.name !== undefined) {
              broken = true;
              prepare = false;
            }
            throw error;
          }
        },
      });
      await connection.query('COMMIT');
      if (changedShape) statements.renameAll();
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
