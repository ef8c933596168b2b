// npm run bench:occurrences — database CPU per event of recording a batch's occurrences (the
// issue side of the path of an event: issues, hashes, users, tag values, processed events) on
// a file-backed PGlite, as the standalone server does it, for several batch sizes. Events are
// spread over 100 issues and 500 users with six tags each. Prints the minimum, 25th percentile
// and median over the batches after ten warm-up ones: the minimum is the figure least moved by
// other work on the machine. Then batches of 10 (a quiet server's) and 250 as the database
// grows, where a statement whose cost follows a table's size shows: the hashes stay at 100, so
// it is processed_events that grows. Asserts nothing.
// BENCH_DATABASE=postgres runs the same batches on the real Postgres server `npm run infra:up`
// started (a database of its own, dropped afterwards), through `pg` as the distributed dispatcher
// does, and prints the CPU per event of this process and of the Postgres server (every process
// of it, from /proc: ticks of 10 ms, so totals over each size's batches rather than per batch;
// nothing else should use that server meanwhile). That server runs with fsync and
// synchronous_commit off, so WAL flushes are not in the figure.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGliteClient } from '../../services/adapters/pglite/pglite-client.ts';
import { migrate } from '../../services/adapters/postgres/migrate.ts';
import { PgMetadataStore } from '../../services/adapters/postgres/pg-metadata-store.ts';
import { PgPoolClient } from '../../services/adapters/postgres/pg-pool-client.ts';
import type { SqlClient } from '../../services/adapters/postgres/sql-client.ts';
import { readInfraEnv } from '../support/infra-env-file.ts';
import { withDatabase as withPostgresDatabase } from '../support/postgres-database.ts';
import type { Occurrence } from '../../services/core/issues/occurrence.ts';
import { percentile } from './load.ts';
import { ownCpuMicroseconds, parentPid, treeCpuSeconds } from './thread-cpu.ts';

const SIZES = (process.env.BENCH_BATCH_SIZES ?? '200,500,1000').split(',').map(Number);
const EVENTS_PER_SIZE = Number(process.env.BENCH_EVENTS ?? 50_000);
const WARM_UP_BATCHES = 10;
const ON_POSTGRES = process.env.BENCH_DATABASE === 'postgres';

function occurrence(n: number): Occurrence {
  return {
    projectId: 1,
    eventId: randomUUID().replace(/-/g, ''),
    hashes: [`hash-${n % 100}`],
    title: `ValueError: thing ${n % 100}`,
    culprit: 'app.handlers.checkout',
    level: 'error',
    type: 'error',
    metadata: { type: 'ValueError', value: `thing ${n % 100}` },
    timestamp: Date.now() / 1000,
    environment: 'production',
    release: 'web@1.0.0',
    userKey: `id:user-${n % 500}`,
    tags: {
      environment: 'production',
      release: 'web@1.0.0',
      browser: `browser-${n % 3}`,
      os: `os-${n % 4}`,
      server_name: `server-${n % 2}`,
      level: 'error',
    },
  };
}

/** A fresh database with one project, for `work`: file-backed PGlite, or one on the test Postgres server. */
async function withDatabase<T>(work: (store: PgMetadataStore, db: SqlClient) => Promise<T>): Promise<T> {
  if (ON_POSTGRES) {
    const database = withPostgresDatabase(() => infra.ERRATA_POSTGRES_URL!);
    const db = PgPoolClient.open({ url: await database.create() });
    try {
      return await withProject(db, work);
    } finally {
      await db.close();
      await database.drop();
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'errata-occurrences-bench-'));
  const db = await PGliteClient.open(dir);
  try {
    return await withProject(db, work);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function withProject<T>(db: SqlClient, work: (store: PgMetadataStore, db: SqlClient) => Promise<T>): Promise<T> {
  await migrate(db);
  await db.query(`INSERT INTO organizations (slug, name) VALUES ('bench', 'Bench')`);
  await db.query(`INSERT INTO projects (organization_id, slug, name) SELECT id, 'bench', 'Bench' FROM organizations`);
  return work(new PgMetadataStore(db), db);
}

/** The Postgres server's postmaster, the parent of this session's backend: a server on this machine. */
async function postmasterPid(db: SqlClient): Promise<number> {
  const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const backend = rows[0]!.pid;
  if (!existsSync(`/proc/${backend}/comm`) || readFileSync(`/proc/${backend}/comm`, 'utf8').trim() !== 'postgres') {
    throw new Error(
      `process ${backend} here is not the Postgres backend: BENCH_DATABASE=postgres needs the server of npm run infra:up`,
    );
  }
  return parentPid(backend);
}

/** Batches of `batchSize` on Postgres: CPU per event over all of them, this process's and the server's. */
async function measureOnPostgres(batchSize: number): Promise<string> {
  return withDatabase(async (store, db) => {
    const server = await postmasterPid(db);
    const batches = Math.ceil(EVENTS_PER_SIZE / batchSize);
    for (let b = 0; b < WARM_UP_BATCHES; b++) await store.recordOccurrences(batch(b, batchSize));
    const [clientBefore, serverBefore] = [ownCpuMicroseconds(), treeCpuSeconds(server)];
    for (let b = WARM_UP_BATCHES; b < WARM_UP_BATCHES + batches; b++) await store.recordOccurrences(batch(b, batchSize));
    const events = batches * batchSize;
    const client = (ownCpuMicroseconds() - clientBefore) / events;
    const postgres = ((treeCpuSeconds(server) - serverBefore) * 1e6) / events;
    return `batches of ${batchSize}: ${events} events, CPU per event ${(client + postgres).toFixed(0)} us = this process ${client.toFixed(0)} + Postgres ${postgres.toFixed(0)}`;
  });
}

function batch(b: number, batchSize: number): Occurrence[] {
  return Array.from({ length: batchSize }, (_, i) => occurrence(b * batchSize + i));
}

async function measure(batchSize: number): Promise<string> {
  return withDatabase(async (store) => {
    const perEvent: number[] = [];
    const batches = WARM_UP_BATCHES + Math.ceil(EVENTS_PER_SIZE / batchSize);
    for (let b = 0; b < batches; b++) {
      const before = ownCpuMicroseconds();
      await store.recordOccurrences(batch(b, batchSize));
      if (b >= WARM_UP_BATCHES) perEvent.push((ownCpuMicroseconds() - before) / batchSize);
    }
    const at = (p: number) => percentile(perEvent, p).toFixed(1);
    return `batches of ${batchSize}: ${perEvent.length} batches, CPU per event min ${at(0)} us, p25 ${at(25)} us, median ${at(50)} us`;
  });
}

/** Batches of 10 (a quiet server's) and of 250 after the database holds each of `checkpoints` events. */
async function batchesAsTheDatabaseGrows(checkpoints: number[]): Promise<string[]> {
  return withDatabase(async (store) => {
    const lines: string[] = [];
    let recorded = 0;
    const record = async (size: number): Promise<number> => {
      const batch = Array.from({ length: size }, (_, i) => occurrence(recorded + i));
      const before = ownCpuMicroseconds();
      await store.recordOccurrences(batch);
      recorded += size;
      return (ownCpuMicroseconds() - before) / size;
    };
    for (const checkpoint of checkpoints) {
      while (recorded < checkpoint) await record(Math.min(500, checkpoint - recorded));
      const figures = [10, 250].map((size) => {
        const perEvent: number[] = [];
        return { size, perEvent };
      });
      // Interleaved, so that both sizes see the same tables.
      for (let round = 0; round < 10; round++) for (const { size, perEvent } of figures) perEvent.push(await record(size));
      const at = (values: number[], p: number) => percentile(values, p).toFixed(0);
      lines.push(
        `from ${checkpoint} events recorded on: ` +
          figures
            .map(({ size, perEvent }) => `batches of ${size} min ${at(perEvent, 0)} us, median ${at(perEvent, 50)} us`)
            .join('; ') +
          ' (CPU per event)',
      );
    }
    return lines;
  });
}

const infra = ON_POSTGRES ? await readInfraEnv() : {};
console.log(
  `recordOccurrences on ${ON_POSTGRES ? 'Postgres (pg)' : 'PGlite'}: ${EVENTS_PER_SIZE} events per batch size over 100 issues, 500 users, 6 tags each`,
);
for (const size of SIZES) console.log(await (ON_POSTGRES ? measureOnPostgres(size) : measure(size)));
if (!ON_POSTGRES) for (const line of await batchesAsTheDatabaseGrows([1_000, 5_000, 20_000, 50_000])) console.log(line);
