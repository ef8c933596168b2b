// Figures of a process's threads read from /proc (proc(5)): what a test checks of the priority
// a process gave its threads.
import { readdirSync, readFileSync } from 'node:fs';

/** The nice value of each live thread of a process (the 19th field of a thread's stat line). */
export function threadNiceValues(pid: number | 'self'): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      return []; // the thread ended since the listing
    }
    // The fields after the command's closing parenthesis start at the 3rd (state).
    return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
  });
}
