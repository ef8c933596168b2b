// Deleting rows of a MergeTree table is a mutation: the server rewrites every part holding a
// matching row, in the background. 18.16 has no mutations_sync, so the caller polls
// system.mutations until the table has none left under way.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClickHouseClient } from '@clickhouse/client';
import { UnavailableError } from '../../core/errors.ts';
import { classifyClickHouseError } from './clickhouse-errors.ts';
import { selectRows } from './clickhouse-io.ts';
import { tableName } from './clickhouse-schema.ts';
import { sql, type Sql } from './clickhouse-sql.ts';

/** How long a delete waits for its mutation before it answers "retry later". */
const MUTATION_TIMEOUT_MS = 30_000;

interface TableAt {
  client: ClickHouseClient;
  database: string;
  table: 'events' | 'logs';
  readLimitSeconds?: number | undefined;
}

/** Deletes the rows `where` matches and waits until they are gone. */
export async function deleteRows(at: TableAt, where: Sql): Promise<void> {
  await at.client
    .command({ query: sql`ALTER TABLE ${tableName(at.database, at.table)} DELETE WHERE ${where}`.text })
    .catch((error: unknown) => Promise.reject(classifyClickHouseError(error)));
  await waitForMutations(at);
}

/**
 * Deletes the rows `where` matches, if any; a mutation under way on the table (one this call
 * started before, and gave up waiting for) is waited for first, so a retry does not start another.
 */
export async function deleteRowsOnce(at: TableAt, where: Sql): Promise<void> {
  await waitForMutations(at);
  const [row] = await selectRows<{ n: string }>(
    at.client,
    sql`SELECT toString(count()) AS n FROM ${tableName(at.database, at.table)} WHERE ${where}`,
    at.readLimitSeconds,
  );
  if (Number(row?.n ?? 0) > 0) await deleteRows(at, where);
}

async function waitForMutations(at: TableAt): Promise<void> {
  const deadline = Date.now() + MUTATION_TIMEOUT_MS;
  const pending = sql`SELECT toString(count()) AS n FROM system.mutations
    WHERE database = ${at.database} AND table = ${at.table} AND NOT is_done`;
  for (let wait = 10; ; wait = Math.min(wait * 2, 500)) {
    const [row] = await selectRows<{ n: string }>(at.client, pending, at.readLimitSeconds);
    if (Number(row?.n ?? 0) === 0) return;
    // The rows still go, later: a retry finds the mutation done (or only its own to wait for).
    if (Date.now() >= deadline) throw new UnavailableError(`deleting the ${at.table} is still under way: retry later`);
    await sleep(wait);
  }
}
