// Runs one role of the distributed mode as its own process (`node bin/errata.js serve <role>`)
// and drives it as an operator would: wait for /healthz, SIGTERM, kill -9. Stopped by PID.
import { freePort, spawnUntilHealthy, type ServerProcess } from './standalone-server.ts';

export interface RoleProcess extends ServerProcess {
  role: string;
  url: string;
  port: number;
}

export async function startRole(role: string, env: NodeJS.ProcessEnv, options: { port?: number } = {}): Promise<RoleProcess> {
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const roleEnv = { ...env, ERRATA_PORT: String(port), ERRATA_HOST: '127.0.0.1' };
  return { role, url, port, ...(await spawnUntilHealthy(['serve', role], roleEnv, url)) };
}
