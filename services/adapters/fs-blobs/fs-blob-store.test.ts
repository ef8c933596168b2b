import { realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConflictError, UserInputError } from '../../core/errors.ts';
import { recordingSyncs, replaceFileHandleSync } from '../../../test/support/replaced-syncs.ts';
import { describeBlobStoreContract } from '../contracts/blob-store.contract.ts';
import { blobPath, FsBlobStore, openFsBlobStore } from './fs-blob-store.ts';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'errata-blobs-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Every file under a folder, as relative paths. */
async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(root.length + 1));
}

describeBlobStoreContract('local directory', async () => openFsBlobStore(join(await tempDir(), 'blobs')));

describe('FsBlobStore on disk', () => {
  it('stores a key at its relative path and leaves no temp file behind', async () => {
    const root = await tempDir();
    const store = await openFsBlobStore(root);
    await Promise.all([
      store.put('chunks/0a1b', Buffer.from('chunk')),
      store.put('projects/12/maps/abc/source_map.gz', Buffer.from('map')),
      store.put('projects/12/maps/abc/source_map.gz', Buffer.from('map, again')),
    ]);
    expect((await filesUnder(root)).sort()).toEqual([
      join('chunks', '0a1b'),
      join('projects', '12', 'maps', 'abc', 'source_map.gz'),
    ]);
  });

  it('removes folders a delete leaves empty, and no others', async () => {
    const root = await tempDir();
    const store = await openFsBlobStore(root);
    await store.put('projects/12/maps/abc/one', Buffer.from('1'));
    await store.put('projects/12/other', Buffer.from('2'));
    await store.delete('projects/12/maps/abc/one');
    expect(await readdir(join(root, 'projects', '12'))).toEqual(['other']);
    await store.deleteMany(['projects/12/other']);
    expect(await readdir(root)).toEqual([]);
  });

  it('refuses a key that would turn a blob into a folder, or a folder into a blob', async () => {
    const store = await openFsBlobStore(await tempDir());
    await store.put('a/b', Buffer.from('blob'));
    await expect(store.put('a/b/c', Buffer.from('x'))).rejects.toBeInstanceOf(ConflictError);
    await expect(store.put('a', Buffer.from('x'))).rejects.toBeInstanceOf(ConflictError);
    expect((await store.get('a/b'))?.toString()).toBe('blob');
    expect((await store.list('')).items.map((i) => i.key)).toEqual(['a/b']);
  });

  it('removes temp files a crash left behind when opened, but not recent ones or blobs', async () => {
    const root = await tempDir();
    await mkdir(join(root, 'chunks'), { recursive: true });
    const stale = join(root, 'chunks', '~0123456789abcdef.tmp');
    const recent = join(root, 'chunks', '~fedcba9876543210.tmp');
    await writeFile(stale, 'half a chunk');
    await writeFile(recent, 'a put in progress');
    await writeFile(join(root, 'chunks', 'kept'), 'blob');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60_000);
    await utimes(stale, twoHoursAgo, twoHoursAgo);
    const store = await openFsBlobStore(root);
    expect((await readdir(join(root, 'chunks'))).sort()).toEqual(['kept', '~fedcba9876543210.tmp']);
    // Temp files are never blobs.
    expect((await store.list('chunks/')).items.map((i) => i.key)).toEqual(['chunks/kept']);
  });

  it('does not list files whose names are not keys', async () => {
    const root = await tempDir();
    const store = await openFsBlobStore(root);
    await writeFile(join(root, 'with space'), 'x');
    await writeFile(join(root, 'fine'), 'x');
    expect((await store.list('')).items.map((i) => i.key)).toEqual(['fine']);
  });

  it('maps keys to paths that never leave the root, even without key validation', () => {
    const root = resolve('/srv/errata/blobs');
    expect(blobPath(root, 'projects/1/maps/x/source_map.gz')).toBe(join(root, 'projects', '1', 'maps', 'x', 'source_map.gz'));
    expect(blobPath(root, '..x/y')).toBe(join(root, '..x', 'y'));
    const escapes = [
      '',
      '.',
      '..',
      '../x',
      '../blobs-other/x',
      'a/../../x',
      'a/../b',
      '/etc/passwd',
      '//etc/passwd',
      'a//b',
      'a/',
      './a',
      'a/.',
      'a\0b',
      '../../../../../../../../etc/passwd',
    ];
    for (const key of escapes) expect(() => blobPath(root, key), JSON.stringify(key)).toThrow(UserInputError);
  });

  it("syncs a put's folder and every folder above it up to the root, at every put, and the root into its parent", async () => {
    const parent = realpathSync(await tempDir());
    const synced: string[] = [];
    const restore = await replaceFileHandleSync('sync', recordingSyncs(synced));
    try {
      const root = join(parent, 'blobs');
      const store = await openFsBlobStore(root);
      expect(synced).toEqual([parent]);
      await store.put('projects/1/maps/a.gz', Buffer.from('a'));
      // The folders already exist for the second put: made by another store, or by a put whose sync failed.
      synced.length = 0;
      await store.put('projects/1/maps/b.gz', Buffer.from('b'));
      const folders = [join(root, 'projects', '1', 'maps'), join(root, 'projects', '1'), join(root, 'projects'), root];
      expect(synced.filter((path) => !path.endsWith('.tmp') && !path.endsWith('.gz'))).toEqual(folders);
    } finally {
      restore();
    }
  });

  it('fails ping when the directory is gone', async () => {
    const root = join(await tempDir(), 'blobs');
    const store = await openFsBlobStore(root);
    await store.ping();
    await rm(root, { recursive: true });
    await expect(store.ping()).rejects.toThrow();
    // A plain constructor does no I/O; open creates the directory.
    expect(new FsBlobStore(root).root).toBe(root);
    await openFsBlobStore(root);
    expect((await stat(root)).isDirectory()).toBe(true);
  });
});
