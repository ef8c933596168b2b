// The dispatcher role's settings, from the configuration. Standalone reads them on the main
// thread and hands them to the backend thread, so they are plain data, and this module imports
// none of the role's work: the main thread, which only reads them, would otherwise load the whole
// event pipeline (normalizing, grouping, symbolication, alerting) that only the backend runs.
import { readFileSync } from 'node:fs';
import type { Config } from '../runtime/config.ts';
import type { AlertingSettings } from './workers.ts';

export interface DispatcherSettings {
  alerting: AlertingSettings;
  /** ERRATA_EVENT_RETENTION_DAYS: events, logs, maps and deliveries older than this are pruned. */
  retentionDays: number;
  /** Heap the cache of parsed source maps may hold; the symbolicator's default when absent. */
  sourceMapCacheBytes?: number;
  /** Records per handler call at most; workers.ts's default when absent. */
  batchSize?: number;
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
