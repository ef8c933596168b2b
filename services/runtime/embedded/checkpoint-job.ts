// The embedded database runs Postgres in single-user mode, where no checkpointer runs: Postgres
// checkpoints there only when it shuts down. Until then the WAL grows by every byte written
// (each event's payload among them) and is never recycled, and after a crash the next start
// replays all of it. This job does the checkpointer's duty with its defaults: a checkpoint once
// MAX_WAL_BYTES of WAL were written since the last one, or TIMEOUT_MS after it if anything was.
// A checkpoint writes out the dirty pages and syncs the files written since the last one
// (private-node-fs.ts); the WAL before it is then recycled.
import type { SqlClient } from '../../adapters/postgres/sql-client.ts';
import type { Logger } from '../logger.ts';
import { repeatEvery } from '../repeat.ts';

const CHECK_INTERVAL_MS = 15_000;
/** Postgres's own trigger is about half of max_wal_size (1 GB); a small server keeps less. */
const MAX_WAL_BYTES = 256 * 1024 * 1024;
/** Postgres's checkpoint_timeout. */
const TIMEOUT_MS = 5 * 60_000;
/** WAL since the last checkpoint record below which a timed checkpoint is skipped: the record itself, an idle server's few writes. */
const IDLE_WAL_BYTES = 1024 * 1024;

interface CheckpointPolicy {
  maxWalBytes: number;
  timeoutMs: number;
}

/** Checkpoints when `policy` says one is due: how long the checkpoint took (ms), undefined when none was due. */
export async function checkpointIfDue(
  client: SqlClient,
  policy: CheckpointPolicy = { maxWalBytes: MAX_WAL_BYTES, timeoutMs: TIMEOUT_MS },
): Promise<number | undefined> {
  const { rows } = await client.query<{ wal_bytes: number; age_ms: number }>(
    `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), checkpoint_lsn)::float8 AS wal_bytes,
            (extract(epoch from now() - checkpoint_time) * 1000)::float8 AS age_ms
       FROM pg_control_checkpoint()`,
  );
  const { wal_bytes: walBytes, age_ms: ageMs } = rows[0]!;
  const due = walBytes >= policy.maxWalBytes || (ageMs >= policy.timeoutMs && walBytes >= IDLE_WAL_BYTES);
  if (!due) return undefined;
  const started = performance.now();
  await client.query('CHECKPOINT');
  return performance.now() - started;
}

export function startCheckpointJob(client: SqlClient, logger: Logger, intervalMs = CHECK_INTERVAL_MS): { stop(): Promise<void> } {
  return repeatEvery({ name: 'checkpoint', intervalMs, logger }, async () => {
    // The backend thread does nothing else meanwhile: the duration is a pause in processing.
    const ms = await checkpointIfDue(client);
    if (ms !== undefined) logger.info({ ms: Math.round(ms) }, 'database checkpoint');
  });
}
