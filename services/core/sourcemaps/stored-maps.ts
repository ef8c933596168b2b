// Stored source maps as users manage them (CLI and management API): listed per project, and
// deleted by Debug ID (the minified file and its map together), files before index entries.
import { NotFoundError } from '../errors.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { MetadataStore, SourceMapArtifact } from '../ports/metadata-store.ts';
import { normalizeDebugId } from './artifact-manifest.ts';

/** Files one listing shows at most, newest first: a project may keep any number of builds. */
const LISTED_MAP_FILES = 1_000;

/** The project's newest stored files, at most `limit`, and how many it keeps in all. */
export async function listedMaps(
  metadata: Pick<MetadataStore, 'listSourceMapArtifacts' | 'countSourceMapArtifacts'>,
  projectId: number,
  limit = LISTED_MAP_FILES,
): Promise<{ artifacts: SourceMapArtifact[]; total: number }> {
  const [artifacts, total] = await Promise.all([
    metadata.listSourceMapArtifacts(projectId, { limit }),
    metadata.countSourceMapArtifacts(projectId),
  ]);
  return { artifacts, total };
}

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
  // A Debug ID names one file of each type; the limit only bounds the read.
  const found = debugId ? await ports.metadata.listSourceMapArtifacts(projectId, { limit: 10, debugId }) : [];
  if (found.length === 0) {
    throw new NotFoundError(`no source files stored under Debug ID "${debugIdText.slice(0, 60)}": listsourcemaps shows them`);
  }
  await ports.blobs.deleteMany(found.map((a) => a.blobKey));
  await ports.metadata.deleteSourceMapArtifacts(found);
  // Uploading the bundle again must store it again, not answer "already assembled".
  await ports.metadata.forgetAssemblies(projectId, [...new Set(found.map((a) => a.bundleChecksum))]);
  return found;
}
