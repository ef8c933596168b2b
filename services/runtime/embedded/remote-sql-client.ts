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
import type { RpcClient } from './thread-rpc.ts';

export class RemoteSqlClient implements SqlClient {
  constructor(private readonly rpc: RpcClient) {}

  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<SqlResult<T>> {
    return this.rpc.call<SqlResult<T>>('sql.query', { sql, params: storableParams(params), options });
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const { tx } = await this.rpc.call<{ tx: number }>('sql.begin');
    let result: T;
    try {
      result = await work({
        query: <R = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions) =>
          this.rpc.call<SqlResult<R>>('sql.query', { sql, params: storableParams(params), options, tx }),
      });
    } catch (error) {
      await this.rpc.call('sql.rollback', { tx });
      throw error;
    }
    await this.rpc.call('sql.commit', { tx });
    return result;
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
