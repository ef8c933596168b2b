// Figures of processes and their threads read from /proc (proc(5)): the priority a process gave
// its threads (tests), the CPU time they used (benchmarks, test/bench/thread-cpu.ts).
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The fields of a /proc stat line after the command, which may itself hold spaces and
 * parentheses: index 0 is the 3rd field (state), so field N is at N - 3.
 */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The nice value of each live thread of a process (the 19th field of a thread's stat line). */
export function threadNiceValues(pid: number | 'self'): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      return []; // the thread ended since the listing
    }
    return [Number(statFields(stat)[16])];
  });
}
