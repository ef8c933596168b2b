// What disk-sync.ts syncs, seen through FileHandle.sync (recorded with the directory it syncs,
// which Linux's /proc names) and made to fail as a disk or a filesystem without directory sync would.
import { mkdtemp, open, rm } from 'node:fs/promises';
import { readlinkSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeDirectoryDurably, syncDirectory } from './disk-sync.ts';

type Sync = (this: { fd: number }) => Promise<void>;
let base: string;
let synced: string[];
let fileHandle: { sync: Sync };
let original: Sync;

beforeEach(async () => {
  base = realpathSync(await mkdtemp(join(tmpdir(), 'errata-disk-sync-')));
  const probe = await open(base, 'r');
  fileHandle = Object.getPrototypeOf(probe) as { sync: Sync };
  await probe.close();
  original = fileHandle.sync;
  synced = [];
  fileHandle.sync = function (this: { fd: number }) {
    synced.push(readlinkSync(`/proc/self/fd/${this.fd}`));
    return original.call(this);
  };
});
afterEach(async () => {
  fileHandle.sync = original;
  await rm(base, { recursive: true, force: true });
});

const failWith = (code: string) => {
  fileHandle.sync = async () => {
    throw Object.assign(new Error(`${code}: fsync`), { code });
  };
};

describe('makeDirectoryDurably', () => {
  it('syncs each new directory into its parent, up to the first that existed, and nothing when all exist', async () => {
    await makeDirectoryDurably(join(base, 'a', 'b', 'c'));
    expect(synced).toEqual([join(base, 'a', 'b'), join(base, 'a'), base]);
    synced = [];
    await makeDirectoryDurably(join(base, 'a', 'b', 'c'));
    expect(synced).toEqual([]);
    await makeDirectoryDurably(join(base, 'a', 'd'));
    expect(synced).toEqual([join(base, 'a')]);
  });
});

describe('syncDirectory', () => {
  it('tolerates a filesystem that cannot sync a directory, and not a failing disk', async () => {
    failWith('EINVAL');
    await expect(syncDirectory(base)).resolves.toBeUndefined();
    failWith('EIO');
    await expect(syncDirectory(base)).rejects.toThrow(/EIO/);
  });
});
