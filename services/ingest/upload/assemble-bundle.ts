// Assembling an uploaded artifact bundle: its chunks hashed in order, one in memory at a time,
// and checked against the bundle's SHA-1 before anything else is done with them; then the bundle
// read where it lies, chunk by chunk, never joined (chunked-bundle.ts; read-artifact-bundle.ts
// bounds what a hostile one costs), each minified source and source map stored gzip-compressed
// under its Debug ID, and the index written. Every chunk read is checked against its own SHA-1.
// The outcome is the assembly's state, which the upload CLI polls: ok, or error with a detail
// saying what was wrong. Never throws for a bad bundle.
import { createHash } from 'node:crypto';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { BundleError } from '../../core/sourcemaps/artifact-manifest.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { MetadataStore } from '../../core/ports/metadata-store.ts';
import type { Logger } from '../../runtime/logger.ts';
import { MAX_BUNDLE_BYTES } from '../../core/sourcemaps/upload-protocol.ts';
import { readArtifactBundleFrom } from '../sourcemaps/read-artifact-bundle.ts';
import { artifactKey } from './blob-keys.ts';
import { ChunkedBundle } from './chunked-bundle.ts';
import { readChunk } from './chunk-store.ts';

const gzipAsync = promisify(gzip);

export interface AssemblePorts {
  metadata: MetadataStore;
  blobs: BlobStore;
  logger: Logger;
}

export async function assembleBundle(ports: AssemblePorts, projectId: number, checksum: string, chunks: string[]): Promise<void> {
  try {
    const sizes = await verifyChunks(ports, projectId, checksum, chunks);
    const parsed = await readArtifactBundleFrom(new ChunkedBundle((i) => readChunk(ports.blobs, projectId, chunks[i]!), sizes));
    const artifacts = [];
    for (const file of parsed.files) {
      const key = artifactKey(projectId, file.debugId, file.type);
      await ports.blobs.put(key, await gzipAsync(file.content), { contentType: 'application/gzip' });
      artifacts.push({
        projectId,
        debugId: file.debugId,
        type: file.type,
        url: file.url,
        blobKey: key,
        sizeBytes: file.content.byteLength,
        bundleChecksum: checksum,
      });
    }
    await ports.metadata.saveSourceMapArtifacts(artifacts);
    await ports.metadata.finishAssembly(projectId, checksum, 'ok', null);
    ports.logger.info({ projectId, checksum, files: artifacts.length, skipped: parsed.skipped }, 'artifact bundle assembled');
  } catch (error) {
    const detail = error instanceof BundleError ? error.message : 'the bundle could not be stored; upload it again later';
    if (!(error instanceof BundleError))
      ports.logger.error({ err: error, projectId, checksum }, 'artifact bundle assembly failed');
    await ports.metadata.finishAssembly(projectId, checksum, 'error', detail).catch((failure: unknown) => {
      ports.logger.error({ err: failure, projectId, checksum }, 'could not record the failed assembly');
    });
  }
}

/**
 * Hashes the chunks in order, holding one at a time, and checks the whole against the bundle's
 * checksum before anything is joined, inflated or stored: invented checksums cost one pass of
 * reading. Returns each chunk's size.
 */
async function verifyChunks(ports: AssemblePorts, projectId: number, checksum: string, chunks: string[]): Promise<number[]> {
  const whole = createHash('sha1');
  const sizes: number[] = [];
  let total = 0;
  for (const sha1 of chunks) {
    const chunk = await readChunk(ports.blobs, projectId, sha1);
    total += chunk.length;
    if (total > MAX_BUNDLE_BYTES) {
      throw new BundleError(`the chunks add up to more than ${MAX_BUNDLE_BYTES} bytes, the largest bundle accepted`);
    }
    whole.update(chunk);
    sizes.push(chunk.length);
  }
  const actual = whole.digest('hex');
  if (actual !== checksum) throw new BundleError(`the chunks add up to SHA-1 ${actual}, not the bundle's ${checksum}`);
  return sizes;
}
