// SourceMapIndex over SQL (PGlite standalone, Postgres distributed): bundle assemblies and the
// index of uploaded source map files by Debug ID; the files themselves are in the BlobStore.
// A slice of PgMetadataStore; it does not own the SqlClient.
import type { AssemblyState, BundleAssembly, SourceMapArtifact, SourceMapIndex } from '../../core/ports/source-map-index.ts';
import { chunk, valuesList, type SqlClient } from './sql-client.ts';
import { compareText } from '../../core/compare-text.ts';
import { lockProjectsShared } from './project-locks.ts';

/** An entry's columns, in the order saveSourceMapArtifacts lists its values. */
const COLUMNS = '(project_id, debug_id, type, url, blob_key, size_bytes, bundle_checksum)';

export class PgSourceMapIndex implements SourceMapIndex {
  constructor(private readonly db: SqlClient) {}

  async claimAssembly(projectId: number, checksum: string, staleBefore: Date, failedBefore: Date): Promise<boolean> {
    const claimed = await this.db.query(
      `INSERT INTO bundle_assemblies AS a (project_id, checksum, state) VALUES ($1, $2, 'assembling')
       ON CONFLICT (project_id, checksum) DO UPDATE SET state = 'assembling', detail = NULL, updated_at = now()
         WHERE (a.state = 'assembling' AND a.updated_at < $3) OR (a.state = 'error' AND a.updated_at < $4)
       RETURNING 1`,
      [projectId, checksum, staleBefore, failedBefore],
    );
    return claimed.rows.length === 1;
  }

  async keepAssembling(projectId: number, checksum: string): Promise<void> {
    await this.db.query(
      `UPDATE bundle_assemblies SET updated_at = now() WHERE project_id = $1 AND checksum = $2 AND state = 'assembling'`,
      [projectId, checksum],
    );
  }

  async finishAssembly(projectId: number, checksum: string, state: 'ok' | 'error', detail: string | null): Promise<void> {
    await this.db.query(
      'UPDATE bundle_assemblies SET state = $3, detail = $4, updated_at = now() WHERE project_id = $1 AND checksum = $2',
      [projectId, checksum, state, detail],
    );
  }

  async getAssembly(projectId: number, checksum: string): Promise<BundleAssembly | undefined> {
    const result = await this.db.query<{ state: AssemblyState; detail: string | null; updated_at: Date }>(
      'SELECT state, detail, updated_at FROM bundle_assemblies WHERE project_id = $1 AND checksum = $2',
      [projectId, checksum],
    );
    const row = result.rows[0];
    return row && { state: row.state, detail: row.detail, updatedAt: row.updated_at };
  }

  async forgetAssemblies(projectId: number, checksums: string[]): Promise<void> {
    if (checksums.length === 0) return;
    await this.db.query('DELETE FROM bundle_assemblies WHERE project_id = $1 AND checksum = ANY($2::text[])', [
      projectId,
      checksums,
    ]);
  }

  async forgetAssembliesBefore(cutoff: Date): Promise<number> {
    const deleted = await this.db.query(
      `DELETE FROM bundle_assemblies a WHERE a.updated_at < $1
         AND NOT EXISTS (SELECT 1 FROM source_map_artifacts s WHERE s.project_id = a.project_id AND s.bundle_checksum = a.checksum)`,
      [cutoff],
    );
    return deleted.affectedRows;
  }

  async saveSourceMapArtifacts(artifacts: Array<Omit<SourceMapArtifact, 'uploadedAt' | 'lastUsedAt'>>): Promise<string[]> {
    // In key order, so that two uploads sharing Debug IDs lock their entries in the same order
    // (bundles list their files in any order): otherwise they could deadlock.
    const sorted = [...artifacts].sort((a, b) => compareKeys(a, b));
    // One transaction for every chunk: a failure in a later one returns no replaced key of an earlier one.
    return this.db.transaction(async (tx) => {
      // First, as everyone writing a project's entries: the project's delete waits for this.
      await lockProjectsShared(
        tx,
        sorted.map((a) => a.projectId),
      );
      const replaced: string[] = [];
      for (const part of chunk(sorted, 500)) {
        const values = valuesList(
          part.map((a) => [a.projectId, a.debugId, a.type, a.url, a.blobKey, a.sizeBytes, a.bundleChecksum]),
          ['integer', 'text', 'text', 'text', 'text', 'bigint', 'text'],
        );
        // New entries first: an upload inserting the same one meanwhile is waited for here, so
        // that the lock below finds its entry, and answers its key, rather than nothing.
        await tx.query(
          `INSERT INTO source_map_artifacts ${COLUMNS} VALUES ${values.sql} ON CONFLICT (project_id, debug_id, type) DO NOTHING`,
          values.params,
        );
        // Then the entries this upload replaces, locked: of two uploads replacing one entry at
        // once, the second waits, then reads (and answers) the first one's key.
        const old = await tx.query<{ blob_key: string }>(
          `SELECT a.blob_key FROM source_map_artifacts a
           JOIN (VALUES ${values.sql}) AS v ${COLUMNS}
             ON a.project_id = v.project_id AND a.debug_id = v.debug_id AND a.type = v.type
           WHERE a.blob_key <> v.blob_key
           ORDER BY a.project_id, a.debug_id, a.type
           FOR UPDATE OF a`,
          values.params,
        );
        // A new upload starts its map's time unused afresh: retention went on from the replaced
        // upload's last use, and deleted the new file with the entry it had just listed.
        await tx.query(
          `INSERT INTO source_map_artifacts ${COLUMNS} VALUES ${values.sql}
           ON CONFLICT (project_id, debug_id, type) DO UPDATE SET url = EXCLUDED.url, blob_key = EXCLUDED.blob_key,
             size_bytes = EXCLUDED.size_bytes, bundle_checksum = EXCLUDED.bundle_checksum, uploaded_at = now(),
             last_used_at = NULL`,
          values.params,
        );
        replaced.push(...old.rows.map((row) => row.blob_key));
      }
      return replaced;
    });
  }

  async findSourceMapArtifact(
    projectId: number,
    debugId: string,
    type: SourceMapArtifact['type'],
  ): Promise<SourceMapArtifact | undefined> {
    return (await this.artifactsWhere('project_id = $1 AND debug_id = $2 AND type = $3', [projectId, debugId, type]))[0];
  }

  async touchSourceMapArtifacts(projectId: number, debugIds: string[], at: Date): Promise<void> {
    if (debugIds.length === 0) return;
    await this.db.query(
      `UPDATE source_map_artifacts SET last_used_at = $3
       WHERE project_id = $1 AND debug_id = ANY($2::text[]) AND (last_used_at IS NULL OR last_used_at < $3)`,
      [projectId, debugIds, at],
    );
  }

  listSourceMapArtifactsUnusedSince(cutoff: Date, limit: number): Promise<SourceMapArtifact[]> {
    return this.artifactsWhere('COALESCE(last_used_at, uploaded_at) < $1 ORDER BY COALESCE(last_used_at, uploaded_at) LIMIT $2', [
      cutoff,
      limit,
    ]);
  }

  async deleteSourceMapArtifacts(
    artifacts: Array<Pick<SourceMapArtifact, 'projectId' | 'debugId' | 'type' | 'blobKey'>>,
  ): Promise<void> {
    for (const part of chunk(artifacts, 500)) {
      const values = valuesList(
        part.map((a) => [a.projectId, a.debugId, a.type, a.blobKey]),
        ['integer', 'text', 'text', 'text'],
      );
      await this.db.query(
        `DELETE FROM source_map_artifacts a USING (VALUES ${values.sql}) AS v (project_id, debug_id, type, blob_key)
         WHERE a.project_id = v.project_id AND a.debug_id = v.debug_id AND a.type = v.type AND a.blob_key = v.blob_key`,
        values.params,
      );
    }
  }

  listSourceMapArtifacts(projectId: number, options: { limit: number; debugId?: string }): Promise<SourceMapArtifact[]> {
    const { limit, debugId } = options;
    return this.artifactsWhere(
      `project_id = $1 ${debugId === undefined ? '' : 'AND debug_id = $3'} ORDER BY uploaded_at DESC, debug_id, type LIMIT $2`,
      debugId === undefined ? [projectId, limit] : [projectId, limit, debugId],
    );
  }

  async countSourceMapArtifacts(projectId: number): Promise<number> {
    const result = await this.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM source_map_artifacts WHERE project_id = $1',
      [projectId],
    );
    return result.rows[0]!.n;
  }

  private async artifactsWhere(where: string, params: unknown[]): Promise<SourceMapArtifact[]> {
    const result = await this.db.query<{
      project_id: number;
      debug_id: string;
      type: SourceMapArtifact['type'];
      url: string;
      blob_key: string;
      size_bytes: string | number;
      bundle_checksum: string;
      uploaded_at: Date;
      last_used_at: Date | null;
    }>(`SELECT * FROM source_map_artifacts WHERE ${where}`, params);
    return result.rows.map((r) => ({
      projectId: r.project_id,
      debugId: r.debug_id,
      type: r.type,
      url: r.url,
      blobKey: r.blob_key,
      sizeBytes: Number(r.size_bytes),
      bundleChecksum: r.bundle_checksum,
      uploadedAt: r.uploaded_at,
      lastUsedAt: r.last_used_at,
    }));
  }
}

/** The index's key order: project, Debug ID, type. */
function compareKeys(a: Pick<SourceMapArtifact, 'projectId' | 'debugId' | 'type'>, b: typeof a): number {
  return a.projectId - b.projectId || compareText(a.debugId, b.debugId) || compareText(a.type, b.type);
}
