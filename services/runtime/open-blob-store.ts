// Where uploaded source maps live: S3 when ERRATA_S3_BUCKET is set, else <data dir>/blobs.
// Its own module so the standalone backend thread can open it without the distributed drivers.
// The S3 client loads only when a configuration asks for it: imported at start it held about
// 3 MB of heap in each of the standalone server's two threads (docs/benchmarks.md).
import { join } from 'node:path';
import { openFsBlobStore } from '../adapters/fs-blobs/fs-blob-store.ts';
import type { BlobStore } from '../core/ports/blob-store.ts';
import type { Config } from './config.ts';

export type BlobStoreConfig = Pick<Config, 's3' | 'dataDir'>;

export async function openBlobStore(config: BlobStoreConfig): Promise<BlobStore> {
  if (config.s3) return (await import('../adapters/s3/s3-blob-store.ts')).openS3BlobStore(config.s3);
  return openFsBlobStore(join(config.dataDir, 'blobs'));
}
