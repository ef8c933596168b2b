// The dispatcher's work can wait; an SDK's request cannot. Where the roles share cores in one
// cgroup (processes on one machine or VM, or in one container), a dispatcher working off a
// backlog took the CPU ingest needed to answer: at 2,800 events/s, half of ingest's maximum,
// the accept p99 was 2.7 s, and 58 ms with the dispatcher at nice 10 (docs/benchmarks.md,
// 2026-12-04 (fourth)). So the dispatcher lowers its own priority. Linux keeps a nice value per
// thread: each thread the process has is set, and threads started later (libuv's pool, on first
// use) inherit their creator's. Between cgroups (a pod or container each, a systemd unit each)
// the kernel shares CPU by their weights, not by nice values: there `resources.requests.cpu`
// orders the roles, and this only orders the dispatcher's own threads. Raising a nice value
// needs no privilege.
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
  // Until a listing finds no thread it has not seen: a thread not yet lowered could start
  // another between a listing and its own turn.
  const done = new Set<string>();
  for (;;) {
    let threads: string[];
    try {
      threads = readdirSync('/proc/self/task').filter((tid) => !done.has(tid));
    } catch (error) {
      logger.warn({ err: error }, 'cannot lower the CPU priority: no /proc/self/task (not Linux?); it stays as it is');
      return getPriority();
    }
    if (threads.length === 0) break;
    for (const thread of threads) {
      done.add(thread);
      lowerThread(Number(thread), nice, logger);
    }
  }
  return getPriority();
}

/** Lowers one thread to at least `nice`; one that has ended is passed over in silence. */
export function lowerThread(tid: number, nice: number, logger: Logger): void {
  try {
    if (getPriority(tid) < nice) setPriority(tid, nice);
  } catch (error) {
    // A thread that ended since the listing has no priority to set. Node's error carries the
    // errno's name in `info`; its own code is ERR_SYSTEM_ERROR.
    if ((error as { info?: { code?: string } }).info?.code !== 'ESRCH') {
      logger.warn({ err: error, tid }, 'cannot lower the CPU priority of a thread; it stays as it is');
    }
  }
}
