// The standalone server's backend thread: it owns the PGlite database, consumes the
// write-ahead queue and runs the dispatcher, on the machine's second core and within its own
// heap limit, while the main thread answers HTTP and appends to the queue. The main thread
// reaches the database through thread-rpc (RemoteSqlClient); the two sides of the queue
// announce synced and committed offsets to each other. Built as dist/backend-worker.mjs.
import { openSecretBox, type AlertingSettings } from '../open-secret-box.ts';
import { parentPort, workerData } from 'node:worker_threads';
import { LocalQueue, type QueuePeerMessage } from '../../adapters/local-queue/local-queue.ts';
import { PGliteClient } from '../../adapters/pglite/pglite-client.ts';
import { migrate } from '../../adapters/postgres/migrate.ts';
import { createSqlStores } from '../../adapters/postgres/sql-stores.ts';
import { startPeriodicJobs } from '../../dispatcher/periodic-jobs.ts';
import { startDispatcherWorkers } from '../../dispatcher/workers.ts';
import { openBlobStore, type BlobStoreConfig } from '../open-blob-store.ts';
import { createLogger } from '../logger.ts';
import { createMetrics, outcomeRecorder } from '../metrics.ts';
import { sqlHandlers } from './remote-sql-client.ts';
import { notifications, serveRpc } from './thread-rpc.ts';

export interface BackendOptions {
  databaseDir: string;
  queueDir: string;
  logLevel: string;
  retentionDays: number;
  /** The same blob store the main thread serves uploads from: the dispatcher reads maps from it. */
  blobs: BlobStoreConfig;
  alerting: AlertingSettings;
  /** The secrets key as hex (the main thread reads or makes it once); absent: channels unusable. */
  secretsKeyHex?: string;
}

const options = workerData as BackendOptions;
const logger = createLogger(options.logLevel).child({ thread: 'backend' });
const metrics = createMetrics({ processMetrics: false });
const client = await PGliteClient.open(options.databaseDir);
await migrate(client);
// Every await comes before the first parentPort listener (the queue's, below): messages that
// arrive once a listener is attached and before serveRpc's is reach only the queue's, and are lost.
const blobs = await openBlobStore(options.blobs);
const queue = new LocalQueue(options.queueDir, {
  mode: 'reader',
  peer: notifications<QueuePeerMessage>(parentPort!, 'queue'),
  onHandlerError(error, topic) {
    metrics.pipelineBatchErrors.inc({ topic });
    logger.error({ err: error, topic }, 'batch failed; retrying');
  },
});
const { alerts, ...stores } = createSqlStores(client);
// The backend thread's heap is capped (backend.ts): parsed source maps get up to 96 MiB of it,
// two 5 MB maps (a 5 MB map made the old 48 MiB budget re-read the map for every batch, 79x
// slower over a burst: npm run bench:symbolicate).
const dispatcher = startDispatcherWorkers({
  queue,
  ...stores,
  blobs,
  sourceMapCacheBytes: 96 * 1024 * 1024,
  alerting: {
    ...options.alerting,
    alerts,
    secrets: openSecretBox(options.secretsKeyHex ? Buffer.from(options.secretsKeyHex, 'hex') : undefined),
  },
  outcomes: outcomeRecorder(metrics, 'dispatcher'),
  metrics,
  logger,
});
const periodic = startPeriodicJobs({
  ...stores,
  alerts,
  baseUrl: options.alerting.baseUrl,
  blobs,
  logger,
  retentionDays: options.retentionDays,
});

serveRpc(parentPort!, {
  ...sqlHandlers(client),
  'backend.ping': async () => 'ok',
  'metrics.get': () => metrics.registry.getMetricsAsJSON(),
  'backend.stop': async ({ drainTimeoutMs }: { drainTimeoutMs: number }) => {
    periodic.stop();
    await dispatcher.stop({ drain: true, timeoutMs: drainTimeoutMs });
    await queue.close();
    await client.close();
    await blobs.close();
  },
});
