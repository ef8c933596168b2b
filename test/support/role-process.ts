// Runs one role of the distributed mode as its own process (`node bin/errata.js serve <role>`)
// and drives it as an operator would: wait for /healthz, SIGTERM, kill -9. Stopped by PID.
import type { ChildProcess } from 'node:child_process';
import { freePort, spawnUntilHealthy } from './standalone-server.ts';

export interface RoleProcess {
  role: string;
  url: string;
  port: number;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: no chance to finish anything. */
  kill(): Promise<void>;
}

export async function startRole(role: string, env: NodeJS.ProcessEnv, options: { port?: number } = {}): Promise<RoleProcess> {
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const { child, exited, output } = await spawnUntilHealthy(
    ['serve', role],
    { ...env, ERRATA_PORT: String(port), ERRATA_HOST: '127.0.0.1' },
    url,
  );
  return {
    role,
    url,
    port,
    child,
    exited,
    output,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
