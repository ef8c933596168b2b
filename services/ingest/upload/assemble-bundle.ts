// Assembling an uploaded artifact bundle: its chunks hashed in order, one in memory at a time,
// and checked against the bundle's SHA-1 before anything else is done with them; then the bundle
// read where it lies, chunk by chunk, never joined (chunked-bundle.ts; read-artifact-bundle.ts
// bounds what a hostile one costs), each minified source and source map stored gzip-compressed
// under its Debug ID, and the index written. Each distinct chunk is checked against its own
// SHA-1 once; the upload route has bounded how many chunks a bundle may list (repeats included).
// The outcome is the assembly's state, which the upload CLI polls: ok, or error with a detail
// saying what was wrong. Never throws for a bad bundle.
import { createHash } from 'node:crypto';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { BundleError } from '../../core/sourcemaps/artifact-manifest.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { MetadataStore } from '../../core/ports/metadata-store.ts';
import type { Logger } from '../../runtime/logger.ts';
import { readArtifactBundleFrom } from '../sourcemaps/read-artifact-bundle.ts';
import { artifactKey } from './blob-keys.ts';
import { ChunkedBundle } from './chunked-bundle.ts';
import { readCheckedChunk, readChunk } from './chunk-store.ts';

const gzipAsync = promisify(gzip);

interface AssemblePorts {
  metadata: MetadataStore;
  blobs: BlobStore;
  logger: Logger;
}

interface AssembleLimits {
  /** The largest bundle accepted: the sum of its chunks as listed, repeats included. */
  maxBytes: number;
}

export async function assembleBundle(
  ports: AssemblePorts,
  projectId: number,
  checksum: string,
  chunks: string[],
  limits: AssembleLimits,
): Promise<void> {
  const written: Array<{ key: string; debugId: string; type: string }> = [];
  try {
    const sizes = await verifyChunks(ports, projectId, checksum, chunks, limits.maxBytes);
    const bundle = new ChunkedBundle((i) => readCheckedChunk(ports.blobs, projectId, chunks[i]!), sizes);
    // Each file is stored as it is read, and only its index entry kept: holding every file until
    // the last was read let one upload of ~1 MB (files of zeros compress 1000:1) hold 1 GiB.
    const parsed = await readArtifactBundleFrom(bundle, async (file) => {
      const key = artifactKey(projectId, file.debugId, file.type, checksum);
      written.push({ key, debugId: file.debugId, type: file.type });
      await ports.blobs.put(key, await gzipAsync(file.content), { contentType: 'application/gzip' });
      return {
        projectId,
        debugId: file.debugId,
        type: file.type,
        url: file.url,
        blobKey: key,
        sizeBytes: file.content.byteLength,
        bundleChecksum: checksum,
      };
    });
    const artifacts = parsed.files;
    // Errata finds maps by debug id alone: a bundle without one indexes nothing, and `ok` let a
    // build that skipped `sourcemaps inject` pass its upload step with no map ever applied.
    if (artifacts.length === 0 && parsed.skipped > 0) {
      throw new BundleError(
        `none of the bundle's ${parsed.skipped} files can be used: Errata keeps minified sources and source maps ` +
          'that carry a debug id; run `sentry-cli sourcemaps inject <dir>` before `sentry-cli sourcemaps upload <dir>`',
      );
    }
    const replaced = await ports.metadata.saveSourceMapArtifacts(artifacts);
    // The files of an earlier upload of these Debug IDs: nothing leads to them now.
    if (replaced.length > 0) {
      await ports.blobs.deleteMany(replaced).catch((failure: unknown) => {
        ports.logger.error(
          { err: failure, projectId, checksum, files: replaced.length },
          'could not remove the files a new upload replaced',
        );
      });
    }
    await ports.metadata.finishAssembly(projectId, checksum, 'ok', null);
    ports.logger.info({ projectId, checksum, files: artifacts.length, skipped: parsed.skipped }, 'artifact bundle assembled');
  } catch (error) {
    const detail = error instanceof BundleError ? error.message : 'the bundle could not be stored; upload it again later';
    if (!(error instanceof BundleError))
      ports.logger.error({ err: error, projectId, checksum }, 'artifact bundle assembly failed');
    await forgetUnindexed(ports, projectId, written).catch((failure: unknown) => {
      ports.logger.error({ err: failure, projectId, checksum }, 'could not remove the files of a failed assembly');
    });
    await ports.metadata.finishAssembly(projectId, checksum, 'error', detail).catch((failure: unknown) => {
      ports.logger.error({ err: failure, projectId, checksum }, 'could not record the failed assembly');
    });
  }
}

/**
 * Removes the files a failed assembly stored that no index entry points at: only index entries
 * lead retention and deletion to a file, so they stayed for good. Its keys are its bundle's, so
 * this touches no other bundle's file; those it indexed before it failed (the state not recorded)
 * stay.
 */
async function forgetUnindexed(
  ports: AssemblePorts,
  projectId: number,
  written: Array<{ key: string; debugId: string; type: string }>,
): Promise<void> {
  const orphans: string[] = [];
  for (const file of written) {
    const indexed = await ports.metadata.listSourceMapArtifacts(projectId, { limit: 10, debugId: file.debugId });
    if (!indexed.some((artifact) => artifact.type === file.type && artifact.blobKey === file.key)) orphans.push(file.key);
  }
  if (orphans.length > 0) await ports.blobs.deleteMany(orphans);
}

/**
 * Hashes the chunks in order, holding one at a time, and checks the whole against the bundle's
 * checksum before anything is joined, inflated or stored: invented checksums cost one pass of
 * reading, within maxBytes. A chunk listed again is not checked again, and one listed again at
 * once (one gzip bomb listed 128 times cost 7.35 s of CPU) is not read again either. Returns
 * each chunk's size.
 */
async function verifyChunks(
  ports: AssemblePorts,
  projectId: number,
  checksum: string,
  chunks: string[],
  maxBytes: number,
): Promise<number[]> {
  const whole = createHash('sha1');
  const sizes: number[] = [];
  const checked = new Set<string>();
  let last: { sha1: string; content: Buffer } | undefined;
  let total = 0;
  for (const sha1 of chunks) {
    if (last?.sha1 !== sha1) {
      last = undefined; // one chunk in memory at a time
      const read = checked.has(sha1) ? readCheckedChunk : readChunk;
      last = { sha1, content: await read(ports.blobs, projectId, sha1) };
      checked.add(sha1);
    }
    const content = last.content;
    total += content.length;
    if (total > maxBytes) {
      throw new BundleError(`the chunks add up to more than ${maxBytes} bytes, the largest bundle this server accepts`);
    }
    whole.update(content);
    sizes.push(content.length);
  }
  const actual = whole.digest('hex');
  if (actual !== checksum) throw new BundleError(`the chunks add up to SHA-1 ${actual}, not the bundle's ${checksum}`);
  return sizes;
}
