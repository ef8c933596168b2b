import { spawnSync } from 'node:child_process';
import { getPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lowerThread } from './cpu-priority.ts';

const MODULE = fileURLToPath(new URL('./cpu-priority.ts', import.meta.url));
const PROC_STAT = fileURLToPath(new URL('../../test/support/proc-stat.ts', import.meta.url));
/** What the child starts at: this process's own nice value (a CI run may itself be niced). */
const STARTED_AT = getPriority();

/**
 * In a child process (a test must not lower its own runner's priority, which it could not undo):
 * a worker thread started before, `lowerCpuPriority(nice)` after setting the main thread to
 * `mainAt`, a worker thread started after; then every thread's nice value, from /proc.
 */
function niceValuesAfter(nice: number, mainAt?: number): { returned: number; threads: number[] } {
  const script = `
    const { setPriority } = await import('node:os');
    const { Worker } = await import('node:worker_threads');
    const { lowerCpuPriority } = await import(${JSON.stringify(MODULE)});
    const { threadNiceValues } = await import(${JSON.stringify(PROC_STAT)});
    const logger = { warn: (...args) => console.error(JSON.stringify(args)) };
    const idle = () => new Worker('setInterval(() => {}, 1000)', { eval: true });
    const before = idle();
    await new Promise((resolve) => before.once('online', resolve));
    ${mainAt === undefined ? '' : `setPriority(${mainAt});`}
    const returned = lowerCpuPriority(${nice}, logger);
    const after = idle();
    await new Promise((resolve) => after.once('online', resolve));
    console.log(JSON.stringify({ returned, threads: threadNiceValues('self') }));
    process.exit(0);
  `;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout);
}

describe("the dispatcher's lower CPU priority", () => {
  it('reaches every thread: those running (V8 and libuv helpers, a worker) and those started after', () => {
    const lowered = Math.max(STARTED_AT, 10);
    const { returned, threads } = niceValuesAfter(10);
    expect(returned).toBe(lowered);
    // The main thread, V8's platform threads, two workers and theirs.
    expect(threads.length).toBeGreaterThan(4);
    expect(new Set(threads)).toEqual(new Set([lowered]));
  });

  it('never raises a priority: the main thread set to 15 stays there; 0 changes nothing', () => {
    const mainAt = Math.max(STARTED_AT, 15);
    const renice = niceValuesAfter(10, mainAt);
    expect(renice.returned).toBe(mainAt);
    expect(renice.threads).toContain(mainAt);
    expect(Math.min(...renice.threads)).toBe(Math.max(STARTED_AT, 10));
    const none = niceValuesAfter(0);
    expect(none.returned).toBe(STARTED_AT);
    expect(new Set(none.threads)).toEqual(new Set([STARTED_AT]));
  });

  it('passes over a thread that has ended, without a warning', () => {
    const warnings: unknown[] = [];
    const logger = { warn: (...args: unknown[]) => warnings.push(args) } as unknown as Parameters<typeof lowerThread>[2];
    // Past the kernel's largest thread id (pid_max is at most 2^22): no such thread.
    lowerThread(2 ** 22 + 1, 10, logger);
    expect(warnings).toEqual([]);
  });
});
