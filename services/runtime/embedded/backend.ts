// Starts the standalone server's backend thread (dist/backend-worker.mjs, built from
// cli/backend-worker.ts over backend-thread.ts) and hands the main thread what it needs: SQL
// stores over RemoteSqlClient, and the writing side of the queue, linked to the reading side in
// the backend. The thread's heap is capped (backend-heap.ts) so a runaway batch ends the thread
// rather than growing without bound; if the thread dies, the process stops (nothing
// acknowledged is lost: it is in the queue on disk).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PayloadSegments } from '../../adapters/postgres/payload-segments.ts';
import { createSqlStores, type SqlStores } from '../../adapters/postgres/sql-stores.ts';
import type { Logger } from '../logger.ts';
import type { Metrics, MetricsJson } from '../metrics.ts';
import { LocalQueue, type QueuePeerMessage } from '../../adapters/local-queue/local-queue.ts';
import { TOPICS } from '../../core/pipeline/queued-item.ts';
import type { BackendOptions } from './backend-thread.ts';
import { backendHeapMb } from './backend-heap.ts';
import { RemoteSqlClient } from './remote-sql-client.ts';
import { notifications, RpcClient } from './thread-rpc.ts';

// Next to the bundled CLI (dist/errata.mjs) that runs this code.
const WORKER = new URL('./backend-worker.mjs', import.meta.url);

interface EmbeddedBackend extends SqlStores {
  queue: LocalQueue;
  stop(drainTimeoutMs: number): Promise<void>;
}

/**
 * How long an accepted envelope may wait to share the queue's next fsync. At 1,000 events/s
 * nearly every append was flushed alone. With 5 ms the server made a quarter of the fsyncs, its
 * main thread and helper threads spent 0.03-0.09 core-ms per event less (the backend about as
 * much more, storing smaller batches: the whole process the same), the time to listed was lower,
 * and an SDK's request waited 1-3 ms more (docs/benchmarks.md, 2026-12-02 (second)). Kafka's producers
 * wait 5 ms by default since 4.0 (linger.ms, KIP-1030) for the same reason.
 */
const QUEUE_FLUSH_INTERVAL_MS = 5;

export async function startEmbeddedBackend(
  options: Omit<BackendOptions, 'queueEnds'> & { queueMaxBacklogBytes: number },
  logger: Logger,
  metrics: Metrics,
): Promise<EmbeddedBackend> {
  if (!existsSync(fileURLToPath(WORKER))) {
    throw new Error(`${fileURLToPath(WORKER)} is missing: run \`npm run build\``);
  }
  const { queueMaxBacklogBytes, ...workerOptions } = options;
  // Each topic's log is recovered (a torn tail cut) before the reading side, in the worker,
  // opens it; the reader reads up to where the recovered logs end, and further as the writer
  // announces synced bytes, never into an append under way when it opens.
  const recovery = new LocalQueue(options.queueDir, {
    // Damage recovery stepped over (a bad sector, not a crash): the records after it are kept.
    onHandlerError: (error, topic) => logger.error({ err: error, topic }, 'the queue found damaged bytes on disk'),
  });
  const queueEnds = await recovery.durableEnds(Object.values(TOPICS));
  await recovery.close();
  const worker = new Worker(WORKER, {
    workerData: { ...workerOptions, queueEnds } satisfies BackendOptions,
    resourceLimits: { maxOldGenerationSizeMb: backendHeapMb(), maxYoungGenerationSizeMb: 8 },
  });
  const rpc = new RpcClient(worker);
  // Listened for at once: a thread that died while the queue's topics open below, unheard, left
  // the start waiting for its answer to the ping for ever.
  let stopping = false;
  const died = new Promise<never>((_, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the backend thread exited with code ${code}`)));
  });
  died.catch((error: Error) => {
    rpc.failAll(error);
    if (stopping) return;
    logger.fatal({ err: error }, 'the backend thread (database, queue, dispatcher) died; stopping');
    process.exit(1);
  });
  const queue = new LocalQueue(options.queueDir, {
    mode: 'writer',
    peer: notifications<QueuePeerMessage>(worker, 'queue'),
    maxBacklogBytes: queueMaxBacklogBytes,
    minFlushIntervalMs: QUEUE_FLUSH_INTERVAL_MS,
  });
  await queue.openTopics(Object.values(TOPICS));
  await Promise.race([rpc.call('backend.ping'), died]);
  metrics.sources.push(() => rpc.call<MetricsJson>('metrics.get'));
  return {
    // Reads the payload files the thread writes (it made their directory before answering the ping).
    ...createSqlStores(new RemoteSqlClient(rpc), new PayloadSegments(options.payloadDir, { mode: 'reader' })),
    queue,
    async stop(drainTimeoutMs) {
      stopping = true;
      await queue.close();
      await rpc.call('backend.stop', { drainTimeoutMs });
      await worker.terminate();
    },
  };
}
