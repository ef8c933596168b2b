// Syncing to disk what must survive a machine's crash: a file's data needs its own fsync, and a
// file created, renamed or removed needs its directory's too. Shared by the local queue, the
// filesystem blob store and the embedded database.
import { closeSync, fdatasyncSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * What a filesystem that cannot fsync a directory answers (Windows; some network and FUSE
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

/** The blocking form, for code that runs inside a synchronous call (PGlite's filesystem). */
export function syncDirectorySync(dir: string): void {
  syncSync(dir, true);
}

export function syncFileSync(path: string): void {
  syncSync(path, false);
}

function syncSync(path: string, directory: boolean): void {
  const fd = openSync(path, 'r');
  try {
    fdatasyncSync(fd);
  } catch (error) {
    if (!directory || !tolerated(error)) throw error;
  } finally {
    closeSync(fd);
  }
}
