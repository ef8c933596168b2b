// The source map upload protocol as sentry-cli 3.x and the bundler plugins speak it (see
// docs/source-maps.md): the chunk-upload options the CLI reads first, the assemble request, and
// the states it understands. Pure: the ingest role serves it.
import { z } from 'zod';

export const CHUNK_SIZE = 8 * 1024 * 1024;
export const CHUNKS_PER_REQUEST = 64;
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;
/** The largest bundle assembled: the sum of its chunks. */
export const MAX_BUNDLE_BYTES = 1024 * 1024 * 1024;

export const SHA1 = /^[0-9a-f]{40}$/;

/** Chunk requests the upload tools send at once. */
export const UPLOAD_CONCURRENCY = 4;

/**
 * GET /api/0/organizations/{org}/chunk-upload/; `maxFileSize` lower than MAX_BUNDLE_BYTES when
 * the chunk quota is, `maxRequestSize` lower than MAX_REQUEST_BYTES when ingest's memory is.
 */
export function chunkUploadOptions(uploadUrl: string, options: { maxFileSize?: number; maxRequestSize?: number } = {}) {
  return {
    url: uploadUrl,
    chunkSize: CHUNK_SIZE,
    chunksPerRequest: CHUNKS_PER_REQUEST,
    maxFileSize: options.maxFileSize ?? MAX_BUNDLE_BYTES,
    maxRequestSize: options.maxRequestSize ?? MAX_REQUEST_BYTES,
    concurrency: UPLOAD_CONCURRENCY,
    hashAlgorithm: 'sha1',
    compression: ['gzip'],
    // sentry-cli 2.x negotiates with these (3.x assumes them): chunked uploads of Debug ID bundles.
    accept: ['release_files', 'artifact_bundles', 'artifact_bundles_v2'],
  };
}

export const assembleRequest = z.object({
  checksum: z.string().regex(SHA1, 'checksum must be 40 lowercase hex characters (SHA-1)'),
  chunks: z
    .array(z.string().regex(SHA1, 'every chunk must be 40 lowercase hex characters (SHA-1)'))
    .max(Math.ceil(MAX_BUNDLE_BYTES / CHUNK_SIZE), 'too many chunks: a bundle may be at most 1 GiB'),
  projects: z.array(z.string().max(200)).max(100).optional(),
  version: z.string().max(200).optional(),
  dist: z.string().max(200).optional(),
});
export type AssembleRequest = z.infer<typeof assembleRequest>;

export type AssembleState = 'not_found' | 'created' | 'assembling' | 'ok' | 'error';

export interface AssembleResponse {
  state: AssembleState;
  missingChunks: string[];
  detail: string | null;
}
