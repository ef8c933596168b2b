// The standalone data directory holds every organization's events and logs (the database and
// its WAL), the queue, DSN keys and the secrets key: only the user running Errata may enter it.
// Whatever opens it (errata start, the CLI without a server, errata migrate) first makes the
// process create files owner-only (PGlite asks for 0666, the queue for 0644) and the directory
// 0700 again, saying so when it was open to others, so an older or hand-made one is fixed too.
import { chmod, stat } from 'node:fs/promises';
import { makeDirectoryDurably } from '../adapters/disk-sync.ts';
import { ConfigError } from './config.ts';
import type { Logger } from './logger.ts';

/** From now on, files and folders this process (and its children) creates are its user's alone. */
export function createFilesPrivately(): void {
  process.umask(0o077);
}

export async function openPrivateDataDir(dataDir: string, logger: Logger): Promise<void> {
  createFilesPrivately();
  await makeDirectoryDurably(dataDir, 0o700);
  const info = await stat(dataDir);
  if (!info.isDirectory()) throw new ConfigError(`ERRATA_DATA_DIR ${dataDir} is not a directory: point it at a directory`);
  const mode = info.mode & 0o777;
  if (mode === 0o700) return;
  if ((mode & 0o077) !== 0) {
    logger.warn({ dataDir, mode: mode.toString(8) }, 'the data directory was open to other users; made it private (mode 700)');
  }
  try {
    await chmod(dataDir, 0o700);
  } catch (error) {
    throw new ConfigError(
      `the data directory ${dataDir} has mode ${mode.toString(8)} and cannot be made private (${(error as NodeJS.ErrnoException).code}): ` +
        'run Errata as the user who owns it, or chmod 700 it',
    );
  }
}
