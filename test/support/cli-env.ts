// Fresh data directories for tests of the `errata` binary, removed after the file's tests, and
// the environment that points the CLI (and a server it may start) at one of them. Empty unless
// `initialized` asks for one whose database exists (initializedDataDir): a test of what the
// first command or start creates wants an empty one, the others save creating the database.
import { afterAll } from 'vitest';
import { freePort, initializedDataDir, removeDir, tempDataDir } from './standalone-server.ts';

interface DataDirOptions {
  initialized?: boolean;
}

export function cliEnvironments(): {
  dataDir(options?: DataDirOptions): Promise<string>;
  cliEnv(options?: DataDirOptions): Promise<NodeJS.ProcessEnv>;
} {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await removeDir(dir);
  });
  async function dataDir({ initialized = false }: DataDirOptions = {}): Promise<string> {
    const dir = initialized ? await initializedDataDir() : await tempDataDir();
    dirs.push(dir);
    return dir;
  }
  async function cliEnv(options: DataDirOptions = {}): Promise<NodeJS.ProcessEnv> {
    const port = await freePort();
    return {
      ...process.env,
      ERRATA_DATA_DIR: await dataDir(options),
      ERRATA_PORT: String(port),
      ERRATA_BASE_URL: `http://127.0.0.1:${port}`,
    };
  }
  return { dataDir, cliEnv };
}
