// SqlClient over PGlite: Postgres compiled to WebAssembly, running inside this process on a
// data directory. One connection; PGlite serializes queries and transactions itself.
// Only one process may open a data directory at a time (runtime/instance-lock.ts sees to it).
import { PGlite } from '@electric-sql/pglite';
import { setFlagsFromString } from 'node:v8';
import { storableParams, type SqlClient, type SqlExecutor, type SqlResult } from '../postgres/sql-client.ts';
import { PrivateNodeFS } from './private-node-fs.ts';

// The defaults reserve 128 MB of shared buffers inside the WebAssembly heap; a small
// instance does well with far less, and resident memory is a target. 16 MB holds the issues of
// a big project and the hot index pages: at 2 MB the issue page read them again from the files
// on every view (a CPU profile put 2.6 ms of each view in read() calls).
const POSTGRES_CONF = [
  'shared_buffers=16MB',
  'wal_buffers=256kB',
  'work_mem=1MB',
  'maintenance_work_mem=4MB',
  'temp_buffers=1MB',
];

export class PGliteClient implements SqlClient {
  private constructor(private readonly db: PGlite) {}

  /**
   * Opens (creating when absent) the database in `dataDir`; `undefined` keeps it in memory,
   * starting from `from` when given (a `dump()`, which skips initdb: 0.4 s instead of 1.5 s).
   */
  static async open(dataDir: string | undefined, from?: Blob): Promise<PGliteClient> {
    // V8 compiles WebAssembly with its baseline compiler (Liftoff), then recompiles the hot
    // functions with TurboFan. For Postgres that recompilation left about 70 MB more resident in
    // an idle server (compiler memory that malloc keeps), and about 30 MB at peak; without it
    // the backend thread spends about 5% more CPU per event, a trade docs/benchmarks.md sets
    // out. The flag is the process's; nothing else here is WebAssembly.
    setFlagsFromString('--liftoff-only');
    const options = { postgresqlconf: POSTGRES_CONF };
    const db =
      dataDir === undefined
        ? new PGlite({ ...options, ...(from ? { loadDataDir: from } : {}) })
        : new PGlite({ ...options, fs: new PrivateNodeFS(dataDir) });
    await db.waitReady;
    return new PGliteClient(db);
  }

  /** The whole database as an uncompressed tarball, for `open(undefined, dump)`. */
  async dump(): Promise<Blob> {
    return this.db.dumpDataDir('none');
  }

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<SqlResult<T>> {
    const result = await this.db.query<T>(sql, storableParams(params));
    // PGlite runs a query synchronously and settles it without a turn of the event loop, so a
    // run of writes (a batch of logs, 100 rows a statement) would hold the thread to its end:
    // a turn after each lets waiting messages in (a health ping, the main thread's reads).
    await new Promise((resolve) => setImmediate(resolve));
    return { rows: result.rows, affectedRows: result.affectedRows ?? 0 };
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) =>
      work({
        async query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<SqlResult<R>> {
          const result = await tx.query<R>(sql, storableParams(params));
          return { rows: result.rows, affectedRows: result.affectedRows ?? 0 };
        },
      }),
    );
  }

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}
