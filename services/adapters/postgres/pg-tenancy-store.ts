// TenancyStore over SQL (PGlite standalone, Postgres distributed): organizations, projects and
// their DSN keys. A slice of PgMetadataStore; it does not own the SqlClient.
import { ConflictError } from '../../core/errors.ts';
import type { GroupingRuleTexts, Organization, Project, ProjectKey, TenancyStore } from '../../core/ports/tenancy-store.ts';
import { isUniqueViolation } from './pg-errors.ts';
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
