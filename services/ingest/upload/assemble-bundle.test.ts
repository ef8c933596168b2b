import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { makeBundle, pair } from '../../../test/support/zip-writer.ts';
import { ID, sourceMap } from '../../../test/support/bundle-fixtures.ts';
import { cyclingBundle } from '../../../test/support/cycling-bundle.ts';
import { deferred } from '../../../test/support/deferred.ts';
import { openFsBlobStore, type FsBlobStore } from '../../adapters/fs-blobs/fs-blob-store.ts';
import { listAllBlobs, type BlobStore } from '../../core/ports/blob-store.ts';
import { MAX_BUNDLE_BYTES } from '../../core/sourcemaps/upload-protocol.ts';
import { createLogger } from '../../runtime/logger.ts';
import { assembleBundle } from './assemble-bundle.ts';
import { chunkKey, gzipChunkKey } from './blob-keys.ts';

const sha1 = (data: Uint8Array) => createHash('sha1').update(data).digest('hex');

let stores: EmbeddedStores;
let blobs: FsBlobStore;
let dir: string;
let projectId: number;
const bundle = Buffer.from(makeBundle(pair()));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'errata-assemble-'));
  blobs = await openFsBlobStore(dir);
  stores = await openEmbeddedStores();
  const organization = await stores.metadata.ensureOrganization('default', 'Default');
  projectId = (
    await stores.metadata.createProject(
      { organizationId: organization.id, slug: 'web', name: 'web' },
      { publicKey: 'a'.repeat(32), label: 'Default' },
    )
  ).project.id;
});
afterAll(async () => {
  await stores.close();
  await rm(dir, { recursive: true, force: true });
});

/** Splits `data` into chunks of `size` bytes, stores them as the upload would, and returns their SHA-1s. */
async function storeChunks(data: Buffer, size: number, form: 'raw' | 'gzip' = 'raw'): Promise<string[]> {
  const names: string[] = [];
  for (let at = 0; at < data.length; at += size) {
    const chunk = data.subarray(at, at + size);
    const name = sha1(chunk);
    if (form === 'raw') await blobs.put(chunkKey(projectId, name), chunk);
    else await blobs.put(gzipChunkKey(projectId, name), gzipSync(chunk));
    names.push(name);
  }
  return names;
}

/** Runs an assembly as the upload route does (claimed first) and returns its final state. */
async function assemble(checksum: string, chunks: string[], options: { blobs?: BlobStore; maxBytes?: number } = {}) {
  await stores.metadata.forgetAssemblies(projectId, [checksum]);
  expect(await stores.metadata.claimAssembly(projectId, checksum, new Date(0), new Date(0))).toBe(true);
  const ports = { metadata: stores.metadata, blobs: options.blobs ?? blobs, logger: createLogger('silent') };
  await assembleBundle(ports, projectId, checksum, chunks, { maxBytes: options.maxBytes ?? MAX_BUNDLE_BYTES });
  return stores.metadata.getAssembly(projectId, checksum);
}

/** A bundle of the usual pair (or of `first`) and a second pair of another debug id, under paths of `name`. */
function twoPairs(id: string, name: string, first = ID): Buffer {
  const second = Object.entries(pair(id)).map(([path, file]) => [path.replace('app', name), file]);
  return Buffer.from(makeBundle({ ...pair(first), ...Object.fromEntries(second) }));
}

/** The keys of the files stored under a Debug ID, whatever assembly stored them. */
async function filesUnder(debugId: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of listAllBlobs(blobs, `projects/${projectId}/maps/${debugId}/`)) keys.push(blob.key);
  return keys;
}

/** The real blob store, with some of its methods replaced. */
function blobsWith(replaced: Partial<BlobStore>): BlobStore {
  return {
    get: (key) => blobs.get(key),
    put: (key, body) => blobs.put(key, body),
    head: (key) => blobs.head(key),
    delete: (key) => blobs.delete(key),
    deleteMany: (keys) => blobs.deleteMany(keys),
    list: (...args) => blobs.list(...args),
    ping: () => blobs.ping(),
    close: () => blobs.close(),
    ...replaced,
  };
}

/** The real blob store, counting the reads of each key: what an assembly had to inflate. */
class CountingBlobs implements BlobStore {
  readonly reads = new Map<string, number>();
  constructor(private readonly inner: BlobStore) {}
  get: BlobStore['get'] = (key) => {
    this.reads.set(key, (this.reads.get(key) ?? 0) + 1);
    return this.inner.get(key);
  };
  put: BlobStore['put'] = (...args) => this.inner.put(...args);
  head: BlobStore['head'] = (...args) => this.inner.head(...args);
  delete: BlobStore['delete'] = (...args) => this.inner.delete(...args);
  deleteMany: BlobStore['deleteMany'] = (...args) => this.inner.deleteMany(...args);
  list: BlobStore['list'] = (...args) => this.inner.list(...args);
  ping: BlobStore['ping'] = () => this.inner.ping();
  close: BlobStore['close'] = () => this.inner.close();
}

describe('assembling an uploaded bundle', () => {
  it('refuses a bundle none of whose files carries a debug id, saying to inject them first', async () => {
    const uninjected = Buffer.from(
      makeBundle({
        'files/_/_/plain.js': { type: 'minified_source', url: '~/plain.js', content: 'function a(){}' },
        'files/_/_/plain.js.map': { type: 'source_map', url: '~/plain.js.map', content: sourceMap() },
      }),
    );
    const state = await assemble(sha1(uninjected), await storeChunks(uninjected, 1024));
    expect(state).toMatchObject({ state: 'error' });
    expect(state!.detail).toMatch(/none of the bundle's 2 files can be used: .*carry a debug id.*sentry-cli sourcemaps inject/);
  });

  it('reads the bundle across many small chunks without joining them, and indexes its files', async () => {
    // 97-byte chunks: every ZIP structure the reader looks at straddles chunk boundaries.
    const chunks = await storeChunks(bundle, 97);
    expect(chunks.length).toBeGreaterThan(5);
    expect(await assemble(sha1(bundle), chunks)).toMatchObject({ state: 'ok', detail: null });
    const stored = await stores.metadata.listSourceMapArtifacts(projectId, { limit: 100 });
    expect(stored.map((a) => [a.debugId, a.type]).sort()).toEqual([
      [ID, 'minified_source'],
      [ID, 'source_map'],
    ]);
  });

  it('indexes the first of two files with one debug id and type (a directory uploaded twice over), and skips the other', async () => {
    const twice = {
      ...pair(),
      ...Object.fromEntries(Object.entries(pair()).map(([path, file]) => [`files/_/_/assets/${path.slice(10)}`, file])),
    };
    expect(Object.keys(twice)).toHaveLength(4);
    const doubled = Buffer.from(makeBundle(twice));
    expect(await assemble(sha1(doubled), await storeChunks(doubled, 4096))).toMatchObject({ state: 'ok', detail: null });
    const stored = await stores.metadata.listSourceMapArtifacts(projectId, { limit: 100, debugId: ID });
    expect(stored.map((a) => [a.type, a.url]).sort()).toEqual([
      ['minified_source', '~/app.js'],
      ['source_map', '~/app.js.map'],
    ]);
  });

  it("stores each file as it is read, never holding the bundle's files all at once", async () => {
    const second = '254733b7-3a40-544e-9fd4-e3454f09847d';
    const two = twoPairs(second, 'vendor');
    const order: string[] = [];
    const watching = blobsWith({
      get: (key) => (order.push(`read ${key.split('/')[0]}`), blobs.get(key)),
      put: (key, body) => (order.push(`store ${key.split('/')[0]}`), blobs.put(key, body)),
    });
    expect(await assemble(sha1(two), await storeChunks(two, 97), { blobs: watching })).toMatchObject({ state: 'ok' });
    // The first file was stored before the last chunks were read: before, every file waited in
    // memory for the last, and a bundle of ~1 MB (files of zeros) held 1 GiB.
    expect(order.indexOf(order.find((step) => step.startsWith('store'))!)).toBeLessThan(order.lastIndexOf('read chunks'));
    expect(order.filter((step) => step.startsWith('store'))).toHaveLength(4);
  });

  it('removes the files a failed assembly stored that nothing indexes, and keeps those already indexed', async () => {
    const fresh = '354733b7-3a40-544e-9fd4-e3454f09847d';
    const mixed = twoPairs(fresh, 'fresh');
    // The last file's store fails, as in an outage: three were stored before it.
    let puts = 0;
    const failing = blobsWith({
      put: (key, body) => (++puts === 4 ? Promise.reject(new Error('the blob store is down')) : blobs.put(key, body)),
    });
    expect((await assemble(sha1(mixed), await storeChunks(mixed, 4096), { blobs: failing }))?.state).toBe('error');
    expect(puts).toBe(4);
    // Before, the fresh id's files stayed with no index entry, reached by no retention or delete.
    expect(await filesUnder(fresh)).toEqual([]);
    // The files of ID, indexed by an earlier test, stay where their entries point.
    const entries = await stores.metadata.listSourceMapArtifacts(projectId, { limit: 10, debugId: ID });
    expect(entries).toHaveLength(2);
    for (const entry of entries) expect(await blobs.head(entry.blobKey)).toBeDefined();
    expect(await filesUnder(ID)).toHaveLength(2);
  });

  it('leaves the files another assembly of the same Debug ID stored meanwhile when it fails', async () => {
    // A Debug ID no earlier test indexed, in B alone and in A beside another.
    const shared = '654733b7-3a40-544e-9fd4-e3454f09847d';
    const other = '454733b7-3a40-544e-9fd4-e3454f09847d';
    const single = Buffer.from(makeBundle(pair(shared)));
    const mixed = twoPairs(other, 'other', shared);
    // B stores both files of the shared Debug ID, then waits before indexing them while A fails.
    const [bStored, bMayGoOn] = [deferred(), deferred()];
    let bPuts = 0;
    const pausing = blobsWith({
      put: async (key, body) => {
        await blobs.put(key, body);
        if (++bPuts === 2) {
          bStored.resolve();
          await bMayGoOn.promise;
        }
      },
    });
    const b = assemble(sha1(single), await storeChunks(single, 4096), { blobs: pausing });
    await bStored.promise;
    // A stores the shared Debug ID's two files and other's first, and fails on the fourth.
    let aPuts = 0;
    const failing = blobsWith({
      put: (key, body) => (++aPuts === 4 ? Promise.reject(new Error('the blob store is down')) : blobs.put(key, body)),
    });
    expect((await assemble(sha1(mixed), await storeChunks(mixed, 4096), { blobs: failing }))?.state).toBe('error');
    bMayGoOn.resolve();
    expect(await b).toMatchObject({ state: 'ok' });
    // Before, both wrote one key per Debug ID and type, and A removed the files B was about to index.
    const entries = await stores.metadata.listSourceMapArtifacts(projectId, { limit: 10, debugId: shared });
    expect(entries).toHaveLength(2);
    for (const entry of entries) expect(await blobs.head(entry.blobKey)).toBeDefined();
    expect(await filesUnder(shared)).toHaveLength(2);
    expect(await filesUnder(other)).toEqual([]);
  });

  it('stores a Debug ID uploaded again in another bundle under new keys, and removes the files it replaced', async () => {
    const before = await stores.metadata.listSourceMapArtifacts(projectId, { limit: 10, debugId: ID });
    expect(before).toHaveLength(2);
    const another = twoPairs('554733b7-3a40-544e-9fd4-e3454f09847d', 'another');
    expect(await assemble(sha1(another), await storeChunks(another, 4096))).toMatchObject({ state: 'ok' });
    const after = await stores.metadata.listSourceMapArtifacts(projectId, { limit: 10, debugId: ID });
    expect(after.map((entry) => entry.blobKey).sort()).not.toEqual(before.map((entry) => entry.blobKey).sort());
    for (const entry of before) expect(await blobs.head(entry.blobKey)).toBeUndefined();
    for (const entry of after) expect(await blobs.head(entry.blobKey)).toBeDefined();
    expect(await filesUnder(ID)).toHaveLength(2);
  });

  it('reads chunks stored gzip-compressed, as a gzip upload leaves them', async () => {
    const chunks = await storeChunks(bundle, 200, 'gzip');
    expect(await assemble(sha1(bundle), chunks)).toMatchObject({ state: 'ok' });
  });

  it('refuses a chunk whose stored bytes are not those its SHA-1 names, whatever the bundle checksum says', async () => {
    // The whole bundle stored under the name of other bytes: the checksum matches the bytes, the name does not.
    const name = sha1(Buffer.from('other bytes'));
    await blobs.put(chunkKey(projectId, name), bundle);
    const result = await assemble(sha1(bundle), [name]);
    expect(result).toMatchObject({ state: 'error' });
    expect(result?.detail).toContain(`chunk ${name} does not match its SHA-1: upload the bundle again`);
  });

  it('refuses chunks that do not add up to the checksum, naming both', async () => {
    const chunks = await storeChunks(bundle, 300);
    const invented = 'f'.repeat(40);
    const result = await assemble(invented, chunks);
    expect(result?.state).toBe('error');
    expect(result?.detail).toBe(`the chunks add up to SHA-1 ${sha1(bundle)}, not the bundle's ${invented}`);
  });

  it('inflates and checks a chunk listed many times once, and hashes the bundle as listed', async () => {
    // A gzip bomb of a chunk (1 MiB of zeros), listed 16 times under an invented checksum.
    const zeros = Buffer.alloc(1024 * 1024);
    const [name] = await storeChunks(zeros, zeros.length, 'gzip');
    const counted = new CountingBlobs(blobs);
    const invented = 'f'.repeat(40);
    const result = await assemble(invented, Array(16).fill(name), { blobs: counted });
    expect(result?.detail).toBe(
      `the chunks add up to SHA-1 ${sha1(Buffer.alloc(16 * zeros.length))}, not the bundle's ${invented}`,
    );
    expect(counted.reads.get(gzipChunkKey(projectId, name!))).toBe(1);
  });

  it('reads each chunk a few times at most, whatever order the manifest and central directory list the files in', async () => {
    // 120 files in three chunks of 64 KiB (then one for the manifest and directory), listed cycling
    // through the three: read in that order, every file was a chunk missing from the reader's
    // cache of two, inflated again (a gzip chunk of zeros is 8 KB for 8 MiB).
    const { bundle: data, ids } = cyclingBundle({ chunkSize: 64 * 1024, regions: 3, filesPerRegion: 40 });
    const chunks = await storeChunks(data, 64 * 1024, 'gzip');
    expect(chunks).toHaveLength(4);
    const counted = new CountingBlobs(blobs);

    expect(await assemble(sha1(data), chunks, { blobs: counted })).toMatchObject({ state: 'ok', detail: null });

    const stored = new Set((await stores.metadata.listSourceMapArtifacts(projectId, { limit: 10_000 })).map((a) => a.debugId));
    expect(ids.filter((id) => !stored.has(id))).toEqual([]);
    // Once to check its SHA-1, once for the files, and a few for the end records, directory and manifest.
    const reads = [...counted.reads.values()].reduce((sum, count) => sum + count, 0);
    expect(reads).toBeLessThanOrEqual(3 * chunks.length);
  });

  it('refuses chunks that add up to more than the largest bundle accepted, before hashing the bundle', async () => {
    const [name] = await storeChunks(Buffer.alloc(1000, 1), 1000);
    const result = await assemble('f'.repeat(40), Array(3).fill(name), { maxBytes: 2500 });
    expect(result).toMatchObject({
      state: 'error',
      detail: 'the chunks add up to more than 2500 bytes, the largest bundle this server accepts',
    });
  });

  it('says which chunk disappeared', async () => {
    const missing = 'e'.repeat(40);
    const result = await assemble(sha1(bundle), [missing]);
    expect(result?.detail).toBe(`chunk ${missing} disappeared before assembly: upload again`);
  });
});
