// Every migration, in the order it runs. A version is recorded in schema_migrations once applied.
import initial from './0001-initial.ts';

export const MIGRATIONS: ReadonlyArray<{ version: string; sql: string }> = [{ version: '0001-initial', sql: initial }];
