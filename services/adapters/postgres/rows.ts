// Row shapes as the SQL returns them, and their mapping to the port's records.
import type { Role } from '../../core/auth/roles.ts';
import type { Level } from '../../core/event/level.ts';
import type { ResolutionMarker } from '../../core/issues/lifecycle.ts';
import type {
  AgentToken,
  Issue,
  IssueMetadata,
  IssueStatus,
  Organization,
  Project,
  ProjectKey,
  UploadToken,
} from '../../core/ports/metadata-store.ts';
import { formatShortId } from '../../core/projects/short-id.ts';

export interface OrganizationRow {
  id: number;
  slug: string;
  name: string;
  created_at: Date;
}

export const toOrganization = (r: OrganizationRow): Organization => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  createdAt: r.created_at,
});

export interface ProjectRow {
  id: number;
  organization_id: number;
  slug: string;
  name: string;
  rate_limit_per_minute: number | null;
  created_at: Date;
}

export const PROJECT_COLUMNS = 'p.id, p.organization_id, p.slug, p.name, p.rate_limit_per_minute, p.created_at';

export const toProject = (r: ProjectRow): Project => ({
  id: r.id,
  organizationId: r.organization_id,
  slug: r.slug,
  name: r.name,
  rateLimitPerMinute: r.rate_limit_per_minute,
  createdAt: r.created_at,
});

export interface ProjectKeyRow {
  id: number;
  project_id: number;
  public_key: string;
  label: string;
  active: boolean;
  created_at: Date;
}

export const toProjectKey = (r: ProjectKeyRow): ProjectKey => ({
  id: r.id,
  projectId: r.project_id,
  publicKey: r.public_key,
  label: r.label,
  active: r.active,
  createdAt: r.created_at,
});

export interface AgentTokenRow {
  id: number;
  organization_id: number;
  project_id: number | null;
  project_slug: string | null;
  name: string;
  role: Role;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_by_email: string | null;
}

export interface UploadTokenRow {
  id: number;
  organization_id: number;
  project_id: number;
  project_slug: string;
  name: string;
  created_at: Date;
  revoked_at: Date | null;
  created_by_email: string | null;
}

export const UPLOAD_TOKEN_COLUMNS =
  'u.id, u.organization_id, u.project_id, p.slug AS project_slug, u.name, u.created_at, u.revoked_at, ' +
  'c.email AS created_by_email';

export const toUploadToken = (r: UploadTokenRow): UploadToken => ({
  id: r.id,
  organizationId: r.organization_id,
  projectId: r.project_id,
  projectSlug: r.project_slug,
  name: r.name,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  createdBy: r.created_by_email,
});

export const TOKEN_COLUMNS =
  't.id, t.organization_id, t.project_id, p.slug AS project_slug, t.name, t.role, t.created_at, t.revoked_at, t.last_used_at, ' +
  'c.email AS created_by_email';

export const toAgentToken = (r: AgentTokenRow): AgentToken => ({
  id: r.id,
  organizationId: r.organization_id,
  projectId: r.project_id,
  projectSlug: r.project_slug,
  name: r.name,
  role: r.role,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  lastUsedAt: r.last_used_at,
  createdBy: r.created_by_email,
});

export interface IssueRow {
  id: number;
  project_id: number;
  project_slug: string;
  short_number: number;
  title: string;
  culprit: string;
  level: Level;
  status: IssueStatus;
  type: 'error' | 'default';
  metadata: IssueMetadata;
  first_seen: Date;
  last_seen: Date;
  times_seen: number;
  user_count: number;
  environments: string[];
  first_release: string | null;
  last_release: string | null;
  resolution: ResolutionMarker | null;
  snooze_until: Date | null;
  regressed_at: Date | null;
  regression_release: string | null;
}

export const ISSUE_COLUMNS = `i.id, i.project_id, p.slug AS project_slug, i.short_number, i.title, i.culprit,
  i.level, i.status, i.type, i.metadata, i.first_seen, i.last_seen,
  i.times_seen, i.user_count, i.environments, i.first_release, i.last_release, i.resolution, i.snooze_until,
  i.regressed_at, i.regression_release`;

export const toIssue = (r: IssueRow): Issue => ({
  id: r.id,
  projectId: r.project_id,
  projectSlug: r.project_slug,
  shortId: formatShortId(r.project_slug, r.short_number),
  title: r.title,
  culprit: r.culprit,
  level: r.level,
  status: r.status,
  type: r.type,
  metadata: r.metadata,
  firstSeen: r.first_seen,
  lastSeen: r.last_seen,
  count: r.times_seen,
  userCount: r.user_count,
  environments: r.environments,
  firstRelease: r.first_release,
  lastRelease: r.last_release,
  resolution: r.resolution,
  snoozeUntil: r.snooze_until,
  regressedAt: r.regressed_at,
  regressionRelease: r.regression_release,
});
