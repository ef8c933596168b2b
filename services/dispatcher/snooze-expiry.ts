// Ends snoozes on time even for issues that see no further event (an event after the snooze's
// end wakes its issue in the event pipeline already): every minute, snoozed issues whose time
// is up go back to unresolved, with an activity entry.
import { repeatEvery } from '../runtime/repeat.ts';
import type { MetadataStore } from '../core/ports/metadata-store.ts';
import type { Logger } from '../runtime/logger.ts';

interface SnoozeExpiryDeps {
  metadata: MetadataStore;
  logger: Logger;
  now?: () => number;
  intervalMs?: number;
}

export function startSnoozeExpiryJob(deps: SnoozeExpiryDeps): { stop(): Promise<void> } {
  const now = deps.now ?? Date.now;
  return repeatEvery({ name: 'snooze expiry', intervalMs: deps.intervalMs ?? 60_000, logger: deps.logger }, async () => {
    const woken = await deps.metadata.expireSnoozes(new Date(now()));
    if (woken > 0) deps.logger.info({ issues: woken }, 'snoozes expired');
  });
}
