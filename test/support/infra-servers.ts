// Stopping and restarting the real servers infra:up started (Kafka, Postgres, ClickHouse,
// MinIO), for the suites that take one away under load. Stopped by the PID infra:up recorded.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { infraSetting } from './infra-env.ts';
import { eventually, runProcess } from './standalone-server.ts';

/** Stops one of the servers infra:up started, by its recorded PID, and waits for it to exit. */
export async function stopServer(name: string, signal: NodeJS.Signals): Promise<void> {
  const pid = Number((await readFile(join(infraSetting('ERRATA_INFRA_PIDS'), `${name}.pid`), 'utf8')).trim());
  process.kill(pid, signal);
  await eventually(async () => (isAlive(pid) ? undefined : true), `${name} to exit`, 60_000);
}

/** infra:up starts again whatever is not running. */
export async function restartServers(): Promise<void> {
  const up = await runProcess('bash', [infraSetting('ERRATA_INFRA_UP')], { timeoutMs: 180_000 });
  expect(up.code, up.stderr).toBe(0);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
