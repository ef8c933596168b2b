// Applies the SQL migrations of ./migrations in order, in one transaction, recording what ran
// in schema_migrations. Idempotent; an advisory lock makes concurrent runs
// (two `errata migrate` jobs, or a server starting while one runs) wait rather than collide.
// Migrations only add, so an older version keeps serving while a newer schema is applied.
import { MIGRATIONS } from './migrations/index.ts';
import type { SqlClient } from './sql-client.ts';

const LOCK_KEY = 727_001;

interface MigrationReport {
  applied: string[];
  alreadyApplied: string[];
}

export async function migrate(db: SqlClient): Promise<MigrationReport> {
  return db.transaction(async (tx) => {
    // Transaction-scoped, so it is released however this ends.
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await tx.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
    );
    const report: MigrationReport = { applied: [], alreadyApplied: [] };
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) {
        report.alreadyApplied.push(migration.version);
        continue;
      }
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
      report.applied.push(migration.version);
    }
    return report;
  });
}

/**
 * The migrations this version needs that the database has not had, in order; empty when the
 * schema is current (or newer: migrations only add). A role checks this at start so it never
 * runs on a schema `errata migrate` has not brought up yet.
 */
export async function pendingMigrations(db: SqlClient): Promise<string[]> {
  const table = await db.query<{ present: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS present");
  if (!table.rows[0]?.present) return MIGRATIONS.map((m) => m.version);
  const done = new Set((await db.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
  return MIGRATIONS.map((m) => m.version).filter((version) => !done.has(version));
}

/** Our migration files hold plain DDL: statements end with ";" at the end of a line. */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter((statement) => statement !== '');
}
