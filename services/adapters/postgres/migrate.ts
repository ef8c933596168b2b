// Applies the SQL migrations in ./migrations in file-name order, each in its own transaction,
// recording what ran in schema_migrations. Idempotent; an advisory lock makes concurrent runs
// (two `errata migrate` jobs, or a server starting while one runs) wait rather than collide.
// Migrations only add, so an older version keeps serving while a newer schema is applied.
import { readdir, readFile } from 'node:fs/promises';
import type { SqlClient } from './sql-client.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
const LOCK_KEY = 727_001;

export interface MigrationReport {
  applied: string[];
  alreadyApplied: string[];
}

export async function listMigrations(): Promise<Array<{ version: string; sql: string }>> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
  return Promise.all(
    files.map(async (file) => ({ version: file.replace(/\.sql$/, ''), sql: await readFile(new URL(file, MIGRATIONS_DIR), 'utf8') })),
  );
}

export async function migrate(db: SqlClient): Promise<MigrationReport> {
  const migrations = await listMigrations();
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
    for (const migration of migrations) {
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

/** Our migration files hold plain DDL: statements end with ";" at the end of a line. */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter((statement) => statement !== '');
}
