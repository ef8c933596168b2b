// Node's sync calls, replaced for a test, so it can see what is synced or make a sync (or a
// write) fail as a disk would: FileHandle's methods, which the local queue and the blob store
// sync through (disk-sync.ts), and node:fs's blocking functions, which PGlite's filesystem and
// the payload segments sync and write through.
import fs, { readlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';

type Sync = (this: { fd: number }) => Promise<void>;

/** Replaces FileHandle's `method` for every handle until the returned function restores it. */
export async function replaceFileHandleSync(
  method: 'sync' | 'datasync',
  replacement: (original: Sync) => Sync,
): Promise<() => void> {
  const probe = await open(tmpdir(), 'r');
  const prototype = Object.getPrototypeOf(probe) as Record<typeof method, Sync>;
  await probe.close();
  const original = prototype[method];
  prototype[method] = replacement(original);
  return () => {
    prototype[method] = original;
  };
}

/** Records the path each FileHandle.sync syncs (Linux's /proc names a descriptor's file) into `synced`. */
export function recordingSyncs(synced: string[]): (original: Sync) => Sync {
  return (original) =>
    function (this: { fd: number }) {
      synced.push(readlinkSync(`/proc/self/fd/${this.fd}`));
      return original.call(this);
    };
}

/** A sync that fails with `code`, as a failing disk (EIO) or a filesystem without directory sync (EINVAL) answers. */
export function failingWith(code: string): () => Sync {
  return () => async () => {
    throw Object.assign(new Error(`${code}: i/o error, fsync`), { code });
  };
}

/**
 * Runs `hook` with the file's path before each of node:fs's `fdatasyncSync` and `fsyncSync`
 * (files and directories), until the returned function restores them; a hook that throws fails
 * the sync, as a failing disk would.
 */
export function replaceBlockingSyncs(hook: (path: string) => void): () => void {
  const { fdatasyncSync, fsyncSync } = fs;
  const before =
    (sync: (fd: number) => void) =>
    (fd: number): void => {
      hook(readlinkSync(`/proc/self/fd/${fd}`));
      sync(fd);
    };
  return replaceFsFunctions({ fdatasyncSync: before(fdatasyncSync), fsyncSync: before(fsyncSync) });
}

/**
 * Makes node:fs's `writeSync` fail as a full disk does (ENOSPC), until the returned function
 * restores it: every write, or only those to files under `under` (a database in the same
 * process writes through it too).
 */
export function failBlockingWrites(under?: string): () => void {
  const { writeSync } = fs;
  return replaceFsFunctions({
    writeSync: ((fd: number, ...rest: unknown[]) => {
      if (under !== undefined && !readlinkSync(`/proc/self/fd/${fd}`).startsWith(under))
        return (writeSync as (...args: unknown[]) => number)(fd, ...rest);
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }) as typeof fs.writeSync,
  });
}

/** Replaces node:fs's functions, for modules that imported them by name too, until the returned function restores them. */
function replaceFsFunctions(replacements: Partial<typeof fs>): () => void {
  const originals = Object.fromEntries(Object.keys(replacements).map((name) => [name, fs[name as keyof typeof fs]]));
  Object.assign(fs, replacements);
  syncBuiltinESMExports();
  return () => {
    Object.assign(fs, originals);
    syncBuiltinESMExports();
  };
}
