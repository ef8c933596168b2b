// Fresh data directories for tests of the `errata` binary, removed after the file's tests, and
// the environment that points the CLI (and a server it may start) at one of them.
import { afterAll } from 'vitest';
import { freePort, removeDir, tempDataDir } from './standalone-server.ts';

export function cliEnvironments(): { dataDir(): Promise<string>; cliEnv(): Promise<NodeJS.ProcessEnv> } {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await removeDir(dir);
  });
  async function dataDir(): Promise<string> {
    const dir = await tempDataDir();
    dirs.push(dir);
    return dir;
  }
  async function cliEnv(): Promise<NodeJS.ProcessEnv> {
    const port = await freePort();
    return {
      ...process.env,
      ERRATA_DATA_DIR: await dataDir(),
      ERRATA_PORT: String(port),
      ERRATA_BASE_URL: `http://127.0.0.1:${port}`,
    };
  }
  return { dataDir, cliEnv };
}
