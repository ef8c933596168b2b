// SourceMapIndex port, a slice of the MetadataStore: which uploaded artifact bundles were
// assembled (or are being), and where each of their files lies in the BlobStore, by project,
// Debug ID and type. Ingest's upload protocol claims assemblies and indexes the files; the
// dispatcher finds maps to symbolicate with and prunes unused ones; the management API and CLI
// list and delete them. One SQL implementation (adapters/postgres/pg-source-map-index.ts).

export type AssemblyState = 'assembling' | 'ok' | 'error';

export interface BundleAssembly {
  state: AssemblyState;
  detail: string | null;
  updatedAt: Date;
}

/** One stored file of an uploaded artifact bundle, found by Debug ID and type. */
export interface SourceMapArtifact {
  projectId: number;
  debugId: string;
  type: 'minified_source' | 'source_map';
  url: string;
  blobKey: string;
  sizeBytes: number;
  bundleChecksum: string;
  uploadedAt: Date;
  lastUsedAt: Date | null;
}

export interface SourceMapIndex {
  /**
   * Claims the assembly of a bundle: true when this caller should assemble it (no state yet, an
   * assembly that stopped updating before `staleBefore`, its process presumably gone, or one that
   * failed before `failedBefore`).
   */
  claimAssembly(projectId: number, checksum: string, staleBefore: Date, failedBefore: Date): Promise<boolean>;
  /**
   * Marks an assembly still running (its updated_at now), so that a long one is not taken for
   * stale and claimed a second time while it runs. Nothing when it is no longer `assembling`.
   */
  keepAssembling(projectId: number, checksum: string): Promise<void>;
  finishAssembly(projectId: number, checksum: string, state: 'ok' | 'error', detail: string | null): Promise<void>;
  getAssembly(projectId: number, checksum: string): Promise<BundleAssembly | undefined>;
  /** Forgets assemblies, so that uploading those bundles again stores them again. */
  forgetAssemblies(projectId: number, checksums: string[]): Promise<void>;
  /**
   * Forgets the assemblies last updated before the cutoff that no indexed file came from: failed
   * ones, ones whose process died, and ones whose files were all replaced or pruned. Returns how
   * many.
   */
  forgetAssembliesBefore(cutoff: Date): Promise<number>;
  /**
   * Inserts or replaces the index entries (by project, debug id and type). Answers the blob keys
   * of the entries it replaced that pointed elsewhere: files nothing leads to any more, for the
   * caller to delete.
   */
  saveSourceMapArtifacts(artifacts: Array<Omit<SourceMapArtifact, 'uploadedAt' | 'lastUsedAt'>>): Promise<string[]>;
  /** The project's newest files (by upload), at most `limit`; only those of one Debug ID when given. */
  listSourceMapArtifacts(projectId: number, options: { limit: number; debugId?: string }): Promise<SourceMapArtifact[]>;
  countSourceMapArtifacts(projectId: number): Promise<number>;
  findSourceMapArtifact(
    projectId: number,
    debugId: string,
    type: SourceMapArtifact['type'],
  ): Promise<SourceMapArtifact | undefined>;
  /** Artifacts whose last use (or upload, if never used) is before the cutoff, oldest first. */
  listSourceMapArtifactsUnusedSince(cutoff: Date, limit: number): Promise<SourceMapArtifact[]>;
  /**
   * Deletes the entries that still point at the blob key given: one an upload replaced meanwhile
   * (retention or a delete racing a new upload of the Debug ID) stays, with its new file.
   */
  deleteSourceMapArtifacts(
    artifacts: Array<Pick<SourceMapArtifact, 'projectId' | 'debugId' | 'type' | 'blobKey'>>,
  ): Promise<void>;
  /** Records that these maps symbolicated an event at `at` (retention keeps maps in use). */
  touchSourceMapArtifacts(projectId: number, debugIds: string[], at: Date): Promise<void>;
}
