// Which statements both SqlClients keep prepared under a name (parsed once per session, planned
// generically once Postgres finds that no dearer): DML with at most a few dozen parameters, and
// DML the caller says comes back verbatim (QueryOptions.keepPrepared, sql-client.ts).
// PGlite (pglite/one-exchange.ts) and `pg` (pg-pool-client.ts) apply the same rule, so both
// modes run the same statements the same way.

/** The statements kept prepared; the rest (DDL, SET, VACUUM, EXPLAIN) run unnamed. */
const PREPARABLE = /^\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH)\b/i;

/**
 * Statements with more parameters than this (multi-row VALUES lists, whose text changes with
 * the row count) run unnamed: kept, such texts would crowd out the few small statements run
 * again and again. Unless the caller knows the text comes back (keepPrepared).
 */
export const MAX_PREPARED_PARAMETERS = 64;

/** Statements that may change a table's shape. */
const DDL = /^\s*(?:CREATE|ALTER|DROP)\b/i;

export function changesShape(sql: string): boolean {
  return DDL.test(sql);
}

/** Whether `sql` is DML: its first word SELECT, INSERT, UPDATE, DELETE or WITH (so not SET, nor DDL). */
export function isPreparable(sql: string): boolean {
  return PREPARABLE.test(sql);
}

/** Whether `sql` with `parameters` values is worth keeping prepared: small, or known to come back. */
export function worthPreparing(sql: string, parameters: number, keepPrepared = false): boolean {
  return (keepPrepared || parameters <= MAX_PREPARED_PARAMETERS) && isPreparable(sql);
}
