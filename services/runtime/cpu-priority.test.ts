import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('./cpu-priority.ts', import.meta.url));

/**
 * In a child process (a test must not lower its own runner's priority, which it could not undo):
 * a worker thread started before, `lowerCpuPriority(nice)` after `renice` of the main thread, a
 * worker thread started after; then every thread's nice value, from /proc.
 */
function niceValuesAfter(nice: number, startedAt = 0): { returned: number; threads: number[] } {
  const script = `
    const { readdirSync, readFileSync } = await import('node:fs');
    const { setPriority } = await import('node:os');
    const { Worker } = await import('node:worker_threads');
    const { lowerCpuPriority } = await import(${JSON.stringify(MODULE)});
    const logger = { warn: (...args) => console.error(JSON.stringify(args)) };
    const idle = () => new Worker('setInterval(() => {}, 1000)', { eval: true });
    const before = idle();
    await new Promise((resolve) => before.once('online', resolve));
    if (${startedAt} > 0) setPriority(${startedAt});
    const returned = lowerCpuPriority(${nice}, logger);
    const after = idle();
    await new Promise((resolve) => after.once('online', resolve));
    const threads = readdirSync('/proc/self/task').map((tid) => {
      const stat = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    });
    console.log(JSON.stringify({ returned, threads }));
    process.exit(0);
  `;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout);
}

describe("the dispatcher's lower CPU priority", () => {
  it('reaches every thread: those running (V8 and libuv helpers, a worker) and those started after', () => {
    const { returned, threads } = niceValuesAfter(10);
    expect(returned).toBe(10);
    // The main thread, V8's platform threads, two workers and theirs.
    expect(threads.length).toBeGreaterThan(4);
    expect(new Set(threads)).toEqual(new Set([10]));
  });

  it('never raises a priority: the main thread started at 15 stays there; 0 changes nothing', () => {
    const renice = niceValuesAfter(10, 15);
    expect(renice.returned).toBe(15);
    expect(renice.threads).toContain(15);
    expect(Math.min(...renice.threads)).toBe(10);
    const none = niceValuesAfter(0);
    expect(none.returned).toBe(0);
    expect(new Set(none.threads)).toEqual(new Set([0]));
  });
});
