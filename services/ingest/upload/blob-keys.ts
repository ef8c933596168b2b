// Where uploads live in the BlobStore: chunks by project and SHA-1 while an upload is in
// progress (garbage-collected), and each assembled file by project, Debug ID and type.
import type { ArtifactType } from '../../core/sourcemaps/artifact-manifest.ts';

export const CHUNKS_PREFIX = 'chunks/';

export function chunkKey(projectId: number, sha1: string): string {
  return `${CHUNKS_PREFIX}${projectId}/${sha1}`;
}

/** Stored gzip-compressed. */
export function artifactKey(projectId: number, debugId: string, type: ArtifactType): string {
  return `projects/${projectId}/maps/${debugId}/${type}.gz`;
}
