// Where uploads live in the BlobStore: chunks by project and SHA-1 while an upload is in
// progress (garbage-collected), raw or gzip as they were sent, and each assembled file by
// project, Debug ID and type.
import type { ArtifactType } from '../../core/sourcemaps/artifact-manifest.ts';

export const CHUNKS_PREFIX = 'chunks/';

export function chunkKey(projectId: number, sha1: string): string {
  return `${CHUNKS_PREFIX}${projectId}/${sha1}`;
}

/** A chunk uploaded gzip-compressed, kept as it came: it costs on disk what its upload cost. */
export function gzipChunkKey(projectId: number, sha1: string): string {
  return `${chunkKey(projectId, sha1)}.gz`;
}

/** Stored gzip-compressed. */
export function artifactKey(projectId: number, debugId: string, type: ArtifactType): string {
  return `projects/${projectId}/maps/${debugId}/${type}.gz`;
}
