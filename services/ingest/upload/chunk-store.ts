// Upload chunks in the BlobStore, by project and the SHA-1 of their content. A chunk sent raw is
// kept raw, one sent gzip-compressed is kept compressed: inflated on arrival, 64 chunks of 8 MiB
// of zeros (8 KB of gzip each, one 0.5 MB request) took 512 MiB of disk. Reading a chunk
// inflates it (at most CHUNK_SIZE) and checks it against its SHA-1, so an assembly only ever sees
// bytes that are what their name says, whatever happened to them on disk; once per assembly,
// which then reads it again unchecked (the bundle's own SHA-1 covers every byte).
import { createHash } from 'node:crypto';
import { createGunzip, gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import { BundleError } from '../../core/sourcemaps/artifact-manifest.ts';
import { CHUNK_SIZE } from '../../core/sourcemaps/upload-protocol.ts';
import { chunkKey, gzipChunkKey } from './blob-keys.ts';

const gunzipAsync = promisify(gunzip);
const INFLATE_PIECE = 1024 * 1024;

type ChunkForm = 'raw' | 'gzip';

export function sha1Of(data: Uint8Array): string {
  return createHash('sha1').update(data).digest('hex');
}

/**
 * The SHA-1 of what gzip data inflates to, hashed as it inflates (nothing inflated is kept);
 * undefined when it is not gzip, or inflates to more than CHUNK_SIZE bytes.
 */
export function inflatedSha1(gzipped: Buffer): Promise<string | undefined> {
  return new Promise((resolve) => {
    const hash = createHash('sha1');
    const inflate = createGunzip();
    let size = 0;
    inflate.on('data', (piece: Buffer) => {
      size += piece.length;
      if (size <= CHUNK_SIZE) return void hash.update(piece);
      inflate.destroy();
      resolve(undefined);
    });
    inflate.on('error', () => resolve(undefined));
    inflate.on('end', () => resolve(hash.digest('hex')));
    inflate.end(gzipped);
  });
}

export async function chunkExists(blobs: BlobStore, projectId: number, sha1: string): Promise<boolean> {
  const [gzipped, raw] = await Promise.all([blobs.head(gzipChunkKey(projectId, sha1)), blobs.head(chunkKey(projectId, sha1))]);
  return gzipped !== undefined || raw !== undefined;
}

export function storeChunk(blobs: BlobStore, projectId: number, sha1: string, form: ChunkForm, body: Buffer): Promise<void> {
  return blobs.put(form === 'gzip' ? gzipChunkKey(projectId, sha1) : chunkKey(projectId, sha1), body);
}

/**
 * The chunk's content, checked against its SHA-1; a BundleError (the assembly's detail) when it
 * is absent or wrong. A wrong one is deleted, so that uploading again replaces it.
 */
export async function readChunk(blobs: BlobStore, projectId: number, sha1: string): Promise<Buffer> {
  const { key, content } = await loadChunk(blobs, projectId, sha1);
  if (content === undefined || sha1Of(content) !== sha1) {
    await blobs.delete(key);
    throw new BundleError(`chunk ${sha1} does not match its SHA-1: upload the bundle again`);
  }
  return content;
}

/**
 * The content of a chunk readChunk has already checked in this assembly, not hashed again; a
 * BundleError when it is gone or no longer inflates.
 */
export async function readCheckedChunk(blobs: BlobStore, projectId: number, sha1: string): Promise<Buffer> {
  const { content } = await loadChunk(blobs, projectId, sha1);
  if (content === undefined) throw new BundleError(`chunk ${sha1} changed during the assembly: upload the bundle again`);
  return content;
}

/** The stored chunk, inflated (undefined content when it does not inflate within CHUNK_SIZE). */
async function loadChunk(blobs: BlobStore, projectId: number, sha1: string): Promise<{ key: string; content?: Buffer }> {
  const gzipKey = gzipChunkKey(projectId, sha1);
  const gzipped = await blobs.get(gzipKey);
  if (gzipped) {
    // Inflated in pieces of 1 MiB: zlib's default of 16 KiB cost three times the CPU.
    const content = await gunzipAsync(gzipped, { maxOutputLength: CHUNK_SIZE, chunkSize: INFLATE_PIECE }).catch(() => undefined);
    return { key: gzipKey, content };
  }
  const key = chunkKey(projectId, sha1);
  const content = await blobs.get(key);
  if (!content) throw new BundleError(`chunk ${sha1} disappeared before assembly: upload again`);
  return { key, content };
}
