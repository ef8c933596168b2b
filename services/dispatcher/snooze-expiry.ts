// Ends snoozes on time even for issues that see no further event (an event after the snooze's
// end wakes its issue in the event pipeline already): every minute, snoozed issues whose time
// is up go back to unresolved, with an activity entry.
import type { MetadataStore } from '../core/ports/metadata-store.ts';
import type { Logger } from '../runtime/logger.ts';

export interface SnoozeExpiryDeps {
  metadata: MetadataStore;
  logger: Logger;
  now?: () => number;
  intervalMs?: number;
}

export function startSnoozeExpiryJob(deps: SnoozeExpiryDeps): { stop(): void } {
  const now = deps.now ?? Date.now;
  const run = async () => {
    try {
      const woken = await deps.metadata.expireSnoozes(new Date(now()));
      if (woken > 0) deps.logger.info({ issues: woken }, 'snoozes expired');
    } catch (error) {
      deps.logger.error({ err: error }, 'snooze expiry failed; will retry');
    }
  };
  void run();
  const timer = setInterval(() => void run(), deps.intervalMs ?? 60_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
