// Where uploads live in the BlobStore: chunks by project and SHA-1 while an upload is in
// progress (garbage-collected), raw or gzip as they were sent, and each assembled file by
// project, Debug ID, type and the assembly that stored it.
import type { ArtifactType } from '../../core/sourcemaps/artifact-manifest.ts';

export const CHUNKS_PREFIX = 'chunks/';

export function chunkKey(projectId: number, sha1: string): string {
  return `${CHUNKS_PREFIX}${projectId}/${sha1}`;
}

/** A chunk uploaded gzip-compressed, kept as it came: it costs on disk what its upload cost. */
export function gzipChunkKey(projectId: number, sha1: string): string {
  return `${chunkKey(projectId, sha1)}.gz`;
}

/**
 * Stored gzip-compressed, under the bundle's checksum too: with one key per Debug ID and type, an
 * assembly that failed removed the file another bundle's had just stored under that key, and
 * retention deleting an old upload deleted a new upload's file with it. One bundle is assembled
 * by one process at a time (claimAssembly), and one taking over from a process that died writes
 * the same keys again, so no file is left behind. Index entries name their key, so files stored
 * before under `<type>.gz` are still found.
 */
export function artifactKey(projectId: number, debugId: string, type: ArtifactType, bundleChecksum: string): string {
  return `projects/${projectId}/maps/${debugId}/${type}.${bundleChecksum}.gz`;
}
