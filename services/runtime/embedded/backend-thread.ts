// The inside of the standalone server's backend thread: it owns the PGlite database and the
// reading side of the write-ahead queue, and runs the work it is given (the dispatcher: the
// thread's entry point, cli/backend-worker.ts, passes it in, so runtime never reaches up into
// a role) on the machine's second core and within its own heap limit, while the main thread
// answers HTTP and appends to the queue. The main thread reaches the database through
// thread-rpc (RemoteSqlClient); the two sides of the queue announce synced and committed
// offsets to each other.
import { parentPort, workerData } from 'node:worker_threads';
import { LocalQueue, type QueuePeerMessage } from '../../adapters/local-queue/local-queue.ts';
import type { DurableEnd } from '../../adapters/local-queue/topic-log.ts';
import { PGliteClient } from '../../adapters/pglite/pglite-client.ts';
import { migrate } from '../../adapters/postgres/migrate.ts';
import { PayloadSegments } from '../../adapters/postgres/payload-segments.ts';
import { createSqlStores } from '../../adapters/postgres/sql-stores.ts';
import { cutUncommittedPayloads } from '../../adapters/postgres/uncommitted-payloads.ts';
import { createLogger, type Logger } from '../logger.ts';
import { createMetrics, type Metrics } from '../metrics.ts';
import { openBlobStore, type BlobStoreConfig } from '../open-blob-store.ts';
import { openSecretBox } from '../open-secret-box.ts';
import type { DispatcherPorts } from '../role-ports.ts';
import { startCheckpointJob } from './checkpoint-job.ts';
import { startPayloadErasureJob } from './payload-erasure-job.ts';
import { sqlHandlers } from './remote-sql-client.ts';
import { startTableMaintenanceJob } from './table-maintenance.ts';
import { notifications, serveRpc } from './thread-rpc.ts';

/**
 * Heap the backend thread's cache of parsed source maps may hold, within its heap cap
 * (backend-heap.ts): two 5 MB maps (a 5 MB map made the old 48 MiB budget re-read the map for every
 * batch, 79x slower over a burst: npm run bench:symbolicate).
 */
export const BACKEND_SOURCE_MAP_CACHE_BYTES = 96 * 1024 * 1024;

/**
 * Records per handler call at most, twice the distributed dispatcher's 500 (dispatcher/workers.ts):
 * under a backlog an issue seen many times in a batch is updated once, and its statements and
 * commits are shared by more events. Here, reading the records from the local queue's files as
 * each call starts, in five pairs of bench:ingest the max phase cost 0-12% less CPU per event
 * and processed 2-15% more a second (36% and 56% in a pair the machine disturbed), for 1-13 MB
 * more at peak. A Kafka consumer keeps four batches' records fetched ahead, and the distributed
 * dispatcher peaked 150-200 MB higher with 1,000 (docs/benchmarks.md, 2026-12-04 (third)). A
 * call's transactions hold the database longer too, and the main thread's SQL waits for them;
 * preparing lets it in every 10 ms (prepare-events.ts): while catching up, /healthz p50 about
 * 20 ms and max 130, an issue list p50 85 ms and max 210 (2026-12-05).
 */
export const BACKEND_BATCH_SIZE = 1000;

/**
 * How long the dispatcher's handler calls wait, from the start of one, to fill a batch: under a
 * steady load a call then takes what arrived meanwhile, and its costs (a dozen statements, two
 * commits) are shared by more events. Those costs follow the issues and tag values a batch
 * touches more than its events: at 1,000 events/s, 350 ms (batches of about 350) rather than
 * 200 (about 200) cost the backend thread 0.41-0.43 core-ms per event against 0.48-0.58, and
 * events were listed later (p95 504-521 ms against 302-369); 500 ms saved no more and listed them
 * at a p95 of 643-781 ms (docs/benchmarks.md, 2026-12-04 (sixth); 200 replaced 100-event batches
 * on 2026-12-02 (third)). Events after a quiet spell, and a batch already full, go at once; an
 * event under load waits up to 350 ms more before it is listed.
 */
const BATCH_INTERVAL_MS = 350;

/** What the main thread (backend.ts) tells the thread; it crosses as structured-clone data. */
export interface BackendOptions<Settings = unknown> {
  databaseDir: string;
  /** The event payload files beside the database: this thread appends, the main thread reads. */
  payloadDir: string;
  queueDir: string;
  /** Where each topic's log ended once the main thread had recovered it: the reader starts there. */
  queueEnds: Record<string, DurableEnd>;
  logLevel: string;
  /** The same blob store the main thread serves uploads from: the dispatcher reads maps from it. */
  blobs: BlobStoreConfig;
  /** The secrets key as hex (the main thread reads or makes it once); absent: channels unusable. */
  secretsKeyHex?: string;
  /** The work's own settings, read from the configuration on the main thread. */
  work: Settings;
}

/** The work the thread runs; stopped with a drain when the server stops. */
interface BackendWork {
  stop(options: { drain: boolean; timeoutMs: number }): Promise<void>;
}

/**
 * Opens the thread's ports, starts `startWork` on them and answers the main thread. `startWork`
 * must not wait: see below.
 */
export async function runEmbeddedBackend<Settings>(
  startWork: (ports: DispatcherPorts, settings: Settings, runtime: { logger: Logger; metrics: Metrics }) => BackendWork,
): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('the backend runs only as the standalone server worker thread that backend.ts starts');
  const options = workerData as BackendOptions<Settings>;
  const logger = createLogger(options.logLevel).child({ thread: 'backend' });
  const metrics = createMetrics({ processMetrics: false });
  const client = await PGliteClient.open(options.databaseDir, {
    // Where Postgres would stop (a PANIC, which PGlite does not act on): ending this thread ends
    // the server (backend.ts), and the next start recovers from what reached the disk.
    onDiskFailure(error) {
      logger.fatal({ err: error }, 'the database could not write or sync its files; stopping');
      process.exit(1);
    },
  });
  await migrate(client);
  const payloads = await PayloadSegments.open(options.payloadDir, {
    mode: 'writer',
    // As for the database's: what a failed sync leaves on disk is unknown, so nothing more may
    // be stored over it; the next start begins past it.
    onSyncFailure(error) {
      logger.fatal({ err: error }, 'the event payload files could not sync to disk; stopping');
      process.exit(1);
    },
  });
  const cuts = await cutUncommittedPayloads(client, payloads);
  for (const { segment, bytes } of cuts.cut)
    logger.info({ segment, bytes }, 'event payloads no committed batch refers to cut off');
  for (const { segment, bytes } of cuts.grown)
    logger.warn(
      { segment, bytes },
      'event payload file shorter than its rows refer to (a damaged data directory); grown with zeros, those payloads lost',
    );
  for (const { segment, error } of cuts.failed)
    logger.warn({ err: error, segment }, 'could not set an event payload file to the end its committed rows refer to');
  for (const { segment, payloads: count, error } of cuts.unerased)
    logger.warn({ err: error, segment, payloads: count }, 'payloads past the end of an event payload file not overwritten');
  // Every await comes before the first port listener (the queue's, below): messages that
  // arrive once a listener is attached and before serveRpc's is reach only the queue's, and are lost.
  const blobs = await openBlobStore(options.blobs);
  const queue = new LocalQueue(options.queueDir, {
    mode: 'reader',
    peer: notifications<QueuePeerMessage>(port, 'queue'),
    durableEnds: options.queueEnds,
    minBatchIntervalMs: BATCH_INTERVAL_MS,
    onHandlerError(error, topic) {
      metrics.pipelineBatchErrors.inc({ topic });
      logger.error({ err: error, topic }, 'batch failed; retrying');
    },
  });
  const secrets = openSecretBox(options.secretsKeyHex ? Buffer.from(options.secretsKeyHex, 'hex') : undefined);
  const work = startWork({ queue, ...createSqlStores(client, payloads), blobs, secrets }, options.work, { logger, metrics });
  const maintenance = startTableMaintenanceJob(client, logger);
  const checkpoints = startCheckpointJob(client, logger);
  const erasures = startPayloadErasureJob(client, payloads, logger);

  serveRpc(port, {
    ...sqlHandlers(client),
    'backend.ping': async () => 'ok',
    'metrics.get': () => metrics.registry.getMetricsAsJSON(),
    'backend.stop': async ({ drainTimeoutMs }: { drainTimeoutMs: number }) => {
      // A job's run under way ends before the database closes under it.
      await Promise.all([maintenance.stop(), checkpoints.stop(), erasures.stop()]);
      await work.stop({ drain: true, timeoutMs: drainTimeoutMs });
      await queue.close();
      await client.close();
      payloads.close();
      await blobs.close();
    },
  });
}
