// Runs one role of the distributed mode as its own process (`node bin/errata.js serve <role>`)
// and drives it as an operator would: wait for /healthz, SIGTERM, kill -9. Stopped by PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort, REPO_ROOT } from './standalone-server.ts';

const BIN = join(REPO_ROOT, 'bin', 'errata.js');

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
  const child = spawn(process.execPath, [BIN, 'serve', role], {
    env: { ...env, ERRATA_PORT: String(port), ERRATA_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`errata serve ${role} exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`errata serve ${role} did not become healthy:\n${output}`);
    }
    const status = await fetch(`${url}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    role,
    url,
    port,
    child,
    exited,
    output: () => output,
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
