// npm run bench:occurrences — database CPU per event of recording a batch's occurrences (the
// issue side of the path of an event: issues, hashes, users, tag values, processed events) on
// a file-backed PGlite, as the standalone server does it, for several batch sizes. Events are
// spread over 100 issues and 500 users with six tags each. Prints the minimum, 25th percentile
// and median over the batches after ten warm-up ones: the minimum is the figure least moved by
// other work on the machine. Then batches of 10 (a quiet server's) and 250 as the database
// grows, where a statement whose cost follows a table's size shows: the hashes stay at 100, so
// it is processed_events that grows. Asserts nothing.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGliteClient } from '../../services/adapters/pglite/pglite-client.ts';
import { migrate } from '../../services/adapters/postgres/migrate.ts';
import { PgMetadataStore } from '../../services/adapters/postgres/pg-metadata-store.ts';
import type { Occurrence } from '../../services/core/issues/occurrence.ts';
import { percentile } from './load.ts';

const SIZES = (process.env.BENCH_BATCH_SIZES ?? '200,500,1000').split(',').map(Number);
const EVENTS_PER_SIZE = Number(process.env.BENCH_EVENTS ?? 50_000);
const WARM_UP_BATCHES = 10;

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

/** A fresh file-backed database with one project, for `work`; removed afterwards. */
async function withDatabase<T>(work: (store: PgMetadataStore) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'errata-occurrences-bench-'));
  const db = await PGliteClient.open(dir);
  try {
    await migrate(db);
    await db.query(`INSERT INTO organizations (slug, name) VALUES ('bench', 'Bench')`);
    await db.query(`INSERT INTO projects (organization_id, slug, name) SELECT id, 'bench', 'Bench' FROM organizations`);
    return await work(new PgMetadataStore(db));
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function cpuMicroseconds(): number {
  const used = process.cpuUsage();
  return used.user + used.system;
}

async function measure(batchSize: number): Promise<string> {
  return withDatabase(async (store) => {
    const perEvent: number[] = [];
    const batches = WARM_UP_BATCHES + Math.ceil(EVENTS_PER_SIZE / batchSize);
    for (let b = 0; b < batches; b++) {
      const batch = Array.from({ length: batchSize }, (_, i) => occurrence(b * batchSize + i));
      const before = cpuMicroseconds();
      await store.recordOccurrences(batch);
      if (b >= WARM_UP_BATCHES) perEvent.push((cpuMicroseconds() - before) / batchSize);
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
      const before = cpuMicroseconds();
      await store.recordOccurrences(batch);
      recorded += size;
      return (cpuMicroseconds() - before) / size;
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

console.log(`recordOccurrences on PGlite: ${EVENTS_PER_SIZE} events per batch size over 100 issues, 500 users, 6 tags each`);
for (const size of SIZES) console.log(await measure(size));
for (const line of await batchesAsTheDatabaseGrows([1_000, 5_000, 20_000, 50_000])) console.log(line);
