// npm run bench:events-insert — what storing a batch's events costs the standalone server's
// database: `PgEventStore.encodePayload` on each payload (deflate) and `insertEvents` (one
// transaction of multi-row INSERTs) on a file-backed PGlite, with the ingest benchmark's bodies
// (70/30 mix of ~2 KB and ~20 KB Python errors) normalized by `prepareEvents` as the backend does.
// Prints, per event, the CPU of the whole call and of its transaction alone (minimum, 25th
// percentile and median over the batches after the warm-up ones), the WAL Postgres wrote (records,
// bytes, full-page images), the bytes this process handed to write() and its variants (Linux's
// /proc/self/io `wchar`: the data files and the WAL as PGlite writes them, and the zeroing of each
// new WAL segment, which a fresh database creates as it goes and a running one mostly recycles),
// and the table's size on disk. These are the figures a change of how payloads are stored would
// move. Both forms of PgEventStore, one after the other in fresh databases: payloads in the rows
// (as on Postgres) and in payload segment files beside the database (the standalone server's),
// where the whole call includes appending the payloads and the transaction syncing them, and
// the size on disk the segments'. Asserts nothing. BENCH_BATCH_SIZE (250, about what a loaded server's backend takes) and
// BENCH_BATCHES (48) set the batches measured.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGliteClient } from '../../services/adapters/pglite/pglite-client.ts';
import { migrate } from '../../services/adapters/postgres/migrate.ts';
import { PayloadSegments } from '../../services/adapters/postgres/payload-segments.ts';
import { PgEventStore } from '../../services/adapters/postgres/pg-event-store.ts';
import type { QueryOptions, SqlClient, SqlExecutor } from '../../services/adapters/postgres/sql-client.ts';
import type { NewEvent } from '../../services/core/ports/event-store.ts';
import { prepareEvents } from '../../services/dispatcher/prepare-events.ts';
import { createLogger } from '../../services/runtime/logger.ts';
import { percentile } from './load.ts';
import { benchmarkRecords } from './queued-records.ts';
import { ownCpuMicroseconds } from './thread-cpu.ts';

const BATCH = Number(process.env.BENCH_BATCH_SIZE ?? 250);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 48);
const WARM_UP_BATCHES = 8;

/**
 * The benchmark's events as the backend hands them to the store, spread over 100 issues, but with
 * their payloads left as JSON: the timed part encodes them (deflates) as prepareEvents would.
 */
async function benchmarkEvents(): Promise<NewEvent[]> {
  const { prepared } = await prepareEvents(benchmarkRecords(), { encodePayload: (json) => json, logger: createLogger('silent') });
  return prepared.map(({ event }, i) => ({ ...event, issueId: 1 + (i % 100) }));
}

/**
 * The client, noting the CPU of each transaction it ran: all of insertEvents but its first check
 * (building the statements, PGlite's protocol and Postgres, the commit).
 */
class TimedTransactions implements SqlClient {
  lastTransactionMicros = 0;

  constructor(private readonly db: SqlClient) {}

  query<T>(sql: string, params?: unknown[], options?: QueryOptions) {
    return this.db.query<T>(sql, params, options);
  }

  close() {
    return this.db.close();
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const before = ownCpuMicroseconds();
    try {
      return await this.db.transaction(work);
    } finally {
      this.lastTransactionMicros = ownCpuMicroseconds() - before;
    }
  }
}

/** Bytes this process has passed to write() and its variants (pwrite, writev): /proc/self/io. */
function bytesWritten(): number {
  return Number(/^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
}

interface WalStats {
  records: number;
  fpi: number;
  /** Where the next WAL record goes: bytes written are the difference of two. */
  lsn: string;
}

/**
 * pg_stat_wal's counts after this session's own are added to them (a session adds them at most
 * once a second unless told to), and the WAL's insert position.
 */
async function walStats(db: SqlClient): Promise<WalStats> {
  await db.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await db.query<WalStats>(
    'SELECT wal_records::float8 AS records, wal_fpi::float8 AS fpi, pg_current_wal_insert_lsn()::text AS lsn FROM pg_stat_wal',
  );
  return rows[0]!;
}

async function walBytesBetween(db: SqlClient, from: string, to: string): Promise<number> {
  const { rows } = await db.query<{ bytes: number }>('SELECT pg_wal_lsn_diff($1, $2)::float8 AS bytes', [to, from]);
  return rows[0]!.bytes;
}

const events = await benchmarkEvents();
const meanPayload = events.reduce((sum, e) => sum + e.encodedPayload.length, 0) / events.length;
type PayloadForm = 'in the rows' | 'in segment files';
for (const form of ['in the rows', 'in segment files'] as const) {
  const dir = mkdtempSync(join(tmpdir(), 'errata-events-insert-bench-'));
  try {
    const db = new TimedTransactions(await PGliteClient.open(join(dir, 'db')));
    const segments =
      form === 'in segment files' ? await PayloadSegments.open(join(dir, 'payloads'), { mode: 'writer' }) : undefined;
    try {
      await measure(db, form, segments);
    } finally {
      segments?.close();
      await db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(db: TimedTransactions, form: PayloadForm, segments: PayloadSegments | undefined): Promise<void> {
  await migrate(db);
  const store = new PgEventStore(db, segments);
  const call: number[] = [];
  const transaction: number[] = [];
  let walBefore: WalStats | undefined;
  let writtenBefore = 0;
  for (let b = 0; b < WARM_UP_BATCHES + BATCHES; b++) {
    if (b === WARM_UP_BATCHES) [walBefore, writtenBefore] = [await walStats(db), bytesWritten()];
    // Fresh ids: every row is new, as in a server that is not redelivering.
    const batch = Array.from({ length: BATCH }, (_, i) => ({
      ...events[(b * BATCH + i) % events.length]!,
      eventId: randomUUID().replaceAll('-', ''),
    }));
    const before = ownCpuMicroseconds();
    await store.insertEvents(batch.map((e) => ({ ...e, encodedPayload: store.encodePayload(e.encodedPayload) })));
    if (b < WARM_UP_BATCHES) continue;
    call.push((ownCpuMicroseconds() - before) / BATCH);
    transaction.push(db.lastTransactionMicros / BATCH);
  }
  const measured = BATCHES * BATCH;
  const written = (bytesWritten() - writtenBefore) / measured;
  const wal = await walStats(db);
  const walBytes = (await walBytesBetween(db, walBefore!.lsn, wal.lsn)) / measured;
  const { rows } = await db.query<{ bytes: string; count: string }>(
    `SELECT pg_total_relation_size('events')::text AS bytes, count(*)::text AS count FROM events`,
  );
  const at = (values: number[], p: number) => percentile(values, p).toFixed(0);
  const figures = (values: number[]) => `min ${at(values, 0)}, p25 ${at(values, 25)}, median ${at(values, 50)} us`;
  console.log(
    `insertEvents on PGlite, payloads ${form}: batches of ${BATCH}, ${BATCHES} measured after ${WARM_UP_BATCHES}; payloads ${meanPayload.toFixed(0)} characters on average`,
  );
  console.log(`  CPU per event, the whole call (deflate included): ${figures(call)}`);
  console.log(`  CPU per event, its transaction alone:              ${figures(transaction)}`);
  console.log(
    `  WAL per event: ${((wal.records - walBefore!.records) / measured).toFixed(1)} records, ${walBytes.toFixed(0)} bytes, ` +
      `${((wal.fpi - walBefore!.fpi) / measured).toFixed(2)} full-page images`,
  );
  console.log(`  bytes passed to write() per event (data files and WAL): ${written.toFixed(0)}`);
  const segmentBytes = (segments?.list() ?? []).reduce((sum, name) => sum + statSync(join(segments!.dir, `${name}.seg`)).size, 0);
  console.log(
    `  events table with its TOAST and indexes: ${(Number(rows[0]!.bytes) / Number(rows[0]!.count)).toFixed(0)} bytes per event (${rows[0]!.count} rows)` +
      (segments ? `; payload segments ${(segmentBytes / Number(rows[0]!.count)).toFixed(0)} bytes per event` : ''),
  );
}
