// Node's FileHandle sync methods, replaced for a test: the local queue and the blob store sync
// through them (disk-sync.ts), so a test can see what they sync or make a sync fail as a disk would.
import { readlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
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
