// Stored source maps as users manage them (CLI and management API): listed per project, and
// deleted by Debug ID (the minified file and its map together), files before index entries.
import { NotFoundError } from '../errors.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { MetadataStore, SourceMapArtifact } from '../ports/metadata-store.ts';
import { normalizeDebugId } from './artifact-manifest.ts';

export function storedMapJson(artifact: SourceMapArtifact) {
  return {
    debugId: artifact.debugId,
    type: artifact.type,
    url: artifact.url,
    sizeBytes: artifact.sizeBytes,
    uploadedAt: artifact.uploadedAt.toISOString(),
    lastUsedAt: artifact.lastUsedAt?.toISOString() ?? null,
  };
}

/** Deletes every file stored under the Debug ID in the project; NotFoundError when there is none. */
export async function deleteStoredMaps(
  ports: { metadata: MetadataStore; blobs: BlobStore },
  projectId: number,
  debugIdText: string,
): Promise<SourceMapArtifact[]> {
  const debugId = normalizeDebugId(debugIdText);
  const found = debugId ? (await ports.metadata.listSourceMapArtifacts(projectId)).filter((a) => a.debugId === debugId) : [];
  if (found.length === 0) {
    throw new NotFoundError(`no source files stored under Debug ID "${debugIdText.slice(0, 60)}": listsourcemaps shows them`);
  }
  await ports.blobs.deleteMany(found.map((a) => a.blobKey));
  await ports.metadata.deleteSourceMapArtifacts(found);
  // Uploading the bundle again must store it again, not answer "already assembled".
  await ports.metadata.forgetAssemblies(projectId, [...new Set(found.map((a) => a.bundleChecksum))]);
  return found;
}
