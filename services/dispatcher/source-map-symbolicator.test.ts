// The dispatcher's map loading over the real embedded stores and a directory blob store: a map
// missing at first is looked for again after its absence expires (injected clock), a kept map
// deleted from the index stops symbolicating from the next batch, and the cache keeps within its
// byte budget.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../test/support/embedded-stores.ts';
import { openFsBlobStore } from '../adapters/fs-blobs/fs-blob-store.ts';
import { UnavailableError } from '../core/errors.ts';
import type { NormalizedEvent } from '../core/event/event.ts';
import type { BlobStore } from '../core/ports/blob-store.ts';
import { createLogger } from '../runtime/logger.ts';
import { createMetrics } from '../runtime/metrics.ts';
import { deleteStoredMaps } from '../core/sourcemaps/stored-maps.ts';
import { PARSED_HEAP_PER_JSON_BYTE, SourceMapSymbolicator } from './source-map-symbolicator.ts';

let stores: EmbeddedStores;
let blobs: BlobStore;
let dir: string;
let projectId: number;

const ID = (n: number) => `0000000${n}-1111-4111-8111-111111111111`;
// One generated line; its first segment maps to line 3 of src/a.js.
const MAP = JSON.stringify({
  version: 3,
  sources: ['src/a.js'],
  sourcesContent: ['one\ntwo\nthree\n'],
  names: [],
  mappings: 'AAEA',
});

function event(debugIds: string[]): NormalizedEvent {
  return {
    event_id: 'a'.repeat(32),
    timestamp: 0,
    received: 0,
    type: 'error',
    platform: 'javascript',
    level: 'error',
    tags: {},
    contexts: {},
    exception: {
      values: debugIds.map((_, i) => ({
        type: 'Error',
        stacktrace: { frames: [{ abs_path: `https://x.test/${i}.js`, filename: `${i}.js`, lineno: 1, colno: 1 }] },
      })),
    },
    debug_meta: { images: debugIds.map((id, i) => ({ type: 'sourcemap', code_file: `https://x.test/${i}.js`, debug_id: id })) },
  };
}

/** Stores the map as an assembly does (a key of its own), and deletes the file it replaced; answers the key. */
async function upload(debugId: string, store: BlobStore = blobs): Promise<string> {
  const blobKey = `projects/${projectId}/maps/${debugId}/source_map.${Math.random().toString(16).slice(2)}.gz`;
  await store.put(blobKey, gzipSync(MAP));
  const replaced = await stores.metadata.saveSourceMapArtifacts([
    { projectId, debugId, type: 'source_map', url: '~/a.js.map', blobKey, sizeBytes: MAP.length, bundleChecksum: 'c'.repeat(40) },
  ]);
  if (replaced.length > 0) await store.deleteMany(replaced);
  return blobKey;
}

const filenameOf = (e: NormalizedEvent, i = 0) => e.exception!.values[i]!.stacktrace!.frames[0]!.filename;

beforeAll(async () => {
  stores = await openEmbeddedStores();
  dir = await mkdtemp(join(tmpdir(), 'errata-symbolicator-'));
  blobs = await openFsBlobStore(dir);
  const org = await stores.metadata.ensureOrganization('o', 'o');
  projectId = (
    await stores.metadata.createProject(
      { organizationId: org.id, slug: 'web', name: 'web' },
      { publicKey: 'e'.repeat(32), label: 'x' },
    )
  ).project.id;
});
afterAll(async () => {
  await stores.close();
  await rm(dir, { recursive: true, force: true });
});

describe('SourceMapSymbolicator', () => {
  it('looks again for a map it missed once the absence expires, and records its use', async () => {
    let now = Date.UTC(2030, 0, 1);
    const symbolicator = new SourceMapSymbolicator({
      metadata: stores.metadata,
      blobs,
      logger: createLogger('silent'),
      now: () => now,
    });
    const first = event([ID(1)]);
    await symbolicator.symbolicate(projectId, first);
    expect(filenameOf(first)).toBe('0.js');
    await upload(ID(1));
    const soon = event([ID(1)]);
    await symbolicator.symbolicate(projectId, soon);
    expect(filenameOf(soon)).toBe('0.js'); // still remembered as absent
    now += 11_000;
    const later = event([ID(1)]);
    await symbolicator.symbolicate(projectId, later);
    expect(filenameOf(later)).toBe('src/a.js');
    expect(later.exception!.values[0]!.stacktrace!.frames[0]).toMatchObject({ lineno: 3, context_line: 'three' });
    await symbolicator.flushUsage();
    const [stored] = await stores.metadata.listSourceMapArtifacts(projectId, { limit: 100 });
    expect(stored?.lastUsedAt?.getTime()).toBe(now);
    // When it was last marked used is kept for its hour, then let go (it grew by every map ever used).
    const touched = () => (symbolicator as unknown as { touched: Map<string, number> }).touched.size;
    expect(touched()).toBe(1);
    now += 3_600_000;
    await symbolicator.flushUsage();
    expect(touched()).toBe(0);
  });

  it('answers a blob store that fails with UnavailableError, so the batch is retried, and symbolicates once it answers', async () => {
    await upload(ID(9));
    let failing = true;
    const flaky: BlobStore = {
      ...blobs,
      get: (key) => (failing ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9000')) : blobs.get(key)),
      ping: () => (failing ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9000')) : blobs.ping()),
    };
    const symbolicator = new SourceMapSymbolicator({ metadata: stores.metadata, blobs: flaky, logger: createLogger('silent') });
    await expect(symbolicator.symbolicate(projectId, event([ID(9)]))).rejects.toBeInstanceOf(UnavailableError);
    failing = false;
    const retried = event([ID(9)]);
    await symbolicator.symbolicate(projectId, retried);
    expect(filenameOf(retried)).toBe('src/a.js');
  });

  it('takes a blob that fails three reads in a row while the store answers for unreadable, rather than retrying its batch for good', async () => {
    await upload(ID(7));
    let reads = 0;
    let storeAnswers = false;
    const denied: BlobStore = {
      ...blobs,
      get: (key) => {
        if (!key.includes(ID(7))) return blobs.get(key);
        reads++;
        return Promise.reject(new Error('AccessDenied: Access Denied'));
      },
      ping: () => (storeAnswers ? blobs.ping() : Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9000'))),
    };
    let now = 1_000_000;
    const symbolicator = new SourceMapSymbolicator({
      metadata: stores.metadata,
      blobs: denied,
      logger: createLogger('silent'),
      now: () => now,
    });
    // While the store does not answer either, it is an outage, however long: the batch waits.
    for (let i = 0; i < 5; i++) {
      await expect(symbolicator.symbolicate(projectId, event([ID(7)]))).rejects.toBeInstanceOf(UnavailableError);
    }
    storeAnswers = true;
    for (let i = 0; i < 2; i++) {
      await expect(symbolicator.symbolicate(projectId, event([ID(7)]))).rejects.toBeInstanceOf(UnavailableError);
    }
    const third = event([ID(7)]);
    await symbolicator.symbolicate(projectId, third);
    expect(filenameOf(third)).toBe('0.js');
    const readsSoFar = reads;
    // Left alone for ten minutes, then read again.
    now += 9 * 60_000;
    await symbolicator.symbolicate(projectId, event([ID(7)]));
    expect(reads).toBe(readsSoFar);
    now += 2 * 60_000;
    await expect(symbolicator.symbolicate(projectId, event([ID(7)]))).rejects.toBeInstanceOf(UnavailableError);
    expect(reads).toBe(readsSoFar + 1);
  });

  it('keeps the parsed maps within its budget, and does not parse a map larger than all of it', async () => {
    await upload(ID(2));
    await upload(ID(3));
    const perMap = MAP.length * PARSED_HEAP_PER_JSON_BYTE;
    const tight = new SourceMapSymbolicator({
      metadata: stores.metadata,
      blobs,
      logger: createLogger('silent'),
      maxCacheBytes: perMap,
    });
    const both = event([ID(2), ID(3)]);
    await tight.symbolicate(projectId, both);
    expect([filenameOf(both, 0), filenameOf(both, 1)]).toEqual(['src/a.js', 'src/a.js']);
    const metrics = createMetrics({ processMetrics: false });
    const tooLarge = async () => (await metrics.sourceMapLoads.get()).values.find((v) => v.labels.result === 'too_large')?.value;
    // The blob is never read: parsed, such a map could take the process's heap.
    let reads = 0;
    const counting: BlobStore = { ...blobs, get: (key) => (reads++, blobs.get(key)) };
    const tiny = new SourceMapSymbolicator({
      metadata: stores.metadata,
      blobs: counting,
      logger: createLogger('silent'),
      maxCacheBytes: perMap - 1,
      metrics,
    });
    const one = event([ID(2)]);
    await tiny.symbolicate(projectId, one);
    expect(filenameOf(one)).toBe('0.js');
    expect(await tooLarge()).toBe(1);
    expect(reads).toBe(0);
    // What each holds is private; their budgets are what the figures in docs/benchmarks.md explain.
    expect((tight as unknown as { cachedBytes: number }).cachedBytes).toBeLessThanOrEqual(perMap);
    expect((tiny as unknown as { cachedBytes: number }).cachedBytes).toBe(0);
  });

  it('reads and counts a map once when batches side by side miss it at once', async () => {
    await upload(ID(6));
    let reads = 0;
    const counting: BlobStore = { ...blobs, get: (key) => (reads++, blobs.get(key)) };
    const symbolicator = new SourceMapSymbolicator({
      metadata: stores.metadata,
      blobs: counting,
      logger: createLogger('silent'),
    });
    const events = [event([ID(6)]), event([ID(6)]), event([ID(6)])];
    await Promise.all(events.map((e) => symbolicator.symbolicate(projectId, e)));
    expect(events.map((e) => filenameOf(e))).toEqual(['src/a.js', 'src/a.js', 'src/a.js']);
    expect(reads).toBe(1);
    // Counted twice, the cache believed itself fuller than it was for the process's life.
    expect((symbolicator as unknown as { cachedBytes: number }).cachedBytes).toBe(MAP.length * PARSED_HEAP_PER_JSON_BYTE);
  });

  it('looks up at most 50 maps for one event, and forgets absences beyond its budget', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const absent = async () => (await metrics.sourceMapLoads.get()).values.find((v) => v.labels.result === 'absent')?.value;
    const unknown = (n: number) => `${String(n).padStart(8, '0')}-2222-4222-8222-222222222222`;
    const symbolicator = new SourceMapSymbolicator({
      metadata: stores.metadata,
      blobs,
      logger: createLogger('silent'),
      metrics,
      maxAbsences: 60,
    });
    await symbolicator.symbolicate(projectId, event(Array.from({ length: 500 }, (_, i) => unknown(i))));
    expect(await absent()).toBe(50);
    await symbolicator.symbolicate(projectId, event(Array.from({ length: 50 }, (_, i) => unknown(1000 + i))));
    expect(await absent()).toBe(100);
    // The first ones were evicted to make room, so they are looked up again; the latest are not.
    await symbolicator.symbolicate(projectId, event([unknown(0), unknown(1049)]));
    expect(await absent()).toBe(101);
  });

  it('keeps a map in use however many absences it remembers besides (they evicted it, to be parsed again)', async () => {
    await upload(ID(5));
    const metrics = createMetrics({ processMetrics: false });
    const kept = async () => (await metrics.sourceMapLoads.get()).values.find((v) => v.labels.result === 'kept')?.value;
    const unknown = (n: number) => `${String(n).padStart(8, '0')}-3333-4333-8333-333333333333`;
    const symbolicator = new SourceMapSymbolicator({
      metadata: stores.metadata,
      blobs,
      logger: createLogger('silent'),
      metrics,
      // Room for the one map and a little more.
      maxCacheBytes: MAP.length * PARSED_HEAP_PER_JSON_BYTE + 1024,
    });
    await symbolicator.symbolicate(projectId, event([ID(5)]));
    expect(await kept()).toBe(1);
    for (let batch = 0; batch < 4; batch++) {
      await symbolicator.symbolicate(projectId, event(Array.from({ length: 50 }, (_, i) => unknown(batch * 50 + i))));
    }
    const again = event([ID(5)]);
    await symbolicator.symbolicate(projectId, again);
    expect(filenameOf(again)).toBe('src/a.js');
    expect(await kept()).toBe(1);
  });

  it('stops using a kept map from the batch after it was deleted, and uses it again once uploaded again', async () => {
    await upload(ID(4));
    let now = Date.UTC(2030, 0, 1);
    const symbolicator = new SourceMapSymbolicator({
      metadata: stores.metadata,
      blobs,
      logger: createLogger('silent'),
      now: () => now,
    });
    const kept = event([ID(4)]);
    await symbolicator.symbolicate(projectId, kept);
    expect(filenameOf(kept)).toBe('src/a.js');
    await symbolicator.flushUsage();

    // Deleted as the dashboard, the API and the CLI delete it, by another process's hand: the cache must not outlive it.
    await deleteStoredMaps({ metadata: stores.metadata, blobs }, projectId, ID(4));
    const afterDelete = event([ID(4)]);
    await symbolicator.symbolicate(projectId, afterDelete);
    expect(filenameOf(afterDelete)).toBe('0.js');
    await symbolicator.flushUsage();

    // Its absence is remembered for ten seconds, as for a map never uploaded.
    await upload(ID(4));
    now += 11_000;
    const again = event([ID(4)]);
    await symbolicator.symbolicate(projectId, again);
    expect(filenameOf(again)).toBe('src/a.js');
  });

  it('reads the new file of a map uploaded again between reading its entry and its file', async () => {
    const first = await upload(ID(6));
    let uploadedAgain = false;
    // The real store, but another ingest process stores the map again just as this read starts:
    // a new key, and the old file deleted.
    const racing: BlobStore = Object.assign(Object.create(blobs) as BlobStore, {
      get: async (key: string) => {
        if (key === first && !uploadedAgain) {
          uploadedAgain = true;
          await upload(ID(6));
        }
        return blobs.get(key);
      },
    });
    const symbolicator = new SourceMapSymbolicator({ metadata: stores.metadata, blobs: racing, logger: createLogger('silent') });
    const racy = event([ID(6)]);
    await symbolicator.symbolicate(projectId, racy);
    expect(uploadedAgain).toBe(true);
    // Without a second look, the map was taken for absent, and its events left minified for ten seconds.
    expect(filenameOf(racy)).toBe('src/a.js');
  });
});
