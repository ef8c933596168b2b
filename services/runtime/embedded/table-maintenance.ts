// The embedded database has no autovacuum, so this job does its two duties, at start and every
// ten minutes:
// - ANALYZE: without the planner's table statistics it guesses a few dozen rows for any table
//   and, with 10,000 issues, sorts them all instead of reading the index the Issues page was
//   built for (bench:dashboard showed 176 ms where 15 ms do). A small statistics target keeps
//   each run short (it samples 300 rows per unit), plenty for tables of this size.
// - VACUUM: every event rewrites its issue's row, and retention deletes events; without it the
//   dead rows and their index entries would pile up for good. It also keeps the visibility map,
//   without which no index-only scan skips the heap (the issue page's event counts, 59 ms
//   instead of 9 for a loud issue). A run over 200,000 events took 0.8 s, and 0.25 s after.
import type { SqlClient } from '../../adapters/postgres/sql-client.ts';
import type { Logger } from '../logger.ts';
import { repeatEvery } from '../repeat.ts';

const INTERVAL_MS = 10 * 60_000;
const STATISTICS_TARGET = 10;

export function startTableMaintenanceJob(client: SqlClient, logger: Logger, intervalMs = INTERVAL_MS): { stop(): Promise<void> } {
  return repeatEvery({ name: 'table maintenance', intervalMs, logger }, async () => {
    await client.query(`SET default_statistics_target = ${STATISTICS_TARGET}`);
    await client.query('VACUUM (ANALYZE)');
  });
}
