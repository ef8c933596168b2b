// The dispatcher role, assembled here once for `errata serve dispatcher` and the standalone
// server's backend thread alike: its work over the role's ports, the queue consumers (event and
// log pipelines, alert evaluation and webhook delivery) and the periodic jobs, with the settings
// of dispatcher-settings.ts.
import type { Logger } from '../runtime/logger.ts';
import { outcomeRecorder, type Metrics } from '../runtime/metrics.ts';
import type { DispatcherPorts } from '../runtime/role-ports.ts';
import { startPeriodicJobs } from './periodic-jobs.ts';
import type { DispatcherSettings } from './dispatcher-settings.ts';
import { startDispatcherWorkers, type DispatcherWorkers } from './workers.ts';

export function startDispatcherRole(
  ports: DispatcherPorts,
  settings: DispatcherSettings,
  runtime: { logger: Logger; metrics: Metrics },
): DispatcherWorkers {
  const stores = { metadata: ports.metadata, events: ports.events, logs: ports.logs };
  const workers = startDispatcherWorkers({
    queue: ports.queue,
    ...stores,
    blobs: ports.blobs,
    ...(settings.sourceMapCacheBytes ? { sourceMapCacheBytes: settings.sourceMapCacheBytes } : {}),
    ...(settings.batchSize ? { batchSize: settings.batchSize } : {}),
    alerting: { ...settings.alerting, alerts: ports.alerts, secrets: ports.secrets },
    outcomes: outcomeRecorder(runtime.metrics, 'dispatcher'),
    metrics: runtime.metrics,
    logger: runtime.logger,
  });
  const periodic = startPeriodicJobs({
    ...stores,
    alerts: ports.alerts,
    users: ports.users,
    baseUrl: settings.alerting.baseUrl,
    blobs: ports.blobs,
    logger: runtime.logger,
    metrics: runtime.metrics,
    retentionDays: settings.retentionDays,
  });
  return {
    async stop(options) {
      // Together: a long pass under way (retention after downtime) then delays no drain. Both
      // settled before returning, whichever failed: the owner closes the stores next.
      const stopped = await Promise.allSettled([periodic.stop(), workers.stop(options)]);
      for (const result of stopped) if (result.status === 'rejected') throw result.reason;
    },
  };
}
