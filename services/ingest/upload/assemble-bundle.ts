// Assembling an uploaded artifact bundle: its chunks joined in order and checked against the
// bundle's SHA-1, the bundle read (read-artifact-bundle.ts bounds what a hostile one costs),
// each minified source and source map stored gzip-compressed under its Debug ID, and the index
// written. The outcome is the assembly's state, which the upload CLI polls: ok, or error with
// a detail saying what was wrong. Never throws for a bad bundle.
import { createHash } from 'node:crypto';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { BundleError } from '../../core/sourcemaps/artifact-manifest.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { MetadataStore } from '../../core/ports/metadata-store.ts';
import type { Logger } from '../../runtime/logger.ts';
import { readArtifactBundle } from '../sourcemaps/read-artifact-bundle.ts';
import { artifactKey, chunkKey } from './blob-keys.ts';

const gzipAsync = promisify(gzip);

export interface AssemblePorts {
  metadata: MetadataStore;
  blobs: BlobStore;
  logger: Logger;
}

export async function assembleBundle(ports: AssemblePorts, projectId: number, checksum: string, chunks: string[]): Promise<void> {
  try {
    const parts: Buffer[] = [];
    for (const sha1 of chunks) {
      const part = await ports.blobs.get(chunkKey(projectId, sha1));
      if (!part) throw new BundleError(`chunk ${sha1} disappeared before assembly: upload again`);
      parts.push(part);
    }
    const bundle = Buffer.concat(parts);
    const actual = createHash('sha1').update(bundle).digest('hex');
    if (actual !== checksum) throw new BundleError(`the chunks add up to SHA-1 ${actual}, not the bundle's ${checksum}`);
    const parsed = await readArtifactBundle(bundle);
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
