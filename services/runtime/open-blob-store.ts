// Where uploaded source maps live: S3 when ERRATA_S3_BUCKET is set, else <data dir>/blobs.
// Its own module so the standalone backend thread can open it without the distributed drivers.
import { join } from 'node:path';
import { openFsBlobStore } from '../adapters/fs-blobs/fs-blob-store.ts';
import { openS3BlobStore } from '../adapters/s3/s3-blob-store.ts';
import type { BlobStore } from '../core/ports/blob-store.ts';
import type { Config } from './config.ts';

export type BlobStoreConfig = Pick<Config, 's3' | 'dataDir'>;

export async function openBlobStore(config: BlobStoreConfig): Promise<BlobStore> {
  if (config.s3) return openS3BlobStore(config.s3);
  return openFsBlobStore(join(config.dataDir, 'blobs'));
}
