// The embedded database has no autovacuum, so nothing would ever gather the planner's table
// statistics: it then guesses a few dozen rows for any table and, with 10,000 issues, sorts them
// all instead of reading the index the Issues page was built for (bench:dashboard showed
// 176 ms where 15 ms do). This job runs ANALYZE at start and every ten minutes. A small
// statistics target keeps each run short (it samples 300 rows per unit), plenty for tables of
// this size, and is the only thing it changes: it affects nothing but ANALYZE.
import type { SqlClient } from '../../adapters/postgres/sql-client.ts';
import type { Logger } from '../logger.ts';
import { repeatEvery } from '../repeat.ts';

const INTERVAL_MS = 10 * 60_000;
const STATISTICS_TARGET = 10;

export function startTableStatisticsJob(client: SqlClient, logger: Logger, intervalMs = INTERVAL_MS): { stop(): void } {
  return repeatEvery({ name: 'table statistics', intervalMs, logger }, async () => {
    await client.query(`SET default_statistics_target = ${STATISTICS_TARGET}`);
    await client.query('ANALYZE');
  });
}
