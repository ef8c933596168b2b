// Entry point of the standalone server's backend thread, built as dist/backend-worker.mjs
// (runtime/embedded/backend.ts starts it next to dist/errata.mjs): the runtime opens the
// database, the reading side of the queue and the blobs (runtime/embedded/backend-thread.ts),
// and the dispatcher role runs on them, exactly as under `errata serve dispatcher`, with the
// settings the main thread read from the configuration.
import { startDispatcherRole } from '../dispatcher/dispatcher-role.ts';
import type { DispatcherSettings } from '../dispatcher/dispatcher-settings.ts';
import { BACKEND_BATCH_SIZE, BACKEND_SOURCE_MAP_CACHE_BYTES, runEmbeddedBackend } from '../runtime/embedded/backend-thread.ts';

await runEmbeddedBackend<DispatcherSettings>((ports, settings, runtime) =>
  startDispatcherRole(
    ports,
    { ...settings, sourceMapCacheBytes: BACKEND_SOURCE_MAP_CACHE_BYTES, batchSize: BACKEND_BATCH_SIZE },
    runtime,
  ),
);
