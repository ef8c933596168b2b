// CPU time of a process and of each of its threads, read from /proc (USER_HZ ticks, 100 a second
// on Linux): what the benchmarks divide by events to get core-milliseconds per event.
import { readdirSync, readFileSync } from 'node:fs';
import { statFields } from '../support/proc-stat.ts';

const TICKS_PER_SECOND = 100;

/** utime + stime of one /proc stat line, in seconds. */
function statSeconds(stat: string): number {
  const fields = statFields(stat);
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU seconds used so far by each thread of the process, by thread id. */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    out.set(tid, statSeconds(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
  }
  return out;
}

/** CPU time this process has used so far (every thread), in microseconds: for benchmarks that time work done in-process. */
export function ownCpuMicroseconds(): number {
  const used = process.cpuUsage();
  return used.user + used.system;
}

/** CPU seconds used so far by the whole process (every thread). */
export function processCpuSeconds(pid: number): number {
  return statSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * Server CPU per unit (event, call) between two snapshots, in core-ms, split into the main
 * thread (HTTP, MCP, queue appends), the busiest other thread (the backend thread: database and
 * dispatcher) and the rest (V8's garbage-collection and compiler helpers, libuv's pool doing
 * zlib and fsync).
 */
export function threadCpuSplit(pid: number, before: Map<string, number>, after: Map<string, number>, units: number) {
  const used = [...after].map(([tid, seconds]) => ({ tid, ms: ((seconds - (before.get(tid) ?? 0)) * 1000) / units }));
  const main = used.find((t) => t.tid === String(pid))?.ms ?? 0;
  const others = used.filter((t) => t.tid !== String(pid)).sort((a, b) => b.ms - a.ms);
  const backend = others[0]?.ms ?? 0;
  const helpers = others.slice(1).reduce((sum, t) => sum + t.ms, 0);
  return { all: main + backend + helpers, main, backend, helpers };
}

export function describeThreadCpu(pid: number, before: Map<string, number>, after: Map<string, number>, events: number): string {
  const { all, main, backend, helpers } = threadCpuSplit(pid, before, after, events);
  return `server CPU per event: ${all.toFixed(2)} core-ms = main thread ${main.toFixed(2)} + backend thread ${backend.toFixed(2)} + helper threads ${helpers.toFixed(2)}`;
}

/** The parent of a process, from its /proc stat line. */
export function parentPid(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(statFields(stat)[1]);
}

/**
 * CPU seconds of a process and all its descendants, live and exited: each live process's own
 * time plus what its reaped children used (cutime, cstime). A Postgres server's connection
 * backends are children of its postmaster; they count here.
 */
export function treeCpuSeconds(root: number): number {
  const parentOf = new Map<number, number>();
  const seconds = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    const fields = statFields(stat);
    parentOf.set(Number(entry), Number(fields[1]));
    seconds.set(Number(entry), fields.slice(11, 15).reduce((s, f) => s + Number(f), 0) / TICKS_PER_SECOND);
  }
  let total = 0;
  for (const [pid, s] of seconds) {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parentOf.get(p)) {
      if (p === root) {
        total += s;
        break;
      }
    }
  }
  return total;
}
