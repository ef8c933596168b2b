// SqlClient over PGlite: Postgres compiled to WebAssembly, running inside this process on a
// data directory. One connection; PGlite serializes queries and transactions itself.
// Only one process may open a data directory at a time (runtime/instance-lock.ts sees to it).
import { PGlite } from '@electric-sql/pglite';
import { setFlagsFromString } from 'node:v8';
import { storableParams, type QueryOptions, type SqlClient, type SqlExecutor, type SqlResult } from '../postgres/sql-client.ts';
import { isPreparable } from '../postgres/preparable.ts';
import { PreparedStatements, queryInOneExchange, type ExchangeOptions } from './one-exchange.ts';
import { PrivateNodeFS, syncDataDirectoryOnce } from './private-node-fs.ts';

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
  // Emscripten's fdatasync() returns at once without a word to the filesystem; its fsync() reaches
  // private-node-fs.ts's, which syncs. The WAL's default method is fdatasync.
  'wal_sync_method=fsync',
  // Postgres prices a random page read at 4 sequential ones, a spinning disk's ratio; these
  // pages are in shared buffers or the page cache. At 4 the planner read all of issue_hashes for
  // each hash of a batch, and all of processed_events for each event id, while they held a few
  // hundred rows (5-6 ms a lookup of 200 hashes, against 2 probed by the primary key); at 1.1,
  // the usual setting for SSDs, it probes (docs/benchmarks.md, 2026-12-03 (third)).
  'random_page_cost=1.1',
];

/**
 * PGlite starts Postgres with `-F` (fsync off): nothing of its reaches the disk before the
 * kernel writes it back, so a machine's crash could lose committed batches (whose queue
 * records were then already released) or leave the database inconsistent. On a data directory
 * it runs with fsync on, over private-node-fs.ts's fsync: a commit waits for its WAL to reach
 * the disk (a batch of events is one commit) and a checkpoint for the files it wrote.
 */
const WITH_FSYNC = PGlite.defaultStartParams.filter((param) => param !== '-F');

let baselineOnly = false;

/**
 * V8 compiles WebAssembly with its baseline compiler (Liftoff), then recompiles the hot
 * functions with TurboFan. For Postgres that recompilation left about 70 MB more resident in an
 * idle server and 20-50 MB more at peak (compiler memory malloc keeps), and saved 5-6% of the
 * server's CPU per event and 7% of its processing rate: docs/benchmarks.md sets out the trade. These two flags stop the
 * recompilation but keep V8's fallback to TurboFan for a function Liftoff cannot compile
 * (`--liftoff-only`, a flag for testing, aborts the process instead). They are the process's:
 * the other WebAssembly in it (llhttp, the parser of Node's fetch) stays on Liftoff too.
 */
function keepWebAssemblyOnBaselineCompiler(): void {
  if (baselineOnly) return;
  setFlagsFromString('--no-wasm-dynamic-tiering');
  setFlagsFromString('--no-wasm-tier-up');
  baselineOnly = true;
}

/** The first failed sync or write of a database's files, once there was one. */
interface DiskFailure {
  error?: Error;
}

export class PGliteClient implements SqlClient {
  private readonly statements = new PreparedStatements();

  /**
   * Every exchange with Postgres, PGlite's own BEGIN, COMMIT and ROLLBACK included, goes through
   * `execProtocolStream`: wrapped here, it is refused once a sync or write failed (after Postgres's
   * PANIC, which PGlite reports and goes on from, the next exchange never returned), and one whose
   * own sync or write failed (a commit's WAL) rejects though Postgres answered.
   */
  private constructor(
    private readonly db: PGlite,
    failure: DiskFailure,
  ) {
    const exchange = db.execProtocolStream.bind(db);
    db.execProtocolStream = async (message, options) => {
      if (failure.error) throw failure.error;
      const answer = await exchange(message, options);
      if (failure.error) throw failure.error; // what it wrote may not be on disk
      return answer;
    };
  }

  /**
   * Opens (creating when absent) the database in `dataDir`; `undefined` keeps it in memory,
   * starting from `from` when given (a `dump()`, which skips initdb: 0.4 s instead of 1.5 s).
   * `onDiskFailure` hears once of a failed sync or write of the database's files (a failing or
   * full disk), after which the client refuses every statement: the owner should stop, and the
   * next start recovers from what reached the disk.
   */
  static async open(
    dataDir: string | undefined,
    { from, onDiskFailure }: { from?: Blob; onDiskFailure?: (error: Error) => void } = {},
  ): Promise<PGliteClient> {
    keepWebAssemblyOnBaselineCompiler();
    const options = { postgresqlconf: POSTGRES_CONF };
    const failure: DiskFailure = {};
    if (dataDir === undefined) {
      const db = new PGlite({ ...options, ...(from ? { loadDataDir: from } : {}) });
      await db.waitReady;
      return new PGliteClient(db, failure);
    }
    // Also one while Postgres starts, before there is a client: the client then refuses at once.
    const fs = new PrivateNodeFS(dataDir, (cause, operation) => {
      if (failure.error) return;
      failure.error = new Error(`the database could not ${operation} its files to disk in ${dataDir}: ${String(cause)}`, {
        cause,
      });
      onDiskFailure?.(failure.error);
    });
    const db = new PGlite({ ...options, fs, startParams: WITH_FSYNC });
    await db.waitReady;
    try {
      syncDataDirectoryOnce(dataDir);
    } catch (error) {
      await db.close().catch(() => undefined); // the sync's error is the one to report
      throw error;
    }
    return new PGliteClient(db, failure);
  }

  /** The whole database as an uncompressed tarball, for `open(undefined, { from: dump })`. */
  async dump(): Promise<Blob> {
    return this.db.dumpDataDir('none');
  }

  async query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<SqlResult<T>> {
    // PGlite's query() takes both of its locks: the transaction one, so that a statement never
    // runs inside another caller's open transaction, and the query one. They and _checkReady are
    // PGlite's underscored members (typed, but internal): an upgrade of PGlite must keep them.
    await this.db._checkReady();
    const result = await this.db._runExclusiveTransaction(() =>
      this.db.runExclusive(() =>
        this.run<T>(sql, params, { syncToFs: true, prepare: true, keepPrepared: options?.keepPrepared }),
      ),
    );
    // PGlite runs a query synchronously and settles it without a turn of the event loop, so a
    // run of writes (a batch of logs, 100 rows a statement) would hold the thread to its end:
    // a turn after each lets waiting messages in (a health ping, the main thread's reads).
    await new Promise((resolve) => setImmediate(resolve));
    return result;
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    // Inside the transaction, which holds the transaction lock, each statement takes the query
    // lock, as PGlite's own tx.query() does, and is refused once the transaction has ended.
    // After any statement that is not DML (DDL, or the log search's SET LOCAL) the rest of the
    // transaction runs unprepared: none is then prepared against a table shape a rollback
    // would undo (one-exchange.ts, forgetAll), nor under a setting that ends with the transaction.
    return this.db.transaction(async (tx) => {
      let prepare = true;
      return work({
        query: async <R = Record<string, unknown>>(sql: string, params?: unknown[], queryOptions?: QueryOptions) => {
          if (tx.closed) throw new Error('the transaction has ended: run the statement in a new one');
          prepare &&= isPreparable(sql);
          // `prepare` as of this call, not of when the lock is granted.
          const options = { syncToFs: false, prepare, keepPrepared: queryOptions?.keepPrepared };
          return this.db.runExclusive(() => this.run<R>(sql, params, options));
        },
      });
    });
  }

  /** One statement, the caller holding PGlite's locks. */
  private run<T>(sql: string, params: unknown[] | undefined, options: ExchangeOptions) {
    return queryInOneExchange<T>(this.db, this.statements, sql, storableParams(params) ?? [], options);
  }

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}
