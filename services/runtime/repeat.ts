// A background job on a timer: runs at once, then every `intervalMs`, never two runs of it at
// a time (a slow run makes the next tick skip rather than pile up), never keeping the process
// alive, and a failure logged with the job's name and retried at the next tick.
import type { Logger } from './logger.ts';

export function repeatEvery(
  job: { name: string; intervalMs: number; logger: Logger },
  work: () => Promise<void>,
): { stop(): void } {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      await work();
    } catch (error) {
      job.logger.error({ err: error }, `${job.name} failed; will retry`);
    } finally {
      running = false;
    }
  };
  void run();
  const timer = setInterval(() => void run(), job.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
