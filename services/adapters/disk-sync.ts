// Syncing to disk what must survive a machine's crash: a file's data needs its own fsync, and a
// file created, renamed or removed needs its directory's too. Shared by the local queue, the
// filesystem blob store and the embedded database.
import { closeSync, fdatasyncSync, fsyncSync, openSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * What a filesystem that opens a directory but cannot fsync one answers (some network and FUSE
 * mounts): its entries are then as durable as they get there. Any other error (EIO) is a disk's.
 */
const NO_DIRECTORY_SYNC = ['EINVAL', 'EPERM', 'EISDIR', 'EBADF'];

function tolerated(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NO_DIRECTORY_SYNC.includes(code);
}

export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch (error) {
    if (!tolerated(error)) throw error;
  } finally {
    await handle.close();
  }
}

/**
 * Creates `dir` and any missing parents (with `mode`, under the umask), and syncs each new entry
 * into its parent, up to the first directory that already existed: what is then synced inside it
 * survives a crash too. For directories made once, as a store opens; one found already there is
 * taken as durable.
 */
export async function makeDirectoryDurably(dir: string, mode?: number): Promise<void> {
  const firstCreated = await mkdir(dir, { recursive: true, ...(mode === undefined ? {} : { mode }) });
  if (firstCreated === undefined) return;
  await syncDirectoriesUpTo(dirname(resolve(dir)), dirname(resolve(firstCreated)));
}

/**
 * Syncs `from` and each directory above it, up to and including `last` (or the filesystem's root
 * if `last` is not above `from`): an entry is durable once its directory is, and that directory
 * once its own entry is, and so on up.
 */
export async function syncDirectoriesUpTo(from: string, last: string): Promise<void> {
  const end = resolve(last);
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    await syncDirectory(dir);
    if (dir === end || dirname(dir) === dir) return;
  }
}

/** The blocking forms, for code that runs inside a synchronous call (PGlite's filesystem). */
export function syncDirectorySync(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } catch (error) {
    if (!tolerated(error)) throw error;
  } finally {
    closeSync(fd);
  }
}

export function syncFileSync(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
