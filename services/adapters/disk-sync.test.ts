// What disk-sync.ts syncs, seen through FileHandle.sync (recorded with the directory it syncs)
// and made to fail as a disk or a filesystem without directory sync would.
import { realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failingWith, recordingSyncs, replaceFileHandleSync } from '../../test/support/replaced-syncs.ts';
import { makeDirectoryDurably, syncDirectoriesUpTo, syncDirectory } from './disk-sync.ts';

let base: string;
let restore: (() => void) | undefined;
beforeEach(async () => {
  base = realpathSync(await mkdtemp(join(tmpdir(), 'errata-disk-sync-')));
});
afterEach(async () => {
  restore?.();
  restore = undefined;
  await rm(base, { recursive: true, force: true });
});

describe('makeDirectoryDurably', () => {
  it('syncs each new directory into its parent, up to the first that existed, and nothing when all exist', async () => {
    const synced: string[] = [];
    restore = await replaceFileHandleSync('sync', recordingSyncs(synced));
    await makeDirectoryDurably(join(base, 'a', 'b', 'c'));
    expect(synced).toEqual([join(base, 'a', 'b'), join(base, 'a'), base]);
    synced.length = 0;
    await makeDirectoryDurably(join(base, 'a', 'b', 'c'));
    expect(synced).toEqual([]);
    await makeDirectoryDurably(join(base, 'a', 'd'));
    expect(synced).toEqual([join(base, 'a')]);
  });
});

describe('syncDirectoriesUpTo', () => {
  it('syncs the directory and each one above it up to and including the last', async () => {
    await makeDirectoryDurably(join(base, 'a', 'b', 'c'));
    const synced: string[] = [];
    restore = await replaceFileHandleSync('sync', recordingSyncs(synced));
    await syncDirectoriesUpTo(join(base, 'a', 'b', 'c'), base);
    expect(synced).toEqual([join(base, 'a', 'b', 'c'), join(base, 'a', 'b'), join(base, 'a'), base]);
    synced.length = 0;
    await syncDirectoriesUpTo(join(base, 'a'), join(base, 'a'));
    expect(synced).toEqual([join(base, 'a')]);
  });
});

describe('syncDirectory', () => {
  it('tolerates a filesystem that cannot sync a directory, and not a failing disk', async () => {
    restore = await replaceFileHandleSync('sync', failingWith('EINVAL'));
    await expect(syncDirectory(base)).resolves.toBeUndefined();
    restore();
    restore = await replaceFileHandleSync('sync', failingWith('EIO'));
    await expect(syncDirectory(base)).rejects.toThrow(/EIO/);
  });
});
