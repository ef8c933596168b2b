import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFsBlobStore } from '../../adapters/fs-blobs/fs-blob-store.ts';
import { chunkKey } from './blob-keys.ts';
import { collectStaleChunks } from './chunk-gc.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('chunk garbage collection', () => {
  it('deletes chunks older than the limit on the injected clock and keeps newer ones and stored maps', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'errata-gc-'));
    dirs.push(dir);
    const blobs = await openFsBlobStore(dir);
    await blobs.put(chunkKey(1, 'a'.repeat(40)), Buffer.from('old'));
    await blobs.put('projects/1/maps/x/source_map.gz', Buffer.from('map'));
    const written = Date.now();
    expect(await collectStaleChunks(blobs, written + 30 * 60_000)).toBe(0);
    expect(await collectStaleChunks(blobs, written + 61 * 60_000)).toBe(1);
    expect(await blobs.head(chunkKey(1, 'a'.repeat(40)))).toBeUndefined();
    expect(await blobs.head('projects/1/maps/x/source_map.gz')).toBeDefined();
    expect(await collectStaleChunks(blobs, written + 120 * 60_000)).toBe(0);
  });
});
