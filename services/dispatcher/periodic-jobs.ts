// The dispatcher's periodic jobs, started together wherever the dispatcher runs (the
// dispatcher role, or the standalone server's backend thread): retention pruning and snooze expiry.
import { startRetentionJob, type RetentionDeps } from './retention.ts';
import { startSnoozeExpiryJob } from './snooze-expiry.ts';

export function startPeriodicJobs(deps: RetentionDeps): { stop(): void } {
  const jobs = [startRetentionJob(deps), startSnoozeExpiryJob(deps)];
  return { stop: () => jobs.forEach((job) => job.stop()) };
}
