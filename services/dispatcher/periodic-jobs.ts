// The dispatcher's periodic jobs, started together wherever the dispatcher runs (the
// dispatcher role, or the standalone server's backend thread): retention pruning, snooze
// expiry, the purge of deleted projects, and the alert summaries (overflow and digests).
import type { AlertStore } from '../core/ports/alert-store.ts';
import { registerRetentionProgress, type Metrics } from '../runtime/metrics.ts';
import { startAlertJobs } from './alert-jobs.ts';
import { startProjectPurgeJob } from './project-purge.ts';
import { startRetentionJob, type RetentionDeps } from './retention.ts';
import { startSnoozeExpiryJob } from './snooze-expiry.ts';

interface PeriodicJobDeps extends RetentionDeps {
  alerts: AlertStore;
  /** The dashboard base, for the links in summaries. */
  baseUrl: string;
  metrics: Metrics;
}

/** `stop()` resolves once the passes under way have ended, so that their stores may then close. */
export function startPeriodicJobs(deps: PeriodicJobDeps): { stop(): Promise<void> } {
  const jobs = [
    startRetentionJob(deps, registerRetentionProgress(deps.metrics)),
    startSnoozeExpiryJob(deps),
    startProjectPurgeJob(deps),
    startAlertJobs(deps),
  ];
  return {
    stop: async () => {
      await Promise.all(jobs.map((job) => job.stop()));
    },
  };
}
