import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../test/support/embedded-stores.ts';
import { UnavailableError } from '../core/errors.ts';
import { KeyCache } from './key-cache.ts';

let stores: EmbeddedStores;
let counter = 0;
beforeAll(async () => {
  stores = await openEmbeddedStores();
});
afterAll(() => stores.close());

/** The real store, counting how often the cache goes to it. */
function countingStore() {
  const calls: string[] = [];
  return {
    calls,
    findProjectKey: (publicKey: string) => {
      calls.push(publicKey);
      return stores.metadata.findProjectKey(publicKey);
    },
  };
}

async function project(): Promise<{ publicKey: string; projectId: number }> {
  counter += 1;
  const org = await stores.metadata.ensureOrganization('default', 'Default');
  const publicKey = `key${String(counter).padStart(29, '0')}`;
  const { project } = await stores.metadata.createProject(
    { organizationId: org.id, slug: `p${counter}`, name: 'P' },
    { publicKey, label: 'Default' },
  );
  return { publicKey, projectId: project.id };
}

describe('KeyCache', () => {
  it('answers repeated lookups from memory', async () => {
    const { publicKey, projectId } = await project();
    const store = countingStore();
    const cache = new KeyCache(store);
    expect(await cache.lookup(publicKey)).toMatchObject({ projectId, active: true, rateLimitPerMinute: null });
    expect(await cache.lookup(publicKey)).toMatchObject({ projectId });
    expect(store.calls).toEqual([publicKey]);
  });

  it('refreshes an entry in use in the background, so a disabled key stops working within the TTL', async () => {
    const { publicKey } = await project();
    let now = 0;
    const store = countingStore();
    const cache = new KeyCache(store, { ttlMs: 1000, now: () => now });
    await cache.lookup(publicKey);
    await stores.metadata.setProjectKeyActive(publicKey, false);
    now = 600;
    // Past half the TTL: answered from memory, refreshed meanwhile.
    expect((await cache.lookup(publicKey))?.active).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect((await cache.lookup(publicKey))?.active).toBe(false);
    expect(store.calls).toHaveLength(2);
  });

  it('asks the store about a key idle past the TTL before answering, and answers from memory only when it cannot', async () => {
    const { publicKey } = await project();
    let now = 0;
    let storeDown = false;
    const store = {
      findProjectKey: (key: string) =>
        storeDown ? Promise.reject(new Error('connection refused')) : stores.metadata.findProjectKey(key),
    };
    const cache = new KeyCache(store, { ttlMs: 1000, now: () => now });
    expect((await cache.lookup(publicKey))?.active).toBe(true);
    // Disabled while idle: the first request after is refused (before, it was accepted).
    await stores.metadata.setProjectKeyActive(publicKey, false);
    now = 2000;
    expect((await cache.lookup(publicKey))?.active).toBe(false);
    await stores.metadata.setProjectKeyActive(publicKey, true);
    now = 4000;
    expect((await cache.lookup(publicKey))?.active).toBe(true);
    // The store down: the last answer stands, so known keys keep working, and for a TTL after a
    // failed lookup nothing waits on the store again.
    storeDown = true;
    now = 6000;
    let asked = 0;
    const failing = store.findProjectKey;
    store.findProjectKey = (key: string) => ((asked += 1), failing(key));
    expect((await cache.lookup(publicKey))?.active).toBe(true);
    now = 6500;
    expect((await cache.lookup(publicKey))?.active).toBe(true);
    expect(asked).toBe(2); // the one it waited for, and one in the background
  });

  it('waits for a store that does not answer no longer than its limit, then answers from memory', async () => {
    const { publicKey } = await project();
    let now = 0;
    let hung = false;
    const store = {
      findProjectKey: (key: string) => (hung ? new Promise<never>(() => {}) : stores.metadata.findProjectKey(key)),
    };
    const cache = new KeyCache(store, { ttlMs: 1000, staleWaitMs: 50, now: () => now });
    expect((await cache.lookup(publicKey))?.active).toBe(true);
    hung = true;
    now = 2000;
    // Before, this waited as long as the store did: for good here.
    expect((await cache.lookup(publicKey))?.active).toBe(true);
  });

  it('looks a new key up once, however many requests ask for it at the same time', async () => {
    const { publicKey } = await project();
    const store = countingStore();
    const cache = new KeyCache(store);
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.lookup(publicKey)));
    expect(new Set(answers.map((a) => a?.projectId)).size).toBe(1);
    expect(store.calls).toEqual([publicKey]);
  });

  it('keeps known keys apart from unknown ones: a flood of made-up keys pushes none out', async () => {
    const { publicKey } = await project();
    const store = countingStore();
    const cache = new KeyCache(store, { maxEntries: 2 });
    expect((await cache.lookup(publicKey))?.active).toBe(true);
    for (let i = 0; i < 5; i++) expect(await cache.lookup(`made-up-${i}`)).toBeUndefined();
    expect((await cache.lookup(publicKey))?.active).toBe(true);
    expect(store.calls.filter((key) => key === publicKey)).toHaveLength(1);
  });

  it('answers 503 for a key it does not know when the store does not answer in time', async () => {
    const cache = new KeyCache({ findProjectKey: () => new Promise<never>(() => {}) }, { firstLookupWaitMs: 50 });
    await expect(cache.lookup('k'.repeat(32))).rejects.toBeInstanceOf(UnavailableError);
  });

  it('remembers unknown keys briefly and bounds its size', async () => {
    const store = countingStore();
    let now = 0;
    const cache = new KeyCache(store, { unknownTtlMs: 100, maxEntries: 2, now: () => now });
    expect(await cache.lookup('x')).toBeUndefined();
    expect(await cache.lookup('x')).toBeUndefined();
    expect(store.calls).toEqual(['x']);
    now = 200;
    await cache.lookup('x');
    expect(store.calls).toEqual(['x', 'x']);
    await cache.lookup('y');
    await cache.lookup('z');
    now = 250;
    await cache.lookup('x');
    expect(store.calls).toEqual(['x', 'x', 'y', 'z', 'x']);
  });
});
