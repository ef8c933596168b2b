// Upload chunks are transient: once an hour, chunks older than an hour are deleted. An upload
// in progress re-sends whatever the assemble call reports missing, so a chunk collected between
// its upload and the assembly costs a retry, never a wrong result.
import { repeatEvery } from '../../runtime/repeat.ts';
import { listAllBlobs, type BlobStore } from '../../core/ports/blob-store.ts';
import type { Logger } from '../../runtime/logger.ts';
import { CHUNKS_PREFIX } from './blob-keys.ts';

export const CHUNK_MAX_AGE_MS = 3_600_000;

export async function collectStaleChunks(blobs: BlobStore, now: number, maxAgeMs = CHUNK_MAX_AGE_MS): Promise<number> {
  const stale: string[] = [];
  for await (const blob of listAllBlobs(blobs, CHUNKS_PREFIX)) {
    if (now - blob.lastModified.getTime() > maxAgeMs) stale.push(blob.key);
  }
  await blobs.deleteMany(stale);
  return stale.length;
}

export function startChunkGcJob(deps: { blobs: BlobStore; logger: Logger; now?: () => number; intervalMs?: number }): {
  stop(): void;
} {
  const job = { name: 'upload chunk garbage collection', intervalMs: deps.intervalMs ?? CHUNK_MAX_AGE_MS, logger: deps.logger };
  return repeatEvery(job, async () => {
    const removed = await collectStaleChunks(deps.blobs, (deps.now ?? Date.now)());
    if (removed > 0) deps.logger.info({ chunks: removed }, 'stale upload chunks removed');
  });
}
