// The dispatcher's work can wait; an SDK's request cannot. Where the roles share cores (one
// machine, or pods without CPU limits on one node), a dispatcher working off a backlog took the
// CPU ingest needed to answer: at half of ingest's maximum the accept p99 was seconds, and with
// the dispatcher at nice 10 it was 58-80 ms, the backlog worked off as fast (docs/benchmarks.md,
// 2026-12-04 (fourth)). So the dispatcher lowers its own priority. Linux keeps a nice value per
// thread: each thread the process has is set, and threads started later (libuv's pool, on first
// use) inherit their creator's. In a container of its own the value only orders the role's own
// threads, and raising it needs no privilege.
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import type { Logger } from './logger.ts';

/**
 * Lowers the priority of every thread of this process to at least `nice` (never raises one that
 * is already lower), and returns the nice value the process runs with; where that cannot be done
 * (not Linux, or refused), logs why and leaves the priority as it is.
 */
export function lowerCpuPriority(nice: number, logger: Logger): number {
  if (nice <= 0) return getPriority();
  let threads: string[];
  try {
    threads = readdirSync('/proc/self/task');
  } catch (error) {
    logger.warn({ err: error }, 'cannot lower the CPU priority: no /proc/self/task (not Linux?); it stays as it is');
    return getPriority();
  }
  for (const thread of threads) {
    const tid = Number(thread);
    try {
      if (getPriority(tid) < nice) setPriority(tid, nice);
    } catch (error) {
      // A thread that ended since the listing has no priority to set.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') {
        logger.warn({ err: error, tid }, 'cannot lower the CPU priority of a thread; it stays as it is');
      }
    }
  }
  return getPriority();
}
