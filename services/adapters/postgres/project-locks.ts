// The lock a project's delete takes alone, and that everyone who writes the project's issues or
// index entries (a batch recording its events, deleting some of its issues, saving its source
// maps) takes shared, before any other lock: so none of them waits on the delete while the delete
// waits on it. A transaction-scoped advisory lock on two integers (this space and the project id),
// apart from the hash locks' one-bigint keys. Advisory locks queue fairly, unlike row locks: new
// batches wait behind a delete already waiting, and nothing is written to the project's row.
import type { SqlExecutor } from './sql-client.ts';

const PROJECT_LOCK_SPACE = 727_002;

/** Shared locks on these projects, in id order (as every taker orders them). */
export async function lockProjectsShared(tx: SqlExecutor, projectIds: number[]): Promise<void> {
  const sorted = [...new Set(projectIds)].sort((a, b) => a - b);
  if (sorted.length === 0) return;
  await tx.query(`SELECT pg_advisory_xact_lock_shared(${PROJECT_LOCK_SPACE}, id) FROM unnest($1::int[]) AS id`, [sorted]);
}

/** The project's lock alone, for its delete. */
export async function lockProjectAlone(tx: SqlExecutor, projectId: number): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(${PROJECT_LOCK_SPACE}, $1)`, [projectId]);
}
