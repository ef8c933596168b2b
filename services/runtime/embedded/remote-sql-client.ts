// SqlClient for the main thread of the standalone server: every query runs in the backend
// thread that owns the PGlite database. Transactions stay open there between calls; PGlite
// holds other queries back meanwhile, exactly as a single connection would. Parameters are made
// storable here, before they cross: a structured clone keeps no class, so a jsonParam would
// reach the backend as a plain object and be stored as one.
import {
  storableParams,
  type QueryOptions,
  type SqlClient,
  type SqlExecutor,
  type SqlResult,
} from '../../adapters/postgres/sql-client.ts';
import { UnavailableError } from '../../core/errors.ts';
import { TimeoutError, withTimeout } from '../../core/with-timeout.ts';
import type { RpcClient } from './thread-rpc.ts';

/**
 * How long a call waits for the backend thread: one that hangs (a runaway statement, a stuck
 * thread) held every request that queried, and its socket, for good. The backend still runs
 * what it was sent; only the wait ends.
 */
const ANSWER_WITHIN_MS = 60_000;

export class RemoteSqlClient implements SqlClient {
  constructor(
    private readonly rpc: RpcClient,
    private readonly answerWithinMs = ANSWER_WITHIN_MS,
  ) {}

  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<SqlResult<T>> {
    return this.bounded(this.rpc.call<SqlResult<T>>('sql.query', { sql, params: storableParams(params), options }));
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const begun = this.rpc.call<{ tx: number }>('sql.begin');
    const { tx } = await this.bounded(begun).catch((error: unknown) => {
      // Begun late, it would hold the database (one connection) open for good: ended once it is.
      begun.then(({ tx: late }) => this.rpc.call('sql.rollback', { tx: late })).catch(() => undefined);
      throw error;
    });
    let result: T;
    try {
      result = await work({
        query: <R = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions) =>
          this.bounded(this.rpc.call<SqlResult<R>>('sql.query', { sql, params: storableParams(params), options, tx })),
      });
    } catch (error) {
      // Sent whatever happens, so the backend rolls back once it gets to it; waited for within the bound.
      await this.bounded(this.rpc.call('sql.rollback', { tx })).catch(() => undefined);
      throw error;
    }
    await this.bounded(this.rpc.call('sql.commit', { tx }));
    return result;
  }

  private bounded<T>(call: Promise<T>): Promise<T> {
    return withTimeout(call, this.answerWithinMs, 'the database').catch((error: unknown) => {
      if (!(error instanceof TimeoutError)) throw error;
      throw new UnavailableError(
        `the database did not answer within ${this.answerWithinMs / 1000} s (busy with something long, or stuck): retry later`,
        { cause: error },
      );
    });
  }

  /** The backend owns the database and closes it. */
  async close(): Promise<void> {}
}

/** The backend side: runs the calls of RemoteSqlClient on the real client. */
export function sqlHandlers(client: SqlClient) {
  const open = new Map<number, OpenTransaction>();
  let nextTx = 1;
  return {
    'sql.query': async ({
      sql,
      params,
      options,
      tx,
    }: {
      sql: string;
      params?: unknown[];
      options?: QueryOptions;
      tx?: number;
    }) => {
      if (tx === undefined) return client.query(sql, params, options);
      const executor = open.get(tx)?.executor;
      if (!executor) throw new Error(`transaction ${tx} is not open`);
      return executor.query(sql, params, options);
    },
    'sql.begin': () =>
      new Promise<{ tx: number }>((started, failed) => {
        const id = nextTx++;
        let decide!: (commit: boolean) => void;
        const decided = new Promise<boolean>((resolve) => (decide = resolve));
        const entry: OpenTransaction = { decide, done: Promise.resolve() };
        open.set(id, entry);
        entry.done = client
          .transaction(async (executor) => {
            entry.executor = executor;
            started({ tx: id });
            // Throwing rolls the transaction back; returning commits it.
            if (!(await decided)) throw new RollbackRequested();
          })
          .then(
            () => undefined,
            (error: unknown) => {
              if (error instanceof RollbackRequested) return;
              if (!entry.executor) return failed(error);
              throw error; // a failed COMMIT: reported to the caller of sql.commit
            },
          )
          .finally(() => open.delete(id));
      }),
    'sql.commit': ({ tx }: { tx: number }) => finish(open, tx, true),
    'sql.rollback': ({ tx }: { tx: number }) => finish(open, tx, false),
  };
}

interface OpenTransaction {
  executor?: SqlExecutor;
  decide: (commit: boolean) => void;
  done: Promise<void>;
}

class RollbackRequested extends Error {}

async function finish(open: Map<number, OpenTransaction>, tx: number, commit: boolean): Promise<void> {
  const transaction = open.get(tx);
  if (!transaction) throw new Error(`transaction ${tx} is not open`);
  transaction.decide(commit);
  await transaction.done;
}
