// The dispatcher role, assembled here once for `errata serve dispatcher` and the standalone
// server's backend thread alike: its settings from the configuration, and its work over the
// role's ports: the queue consumers (event and log pipelines, alert evaluation and webhook
// delivery) and the periodic jobs. Standalone reads the settings on the main thread and hands
// them to the backend thread, so they are plain data.
import { readFileSync } from 'node:fs';
import type { Config } from '../runtime/config.ts';
import type { Logger } from '../runtime/logger.ts';
import { outcomeRecorder, type Metrics } from '../runtime/metrics.ts';
import type { DispatcherPorts } from '../runtime/role-ports.ts';
import { startPeriodicJobs } from './periodic-jobs.ts';
import { startDispatcherWorkers, type AlertingSettings, type DispatcherWorkers } from './workers.ts';

export interface DispatcherSettings {
  alerting: AlertingSettings;
  /** ERRATA_EVENT_RETENTION_DAYS: events, logs, maps and deliveries older than this are pruned. */
  retentionDays: number;
  /** Heap the cache of parsed source maps may hold; the symbolicator's default when absent. */
  sourceMapCacheBytes?: number;
}

export function dispatcherSettings(config: Config): DispatcherSettings {
  return {
    alerting: {
      baseUrl: config.baseUrl,
      allowHosts: config.webhooks.allowHosts, // ERRATA_WEBHOOK_ALLOW_HOSTS
      // ERRATA_WEBHOOK_CA_FILE, read once here (standalone: on the main thread).
      extraCa: config.webhooks.caFile ? readFileSync(config.webhooks.caFile, 'utf8') : undefined,
      retryBaseMs: config.webhooks.retryBaseMs, // ERRATA_WEBHOOK_RETRY_BASE_MS
      channelLimitPerHour: config.webhooks.channelLimitPerHour, // ERRATA_ALERT_CHANNEL_LIMIT_PER_HOUR
    },
    retentionDays: config.eventRetentionDays,
  };
}

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
    alerting: { ...settings.alerting, alerts: ports.alerts, secrets: ports.secrets },
    outcomes: outcomeRecorder(runtime.metrics, 'dispatcher'),
    metrics: runtime.metrics,
    logger: runtime.logger,
  });
  const periodic = startPeriodicJobs({
    ...stores,
    alerts: ports.alerts,
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
