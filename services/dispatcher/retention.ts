// The dispatcher's retention job: once at start and then hourly, events and logs older than
// ERRATA_EVENT_RETENTION_DAYS are deleted, and with them the record of which event ids were
// counted. Issues stay, with their counts.
import type { EventStore } from '../core/ports/event-store.ts';
import type { LogStore } from '../core/ports/log-store.ts';
import type { MetadataStore } from '../core/ports/metadata-store.ts';
import type { Logger } from '../runtime/logger.ts';

export interface RetentionDeps {
  metadata: MetadataStore;
  events: EventStore;
  logs: LogStore;
  logger: Logger;
  retentionDays: number;
  now?: () => number;
  intervalMs?: number;
}

export async function pruneExpired(deps: RetentionDeps): Promise<{ events: number; logs: number; eventIds: number }> {
  const cutoff = (deps.now ?? Date.now)() / 1000 - deps.retentionDays * 86_400;
  const pruned = {
    events: await deps.events.deleteEventsBefore(cutoff),
    logs: await deps.logs.deleteLogsBefore(cutoff),
    eventIds: await deps.metadata.forgetProcessedEventsBefore(cutoff),
  };
  if (pruned.events + pruned.logs + pruned.eventIds > 0)
    deps.logger.info({ ...pruned, retentionDays: deps.retentionDays }, 'retention pruned');
  return pruned;
}

export function startRetentionJob(deps: RetentionDeps): { stop(): void } {
  const run = () =>
    pruneExpired(deps).catch((error: unknown) => deps.logger.error({ err: error }, 'retention pruning failed; will retry'));
  void run();
  const timer = setInterval(run, deps.intervalMs ?? 3_600_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
