// One process at a time owns a standalone data directory: PGlite is a single-process database
// and two writers would corrupt it. The owner records itself in <data dir>/errata.lock; a
// server also records the admin socket through which the CLI reaches it while it runs. A lock
// whose process is gone (kill -9) is stale and taken over.
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LockHolder {
  pid: number;
  kind: 'server' | 'cli';
  /** The admin socket of a running server. */
  socket?: string;
  startedAt: string;
}

export interface InstanceLock {
  release(): Promise<void>;
}

export class InstanceLockedError extends Error {
  constructor(readonly holder: LockHolder) {
    super(
      holder.kind === 'server'
        ? `another Errata server (pid ${holder.pid}) is using this data directory: stop it first, or set ERRATA_DATA_DIR`
        : `an errata command (pid ${holder.pid}) is using this data directory: wait for it to finish`,
    );
  }
}

const LOCK_FILE = 'errata.lock';

export async function acquireInstanceLock(
  dataDir: string,
  holder: Omit<LockHolder, 'pid' | 'startedAt'>,
  options: { waitMs?: number } = {},
): Promise<InstanceLock> {
  const path = join(dataDir, LOCK_FILE);
  const record: LockHolder = { ...holder, pid: process.pid, startedAt: new Date().toISOString() };
  const deadline = Date.now() + (options.waitMs ?? 0);
  for (;;) {
    // Written aside, then linked into place: link() fails if the lock exists, atomically.
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(record));
    try {
      await link(temporary, path);
      return {
        async release() {
          const current = await readHolder(path);
          if (current?.pid === process.pid) await rm(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await rm(temporary, { force: true });
    }
    const current = await readHolder(path);
    if (current && isAlive(current.pid)) {
      if (Date.now() >= deadline) throw new InstanceLockedError(current);
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    // Stale: move it aside (only one contender's rename can succeed) and try again.
    await rename(path, `${path}.stale.${process.pid}`).catch(() => undefined);
    await rm(`${path}.stale.${process.pid}`, { force: true });
  }
}

/** The live holder of the data directory, if any. */
export async function currentHolder(dataDir: string): Promise<LockHolder | undefined> {
  const holder = await readHolder(join(dataDir, LOCK_FILE));
  return holder && isAlive(holder.pid) ? holder : undefined;
}

async function readHolder(path: string): Promise<LockHolder | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as LockHolder;
  } catch {
    return undefined;
  }
}

/** Alive and still an Errata (node) process: a recycled pid of another program does not count. */
function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return /node|errata/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return true;
  }
}
