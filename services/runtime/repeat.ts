// A background job on a timer: runs at once, then every `intervalMs`, never two runs of it at
// a time (a slow run makes the next tick skip rather than pile up), never keeping the process
// alive, and a failure logged with the job's name and retried at the next tick.
import type { Logger } from './logger.ts';

export function repeatEvery(
  job: { name: string; intervalMs: number; logger: Logger },
  work: () => Promise<void>,
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const run = () => {
    if (running) return;
    running = (async () => {
      try {
        await work();
      } catch (error) {
        job.logger.error({ err: error }, `${job.name} failed; will retry`);
      } finally {
        running = undefined;
      }
    })();
  };
  run();
  const timer = setInterval(run, job.intervalMs);
  timer.unref();
  return {
    /** No more runs; resolves once a run under way has ended (before what it uses is closed). */
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
