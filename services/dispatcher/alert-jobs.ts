// The alert jobs that run on the clock rather than on events, every minute wherever the
// dispatcher runs: overflow summaries and scheduled digests. Both are safe to run in several
// dispatchers at once (each claims its work in one transaction).
import { repeatEvery } from '../runtime/repeat.ts';
import type { Logger } from '../runtime/logger.ts';
import { sendDueDigests, type DigestDeps } from './alert-digest.ts';
import { summarizeOverflow } from './overflow-summary.ts';

interface AlertJobDeps extends DigestDeps {
  logger: Logger;
  now?: () => number;
  intervalMs?: number;
}

export function startAlertJobs(deps: AlertJobDeps): { stop(): Promise<void> } {
  const now = deps.now ?? Date.now;
  return repeatEvery({ name: 'alert summaries', intervalMs: deps.intervalMs ?? 60_000, logger: deps.logger }, async () => {
    const at = new Date(now());
    const summaries = await summarizeOverflow(deps, at, deps.logger);
    const digests = await sendDueDigests(deps, at, deps.logger);
    if (summaries + digests > 0) deps.logger.info({ summaries, digests }, 'alert summaries queued');
  });
}
