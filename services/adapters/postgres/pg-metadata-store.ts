// MetadataStore over SQL (PGlite standalone, Postgres distributed): organizations, projects,
// keys, agent tokens, issues and releases. It does not own the SqlClient: whoever opened the
// database (runtime/compose.ts) closes it.
import type { Role } from '../../core/auth/roles.ts';
import { ConflictError } from '../../core/errors.ts';
import type { ActivityKind } from '../../core/issues/lifecycle.ts';
import type { Occurrence, OccurrenceResult } from '../../core/issues/occurrence.ts';
import type {
  AgentToken,
  Issue,
  IssueActivity,
  IssueChange,
  IssueQuery,
  MetadataStore,
  Organization,
  Project,
  ProjectKey,
  Release,
  AssemblyState,
  BundleAssembly,
  SourceMapArtifact,
  UploadToken,
} from '../../core/ports/metadata-store.ts';
import { decodeCursor, encodeCursor, type Page } from '../../core/ports/page.ts';
import { insertActivity, SYSTEM_ACTOR } from './issue-activity.ts';
import { lockHashKeys, recordOccurrences } from './record-occurrences.ts';
import {
  ISSUE_COLUMNS,
  PROJECT_COLUMNS,
  TOKEN_COLUMNS,
  UPLOAD_TOKEN_COLUMNS,
  toAgentToken,
  toUploadToken,
  toIssue,
  toOrganization,
  toProject,
  toProjectKey,
  type AgentTokenRow,
  type IssueRow,
  type OrganizationRow,
  type ProjectKeyRow,
  type ProjectRow,
  type UploadTokenRow,
} from './rows.ts';
import { chunk, containsPattern, jsonParam, valuesList, type SqlClient } from './sql-client.ts';

const UNIQUE_VIOLATION = '23505';

export class PgMetadataStore implements MetadataStore {
  constructor(private readonly db: SqlClient) {}

  async ensureOrganization(slug: string, name: string): Promise<Organization> {
    await this.db.query('INSERT INTO organizations (slug, name) VALUES ($1, $2) ON CONFLICT (slug) DO NOTHING', [slug, name]);
    return (await this.findOrganization(slug))!;
  }

  async findOrganization(slug: string): Promise<Organization | undefined> {
    const result = await this.db.query<OrganizationRow>('SELECT * FROM organizations WHERE slug = $1', [slug]);
    return result.rows[0] && toOrganization(result.rows[0]);
  }

  async listOrganizations(): Promise<Organization[]> {
    const result = await this.db.query<OrganizationRow>('SELECT * FROM organizations ORDER BY id');
    return result.rows.map(toOrganization);
  }

  async createProject(
    project: { organizationId: number; slug: string; name: string },
    key: { publicKey: string; label: string },
  ): Promise<{ project: Project; key: ProjectKey }> {
    try {
      return await this.db.transaction(async (tx) => {
        const created = await tx.query<ProjectRow>(
          `INSERT INTO projects AS p (organization_id, slug, name) VALUES ($1, $2, $3) RETURNING ${PROJECT_COLUMNS}`,
          [project.organizationId, project.slug, project.name],
        );
        const row = created.rows[0]!;
        const keyRow = await tx.query<ProjectKeyRow>(
          'INSERT INTO project_keys (project_id, public_key, label) VALUES ($1, $2, $3) RETURNING *',
          [row.id, key.publicKey, key.label],
        );
        return { project: toProject(row), key: toProjectKey(keyRow.rows[0]!) };
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ConflictError(`a project with slug "${project.slug}" already exists: pick another --slug`);
      }
      throw error;
    }
  }

  async findProject(organizationId: number, slug: string): Promise<Project | undefined> {
    const result = await this.db.query<ProjectRow>(
      `SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.organization_id = $1 AND p.slug = $2`,
      [organizationId, slug],
    );
    return result.rows[0] && toProject(result.rows[0]);
  }

  async getProject(id: number): Promise<Project | undefined> {
    const result = await this.db.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.id = $1`, [id]);
    return result.rows[0] && toProject(result.rows[0]);
  }

  async listProjects(organizationId: number): Promise<Project[]> {
    const result = await this.db.query<ProjectRow>(
      `SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.organization_id = $1 ORDER BY p.slug`,
      [organizationId],
    );
    return result.rows.map(toProject);
  }

  async setProjectRateLimit(projectId: number, perMinute: number | null): Promise<void> {
    await this.db.query('UPDATE projects SET rate_limit_per_minute = $2 WHERE id = $1', [projectId, perMinute]);
  }

  async listProjectKeys(projectId: number): Promise<ProjectKey[]> {
    const result = await this.db.query<ProjectKeyRow>('SELECT * FROM project_keys WHERE project_id = $1 ORDER BY id', [
      projectId,
    ]);
    return result.rows.map(toProjectKey);
  }

  async setProjectKeyActive(publicKey: string, active: boolean): Promise<ProjectKey | undefined> {
    const result = await this.db.query<ProjectKeyRow>('UPDATE project_keys SET active = $2 WHERE public_key = $1 RETURNING *', [
      publicKey,
      active,
    ]);
    return result.rows[0] && toProjectKey(result.rows[0]);
  }

  async findProjectKey(publicKey: string): Promise<{ key: ProjectKey; project: Project } | undefined> {
    const result = await this.db.query<ProjectKeyRow & { project_created_at: Date } & Omit<ProjectRow, 'id' | 'created_at'>>(
      `SELECT k.*, p.organization_id, p.slug, p.name, p.rate_limit_per_minute, p.created_at AS project_created_at
       FROM project_keys k JOIN projects p ON p.id = k.project_id WHERE k.public_key = $1`,
      [publicKey],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    const project = toProject({ ...row, id: row.project_id, created_at: row.project_created_at });
    return { key: toProjectKey(row), project };
  }

  async createAgentToken(token: {
    organizationId: number;
    projectId: number | null;
    name: string;
    role: Role;
    tokenHash: string;
  }): Promise<AgentToken> {
    try {
      const inserted = await this.db.query<{ id: number }>(
        `INSERT INTO agent_tokens (organization_id, project_id, name, role, token_hash)
         VALUES ($1, $2, $3, $4, $5) RETURNING id`,
        [token.organizationId, token.projectId, token.name, token.role, token.tokenHash],
      );
      return (await this.tokenWhere('t.id = $1', [inserted.rows[0]!.id]))[0]!;
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ConflictError(`a token named "${token.name}" already exists: pick another --name or revoke the old one`);
      }
      throw error;
    }
  }

  async findAgentToken(tokenHash: string): Promise<AgentToken | undefined> {
    return (await this.tokenWhere('t.token_hash = $1 AND t.revoked_at IS NULL', [tokenHash]))[0];
  }

  async revokeAgentToken(organizationId: number, name: string): Promise<AgentToken | undefined> {
    const updated = await this.db.query<{ id: number }>(
      `UPDATE agent_tokens SET revoked_at = now()
       WHERE organization_id = $1 AND name = $2 AND revoked_at IS NULL RETURNING id`,
      [organizationId, name],
    );
    const id = updated.rows[0]?.id;
    return id === undefined ? undefined : (await this.tokenWhere('t.id = $1', [id]))[0];
  }

  async listAgentTokens(organizationId: number): Promise<AgentToken[]> {
    return this.tokenWhere('t.organization_id = $1 ORDER BY t.created_at, t.id', [organizationId]);
  }

  private async tokenWhere(where: string, params: unknown[]): Promise<AgentToken[]> {
    const result = await this.db.query<AgentTokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM agent_tokens t LEFT JOIN projects p ON p.id = t.project_id WHERE ${where}`,
      params,
    );
    return result.rows.map(toAgentToken);
  }

  async createUploadToken(token: {
    organizationId: number;
    projectId: number;
    name: string;
    tokenHash: string;
  }): Promise<UploadToken> {
    try {
      const inserted = await this.db.query<{ id: number }>(
        'INSERT INTO upload_tokens (organization_id, project_id, name, token_hash) VALUES ($1, $2, $3, $4) RETURNING id',
        [token.organizationId, token.projectId, token.name, token.tokenHash],
      );
      return (await this.uploadTokenWhere('u.id = $1', [inserted.rows[0]!.id]))[0]!;
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ConflictError(
          `an upload token named "${token.name}" already exists: pick another --name or revoke the old one`,
        );
      }
      throw error;
    }
  }

  async findUploadToken(tokenHash: string): Promise<UploadToken | undefined> {
    return (await this.uploadTokenWhere('u.token_hash = $1 AND u.revoked_at IS NULL', [tokenHash]))[0];
  }

  async revokeUploadToken(organizationId: number, name: string): Promise<UploadToken | undefined> {
    const updated = await this.db.query<{ id: number }>(
      `UPDATE upload_tokens SET revoked_at = now()
       WHERE organization_id = $1 AND name = $2 AND revoked_at IS NULL RETURNING id`,
      [organizationId, name],
    );
    const id = updated.rows[0]?.id;
    return id === undefined ? undefined : (await this.uploadTokenWhere('u.id = $1', [id]))[0];
  }

  async listUploadTokens(organizationId: number): Promise<UploadToken[]> {
    return this.uploadTokenWhere('u.organization_id = $1 ORDER BY u.created_at, u.id', [organizationId]);
  }

  private async uploadTokenWhere(where: string, params: unknown[]): Promise<UploadToken[]> {
    const result = await this.db.query<UploadTokenRow>(
      `SELECT ${UPLOAD_TOKEN_COLUMNS} FROM upload_tokens u JOIN projects p ON p.id = u.project_id WHERE ${where}`,
      params,
    );
    return result.rows.map(toUploadToken);
  }

  async claimAssembly(projectId: number, checksum: string, staleBefore: Date): Promise<boolean> {
    const claimed = await this.db.query(
      `INSERT INTO bundle_assemblies AS a (project_id, checksum, state) VALUES ($1, $2, 'assembling')
       ON CONFLICT (project_id, checksum) DO UPDATE SET state = 'assembling', detail = NULL, updated_at = now()
         WHERE a.state = 'assembling' AND a.updated_at < $3
       RETURNING 1`,
      [projectId, checksum, staleBefore],
    );
    return claimed.rows.length === 1;
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

  async saveSourceMapArtifacts(artifacts: Array<Omit<SourceMapArtifact, 'uploadedAt' | 'lastUsedAt'>>): Promise<void> {
    for (const part of chunk(artifacts, 500)) {
      const values = valuesList(
        part.map((a) => [a.projectId, a.debugId, a.type, a.url, a.blobKey, a.sizeBytes, a.bundleChecksum]),
        ['integer', 'text', 'text', 'text', 'text', 'bigint', 'text'],
      );
      await this.db.query(
        `INSERT INTO source_map_artifacts (project_id, debug_id, type, url, blob_key, size_bytes, bundle_checksum)
         VALUES ${values.sql}
         ON CONFLICT (project_id, debug_id, type) DO UPDATE SET url = EXCLUDED.url, blob_key = EXCLUDED.blob_key,
           size_bytes = EXCLUDED.size_bytes, bundle_checksum = EXCLUDED.bundle_checksum, uploaded_at = now()`,
        values.params,
      );
    }
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

  async deleteSourceMapArtifacts(artifacts: Array<Pick<SourceMapArtifact, 'projectId' | 'debugId' | 'type'>>): Promise<void> {
    for (const part of chunk(artifacts, 500)) {
      const values = valuesList(
        part.map((a) => [a.projectId, a.debugId, a.type]),
        ['integer', 'text', 'text'],
      );
      await this.db.query(
        `DELETE FROM source_map_artifacts a USING (VALUES ${values.sql}) AS v (project_id, debug_id, type)
         WHERE a.project_id = v.project_id AND a.debug_id = v.debug_id AND a.type = v.type`,
        values.params,
      );
    }
  }

  listSourceMapArtifacts(projectId: number): Promise<SourceMapArtifact[]> {
    return this.artifactsWhere('project_id = $1 ORDER BY uploaded_at DESC, debug_id, type', [projectId]);
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

  recordOccurrences(batch: Occurrence[]): Promise<OccurrenceResult[]> {
    if (batch.length === 0) return Promise.resolve([]);
    return this.db.transaction((tx) => recordOccurrences(tx, batch));
  }

  async listIssues(query: IssueQuery): Promise<Page<Issue>> {
    const conditions = ['i.project_id = $1'];
    const params: unknown[] = [query.projectId];
    const add = (condition: (n: number) => string, value: unknown) => {
      params.push(value);
      conditions.push(condition(params.length));
    };
    const status = query.status ?? 'unresolved';
    if (status !== 'all') add((n) => `i.status = $${n}`, status);
    if (query.level) add((n) => `i.level = $${n}`, query.level);
    if (query.text) add((n) => `(i.title ILIKE $${n} OR i.culprit ILIKE $${n})`, containsPattern(query.text));
    if (query.firstSeenSince) add((n) => `i.first_seen >= $${n}`, query.firstSeenSince);
    if (query.regressedSince) add((n) => `i.regressed_at >= $${n}`, query.regressedSince);
    if (query.firstRelease) add((n) => `i.first_release = $${n}`, query.firstRelease);
    if (query.regressionRelease) add((n) => `i.regression_release = $${n}`, query.regressionRelease);
    if (query.cursor) {
      const [lastSeen, id] = decodeCursor(query.cursor, ['string', 'number']);
      params.push(lastSeen, id);
      conditions.push(`(i.last_seen, i.id) < ($${params.length - 1}::timestamptz, $${params.length})`);
    }
    params.push(query.limit + 1);
    const result = await this.db.query<IssueRow>(
      `SELECT ${ISSUE_COLUMNS} FROM issues i JOIN projects p ON p.id = i.project_id
       WHERE ${conditions.join(' AND ')} ORDER BY i.last_seen DESC, i.id DESC LIMIT $${params.length}`,
      params,
    );
    const rows = result.rows.slice(0, query.limit);
    const last = rows[rows.length - 1];
    return {
      items: rows.map(toIssue),
      nextCursor: result.rows.length > query.limit && last ? encodeCursor([last.last_seen_cursor, last.id]) : undefined,
    };
  }

  async findIssue(projectId: number, shortNumber: number): Promise<Issue | undefined> {
    const result = await this.db.query<IssueRow>(
      `SELECT ${ISSUE_COLUMNS} FROM issues i JOIN projects p ON p.id = i.project_id
       WHERE i.project_id = $1 AND i.short_number = $2`,
      [projectId, shortNumber],
    );
    return result.rows[0] && toIssue(result.rows[0]);
  }

  async getIssue(id: number): Promise<Issue | undefined> {
    const result = await this.db.query<IssueRow>(
      `SELECT ${ISSUE_COLUMNS} FROM issues i JOIN projects p ON p.id = i.project_id WHERE i.id = $1`,
      [id],
    );
    return result.rows[0] && toIssue(result.rows[0]);
  }

  changeIssues(projectId: number, issueIds: number[], change: IssueChange): Promise<number[]> {
    if (issueIds.length === 0) return Promise.resolve([]);
    return this.db.transaction(async (tx) => {
      // The old status comes from a locking read in id order, so "changed" is exact under
      // concurrency. NO KEY UPDATE: keys do not change, and a plain FOR UPDATE would also block
      // (and deadlock with) the event pipeline inserting users and hashes of these issues.
      const changed = await tx.query<{ id: number; changed: boolean }>(
        `WITH old AS (
           SELECT id, status FROM issues WHERE project_id = $1 AND id = ANY($2::int[]) ORDER BY id FOR NO KEY UPDATE
         )
         UPDATE issues i SET status = $3, resolution = $4::jsonb, snooze_until = $5
         FROM old WHERE i.id = old.id
         RETURNING i.id, old.status <> $3 AS changed`,
        [
          projectId,
          issueIds,
          change.state.status,
          change.state.resolution && jsonParam(change.state.resolution),
          change.state.snoozeUntil,
        ],
      );
      const ids = changed.rows.map((r) => r.id);
      await insertActivity(
        tx,
        ids.map((id) => ({ issueId: id, at: change.at, actor: change.actor, kind: change.kind, details: change.details })),
      );
      return changed.rows.filter((r) => r.changed).map((r) => r.id);
    });
  }

  deleteIssues(projectId: number, issueIds: number[]): Promise<number> {
    if (issueIds.length === 0) return Promise.resolve(0);
    return this.db.transaction(async (tx) => {
      // The event pipeline's lock on each of the issues' hashes (record-occurrences.ts, same keys,
      // same order): a batch that found one of these issues finishes first, and the next one
      // finds no issue and starts a new one, instead of updating a row that is gone.
      const hashes = await tx.query<{ key: string }>(
        `SELECT project_id || ':' || hash AS key FROM issue_hashes WHERE project_id = $1 AND issue_id = ANY($2::int[])`,
        [projectId, issueIds],
      );
      await lockHashKeys(
        tx,
        hashes.rows.map((r) => r.key),
      );
      // Hashes, users and activity go by cascade; the counted event ids would only point nowhere.
      await tx.query('DELETE FROM processed_events WHERE project_id = $1 AND issue_id = ANY($2::int[])', [projectId, issueIds]);
      const deleted = await tx.query('DELETE FROM issues WHERE project_id = $1 AND id = ANY($2::int[])', [projectId, issueIds]);
      return deleted.affectedRows;
    });
  }

  async listIssueActivity(issueId: number, limit: number): Promise<IssueActivity[]> {
    const result = await this.db.query<{
      id: number;
      issue_id: number;
      at: Date;
      actor: string;
      kind: ActivityKind;
      details: Record<string, unknown>;
    }>('SELECT * FROM issue_activity WHERE issue_id = $1 ORDER BY id DESC LIMIT $2', [issueId, limit]);
    return result.rows.map((r) => ({
      id: r.id,
      issueId: r.issue_id,
      at: r.at,
      actor: r.actor,
      kind: r.kind,
      details: r.details,
    }));
  }

  expireSnoozes(now: Date): Promise<number> {
    return this.db.transaction(async (tx) => {
      const expired = await tx.query<{ id: number; snooze_until: Date }>(
        `WITH due AS (
           SELECT id, snooze_until FROM issues WHERE status = 'snoozed' AND snooze_until <= $1 ORDER BY id FOR NO KEY UPDATE
         )
         UPDATE issues i SET status = 'unresolved', snooze_until = NULL FROM due WHERE i.id = due.id
         RETURNING i.id, due.snooze_until`,
        [now],
      );
      await insertActivity(
        tx,
        expired.rows.map((r) => ({
          issueId: r.id,
          at: now,
          actor: SYSTEM_ACTOR,
          kind: 'snooze_expired' as const,
          details: { snoozeUntil: r.snooze_until.toISOString() },
        })),
      );
      return expired.rows.length;
    });
  }

  async listReleases(projectId: number): Promise<Release[]> {
    const result = await this.db.query<ReleaseRow>('SELECT * FROM releases WHERE project_id = $1 ORDER BY first_seen DESC', [
      projectId,
    ]);
    return result.rows.map(toRelease);
  }

  async findRelease(projectId: number, version: string): Promise<Release | undefined> {
    const result = await this.db.query<ReleaseRow>('SELECT * FROM releases WHERE project_id = $1 AND version = $2', [
      projectId,
      version,
    ]);
    return result.rows[0] && toRelease(result.rows[0]);
  }

  async forgetProcessedEventsBefore(cutoff: number): Promise<number> {
    const result = await this.db.query('DELETE FROM processed_events WHERE received_at < to_timestamp($1::float8)', [cutoff]);
    return result.affectedRows;
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }
}

interface ReleaseRow {
  project_id: number;
  version: string;
  first_seen: Date;
  last_seen: Date;
}

const toRelease = (r: ReleaseRow): Release => ({
  projectId: r.project_id,
  version: r.version,
  firstSeen: r.first_seen,
  lastSeen: r.last_seen,
});

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === UNIQUE_VIOLATION;
}
