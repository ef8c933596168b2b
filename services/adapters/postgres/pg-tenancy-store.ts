// TenancyStore over SQL (PGlite standalone, Postgres distributed): organizations, projects and
// their DSN keys. A slice of PgMetadataStore; it does not own the SqlClient.
import { ConflictError } from '../../core/errors.ts';
import type {
  DeletedProject,
  GroupingRuleTexts,
  Organization,
  Project,
  ProjectKey,
  TenancyStore,
} from '../../core/ports/tenancy-store.ts';
import { isUniqueViolation } from './pg-errors.ts';
import { deletePartSql, deleteWhileFull } from './delete-in-parts.ts';
import { lockProjectAlone } from './project-locks.ts';
import {
  PROJECT_COLUMNS,
  toOrganization,
  toProject,
  toProjectKey,
  type OrganizationRow,
  type ProjectKeyRow,
  type ProjectRow,
} from './rows.ts';
import type { SqlClient } from './sql-client.ts';

/** Issues deleted per transaction when their project is. */
const DELETE_ISSUES_PART = 1000;

/** Counted event ids deleted per statement when a deleted project is forgotten. */
const FORGET_PART_ROWS = 10_000;

export class PgTenancyStore implements TenancyStore {
  constructor(private readonly db: SqlClient) {}

  async ensureOrganization(slug: string, name: string): Promise<Organization> {
    await this.db.query('INSERT INTO organizations (slug, name) VALUES ($1, $2) ON CONFLICT (slug) DO NOTHING', [slug, name]);
    return (await this.findOrganization(slug))!;
  }

  async findOrganization(slug: string): Promise<Organization | undefined> {
    const result = await this.db.query<OrganizationRow>('SELECT * FROM organizations WHERE slug = $1', [slug]);
    return result.rows[0] && toOrganization(result.rows[0]);
  }

  async getOrganization(id: number): Promise<Organization | undefined> {
    const result = await this.db.query<OrganizationRow>('SELECT * FROM organizations WHERE id = $1', [id]);
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

  async deleteProject(projectId: number, at: Date): Promise<{ publicKeys: string[] } | undefined> {
    // Its issues first, in parts, each a transaction of its own: one cascade over all of a large
    // project's issues (their hashes, users, tag values, activity) could outrun the statement
    // timeout, every time. Each part, and the last transaction, holds the project's lock alone,
    // which batches and the other writers of its issues take shared first (project-locks.ts).
    // Rows are locked in id order, as triage and snooze expiry lock them (pg-issue-store.ts), which
    // do not take the project's lock: in the table's order the two could deadlock.
    await deleteWhileFull(DELETE_ISSUES_PART, () =>
      this.db.transaction(async (tx) => {
        await lockProjectAlone(tx, projectId);
        const part = await tx.query(
          `DELETE FROM issues WHERE id IN (SELECT id FROM issues WHERE project_id = $1 ORDER BY id LIMIT ${DELETE_ISSUES_PART} FOR UPDATE)`,
          [projectId],
        );
        return part.affectedRows;
      }),
    );
    return this.db.transaction(async (tx) => {
      await lockProjectAlone(tx, projectId);
      // The keys first, returned: read before the project's delete, a key added in between went unnamed.
      const keys = await tx.query<{ public_key: string }>('DELETE FROM project_keys WHERE project_id = $1 RETURNING public_key', [
        projectId,
      ]);
      // Everything with a foreign key to the project goes with it (ON DELETE CASCADE).
      const deleted = await tx.query<{ organization_id: number; slug: string }>(
        'DELETE FROM projects WHERE id = $1 RETURNING organization_id, slug',
        [projectId],
      );
      const row = deleted.rows[0];
      if (!row) return undefined;
      await tx.query('INSERT INTO deleted_projects (project_id, organization_id, slug, deleted_at) VALUES ($1, $2, $3, $4)', [
        projectId,
        row.organization_id,
        row.slug,
        at,
      ]);
      // Alerts not yet sent would link to pages that are gone; those sent stay in their channel's
      // history. One being sent now (claimed) goes on, since its attempt is recorded against its row.
      await tx.query(
        `DELETE FROM alert_deliveries WHERE project_id = $1 AND status IN ('pending', 'held')
           AND (claimed_until IS NULL OR claimed_until <= now())`,
        [projectId],
      );
      return { publicKeys: keys.rows.map((key) => key.public_key) };
    });
  }

  async listDeletedProjects(before: Date, limit: number): Promise<DeletedProject[]> {
    const result = await this.db.query<{ project_id: number; organization_id: number; slug: string; deleted_at: Date }>(
      'SELECT * FROM deleted_projects WHERE deleted_at < $1 ORDER BY deleted_at, project_id LIMIT $2',
      [before, limit],
    );
    return result.rows.map((row) => ({
      projectId: row.project_id,
      organizationId: row.organization_id,
      slug: row.slug,
      deletedAt: row.deleted_at,
    }));
  }

  async forgetDeletedProject(projectId: number): Promise<void> {
    // In parts: a project counted an event id for every event it kept.
    const part = deletePartSql('processed_events', 'project_id = $1', FORGET_PART_ROWS);
    await deleteWhileFull(FORGET_PART_ROWS, async () => (await this.db.query(part, [projectId])).affectedRows);
    // Its alerts left unsent: claimed at the delete and then to be retried, or added just after.
    await this.db.query(`DELETE FROM alert_deliveries WHERE project_id = $1 AND status IN ('pending', 'held')`, [projectId]);
    await this.db.query('DELETE FROM deleted_projects WHERE project_id = $1', [projectId]);
  }

  async renameProject(projectId: number, name: string): Promise<Project | undefined> {
    const result = await this.db.query<ProjectRow>(
      `UPDATE projects p SET name = $2 WHERE p.id = $1 RETURNING ${PROJECT_COLUMNS}`,
      [projectId, name],
    );
    return result.rows[0] && toProject(result.rows[0]);
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

  async createProjectKey(projectId: number, key: { publicKey: string; label: string }): Promise<ProjectKey> {
    const result = await this.db.query<ProjectKeyRow>(
      'INSERT INTO project_keys (project_id, public_key, label) VALUES ($1, $2, $3) RETURNING *',
      [projectId, key.publicKey, key.label],
    );
    return toProjectKey(result.rows[0]!);
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

  async getGroupingRules(projectId: number): Promise<GroupingRuleTexts> {
    const result = await this.db.query<{ fingerprint_rules: string; stack_trace_rules: string }>(
      'SELECT fingerprint_rules, stack_trace_rules FROM project_grouping_rules WHERE project_id = $1',
      [projectId],
    );
    const row = result.rows[0];
    return { fingerprintRules: row?.fingerprint_rules ?? '', stackTraceRules: row?.stack_trace_rules ?? '' };
  }

  async setGroupingRules(projectId: number, texts: Partial<GroupingRuleTexts>): Promise<GroupingRuleTexts> {
    // A text left out keeps its stored value (COALESCE with the NULL passed for it).
    const result = await this.db.query<{ fingerprint_rules: string; stack_trace_rules: string }>(
      `INSERT INTO project_grouping_rules AS r (project_id, fingerprint_rules, stack_trace_rules)
       VALUES ($1, COALESCE($2, ''), COALESCE($3, ''))
       ON CONFLICT (project_id) DO UPDATE SET
         fingerprint_rules = COALESCE($2, r.fingerprint_rules),
         stack_trace_rules = COALESCE($3, r.stack_trace_rules),
         updated_at = now()
       RETURNING fingerprint_rules, stack_trace_rules`,
      [projectId, texts.fingerprintRules ?? null, texts.stackTraceRules ?? null],
    );
    const row = result.rows[0]!;
    return { fingerprintRules: row.fingerprint_rules, stackTraceRules: row.stack_trace_rules };
  }
}
