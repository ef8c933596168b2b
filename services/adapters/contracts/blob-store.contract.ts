// The BlobStore contract: every adapter (local directory, S3) must pass these tests against the
// real thing. Each test writes under a folder of its own, so suites can share one directory or
// bucket without cleaning up between tests.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserInputError } from '../../core/errors.ts';
import { BLOB_LIST_MAX_LIMIT, listAllBlobs, type BlobInfo, type BlobStore } from '../../core/ports/blob-store.ts';

export function describeBlobStoreContract(name: string, open: () => Promise<BlobStore>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let store: BlobStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    const folder = () => `t-${randomUUID().slice(0, 8)}`;
    const keysOf = (items: BlobInfo[]) => items.map((item) => item.key);
    async function putAll(keys: string[], concurrency = 32): Promise<void> {
      for (let i = 0; i < keys.length; i += concurrency) {
        await Promise.all(keys.slice(i, i + concurrency).map((key) => store.put(key, Buffer.from(key))));
      }
    }

    it('stores binary bodies byte for byte: every byte value, empty, and 5 MB', async () => {
      const dir = folder();
      const everyByte = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));
      const large = randomBytes(5 * 1024 * 1024);
      await store.put(`${dir}/bytes`, everyByte);
      await store.put(`${dir}/empty`, Buffer.alloc(0));
      await store.put(`${dir}/large.map`, large, { contentType: 'application/json' });
      expect((await store.get(`${dir}/bytes`))?.equals(everyByte)).toBe(true);
      expect((await store.get(`${dir}/empty`))?.length).toBe(0);
      expect((await store.get(`${dir}/large.map`))?.equals(large)).toBe(true);
      expect((await store.head(`${dir}/large.map`))?.size).toBe(large.length);
      expect((await store.head(`${dir}/empty`))?.size).toBe(0);
    });

    it('keeps deep keys with every allowed character', async () => {
      const key = `projects/12/maps/${folder()}/Source_Map-v1.2.js.map.gz`;
      await store.put(key, Buffer.from('deep'));
      expect((await store.get(key))?.toString()).toBe('deep');
    });

    it('replaces a blob on put', async () => {
      const key = `${folder()}/blob`;
      await store.put(key, Buffer.from('first version, longer'));
      await store.put(key, Buffer.from('second'));
      expect((await store.get(key))?.toString()).toBe('second');
      expect((await store.head(key))?.size).toBe(6);
    });

    it('leaves one whole body when two puts of one key race', async () => {
      const key = `${folder()}/raced`;
      const a = Buffer.alloc(1024 * 1024, 'a');
      const b = Buffer.alloc(1024 * 1024, 'b');
      await Promise.all([store.put(key, a), store.put(key, b)]);
      const stored = await store.get(key);
      expect(stored?.equals(a) || stored?.equals(b)).toBe(true);
    });

    it('reports size and modification time', async () => {
      const key = `${folder()}/timed`;
      // S3 keeps whole seconds, and its clock is not ours.
      const before = Date.now() - 2000;
      await store.put(key, Buffer.from('12345'));
      const after = Date.now() + 2000;
      const info = await store.head(key);
      expect(info?.key).toBe(key);
      expect(info?.size).toBe(5);
      expect(info?.lastModified).toBeInstanceOf(Date);
      expect(info!.lastModified.getTime()).toBeGreaterThanOrEqual(before);
      expect(info!.lastModified.getTime()).toBeLessThanOrEqual(after);
    });

    it('answers undefined for a missing key, and for a folder of keys', async () => {
      const dir = folder();
      await store.put(`${dir}/inside/blob`, Buffer.from('x'));
      for (const key of [`${dir}/missing`, `${dir}/inside/missing/deeper`, `${dir}/inside`, `${dir}/inside/blob/below`]) {
        expect(await store.get(key), key).toBeUndefined();
        expect(await store.head(key), key).toBeUndefined();
      }
    });

    it('deletes, and deleting a missing key is not an error', async () => {
      const dir = folder();
      await store.put(`${dir}/a/gone`, Buffer.from('x'));
      await store.put(`${dir}/b/kept`, Buffer.from('y'));
      await store.delete(`${dir}/a/gone`);
      await store.delete(`${dir}/a/gone`);
      await store.delete(`${dir}/never/existed`);
      expect(await store.get(`${dir}/a/gone`)).toBeUndefined();
      expect(await store.head(`${dir}/a/gone`)).toBeUndefined();
      expect((await store.get(`${dir}/b/kept`))?.toString()).toBe('y');
      expect(keysOf((await store.list(`${dir}/`)).items)).toEqual([`${dir}/b/kept`]);
      // A key can be written again where a delete emptied its folder.
      await store.put(`${dir}/a/gone`, Buffer.from('back'));
      expect((await store.get(`${dir}/a/gone`))?.toString()).toBe('back');
    });

    it('deletes many keys at once, missing and repeated ones included', async () => {
      const dir = folder();
      await putAll(['1', '2', '3', '4', '5'].map((n) => `${dir}/${n}`));
      await store.deleteMany([`${dir}/1`, `${dir}/3`, `${dir}/3`, `${dir}/missing`, `${dir}/5`]);
      await store.deleteMany([]);
      expect(keysOf((await store.list(`${dir}/`)).items)).toEqual([`${dir}/2`, `${dir}/4`]);
    });

    it('lists a prefix in key order with sizes, and nothing outside it', async () => {
      const dir = folder();
      const bodies: Record<string, string> = {
        [`${dir}/a/2`]: 'two',
        [`${dir}/a/1`]: '1',
        [`${dir}/ab/3`]: 'three',
        [`${dir}/a-c`]: 'a-c!',
        [`${dir}/b/4`]: '4444',
        [`${dir}x/5`]: 'other folder',
      };
      for (const [key, body] of Object.entries(bodies)) await store.put(key, Buffer.from(body));

      const folderA = await store.list(`${dir}/a/`);
      expect(keysOf(folderA.items)).toEqual([`${dir}/a/1`, `${dir}/a/2`]);
      expect(folderA.items.map((item) => item.size)).toEqual([1, 3]);
      expect(folderA.items.every((item) => item.lastModified instanceof Date)).toBe(true);
      expect(folderA.nextCursor).toBeUndefined();
      // A plain string prefix, in S3's byte order: '-' < '/' < 'b'.
      expect(keysOf((await store.list(`${dir}/a`)).items)).toEqual([`${dir}/a-c`, `${dir}/a/1`, `${dir}/a/2`, `${dir}/ab/3`]);
      expect(keysOf((await store.list(`${dir}/`)).items)).toEqual([
        `${dir}/a-c`,
        `${dir}/a/1`,
        `${dir}/a/2`,
        `${dir}/ab/3`,
        `${dir}/b/4`,
      ]);
      expect(keysOf((await store.list(`${dir}`)).items)).toContain(`${dir}x/5`);
      expect((await store.list(`${dir}/zzz/`)).items).toEqual([]);
      expect((await store.list(`${folder()}/`)).items).toEqual([]);
    });

    it('pages through a listing with the cursor, each key once', async () => {
      const dir = folder();
      const keys = ['e', 'a/x', 'c', 'a/y/z', 'b', 'd', 'a-'].map((k) => `${dir}/${k}`);
      await putAll(keys);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.list(`${dir}/`, cursor === undefined ? { limit: 2 } : { limit: 2, cursor });
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...keysOf(page.items));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor !== undefined && pages < 10);
      expect(seen).toEqual([...keys].sort());
      expect(pages).toBe(4);
    });

    it('lists and deletes more than one full page of keys', async () => {
      const dir = folder();
      const keys = Array.from({ length: BLOB_LIST_MAX_LIMIT + 5 }, (_, i) => `${dir}/chunks/${String(i).padStart(5, '0')}`);
      await putAll(keys);
      const first = await store.list(`${dir}/chunks/`);
      expect(first.items).toHaveLength(BLOB_LIST_MAX_LIMIT);
      expect(first.nextCursor).toBeDefined();
      const all: string[] = [];
      for await (const item of listAllBlobs(store, `${dir}/`)) all.push(item.key);
      expect(all).toEqual(keys);
      await store.deleteMany(keys);
      expect((await store.list(`${dir}/`)).items).toEqual([]);
    });

    it('refuses malformed keys, prefixes, limits and cursors with a UserInputError', async () => {
      const bad = ['', '../x', '/abs', 'a//b', 'a/', 'a/./b', 'a/../b', '..', '.', 'a\\b', 'a b', 'é', 'a\0b', 'x'.repeat(513)];
      for (const key of bad) {
        await expect(store.put(key, Buffer.from('x')), key).rejects.toBeInstanceOf(UserInputError);
        await expect(store.get(key), key).rejects.toBeInstanceOf(UserInputError);
        await expect(store.head(key), key).rejects.toBeInstanceOf(UserInputError);
        await expect(store.delete(key), key).rejects.toBeInstanceOf(UserInputError);
        await expect(store.deleteMany(['fine', key]), key).rejects.toBeInstanceOf(UserInputError);
      }
      for (const prefix of ['/abs', '../', 'a//', 'a//b', '/']) {
        await expect(store.list(prefix), prefix).rejects.toBeInstanceOf(UserInputError);
      }
      for (const limit of [0, -1, 1.5, BLOB_LIST_MAX_LIMIT + 1]) {
        await expect(store.list('', { limit }), String(limit)).rejects.toBeInstanceOf(UserInputError);
      }
      await expect(store.list('', { cursor: 'not a cursor' })).rejects.toBeInstanceOf(UserInputError);
      // A valid cursor of another prefix.
      const dir = folder();
      await putAll([`${dir}/a`, `${dir}/b`]);
      const { nextCursor } = await store.list(`${dir}/`, { limit: 1 });
      await expect(store.list('other/', { cursor: nextCursor! })).rejects.toBeInstanceOf(UserInputError);
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
