// MetadataStore port: organizations, projects, DSN keys, agent tokens, issues and releases.
// PGlite standalone, Postgres distributed, one SQL implementation (adapters/postgres).
import type { Role } from '../auth/roles.ts';
import type { Level } from '../event/level.ts';
import type { ActivityKind, IssueState, ResolutionMarker } from '../issues/lifecycle.ts';
import type { OccurrenceBatch, OccurrenceResult } from '../issues/occurrence.ts';
import type { Page } from './page.ts';

export interface Organization {
  id: number;
  slug: string;
  name: string;
  createdAt: Date;
}

export interface Project {
  id: number;
  organizationId: number;
  slug: string;
  name: string;
  /** Events per minute accepted by ingest; null means the instance default. */
  rateLimitPerMinute: number | null;
  createdAt: Date;
}

export interface ProjectKey {
  id: number;
  projectId: number;
  publicKey: string;
  label: string;
  active: boolean;
  createdAt: Date;
}

export interface AgentToken {
  id: number;
  organizationId: number;
  /** Null for an organization-wide token. */
  projectId: number | null;
  projectSlug: string | null;
  name: string;
  role: Role;
  createdAt: Date;
  revokedAt: Date | null;
}

/** A project-scoped token for the source map upload tools (`errata_...`). */
export interface UploadToken {
  id: number;
  organizationId: number;
  projectId: number;
  projectSlug: string;
  name: string;
  createdAt: Date;
  revokedAt: Date | null;
}

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

export const ISSUE_STATUSES = ['unresolved', 'resolved', 'ignored', 'snoozed'] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];

export interface IssueMetadata {
  type?: string;
  value?: string;
  filename?: string;
  function?: string;
}

export interface Issue {
  id: number;
  projectId: number;
  projectSlug: string;
  shortId: string;
  title: string;
  culprit: string;
  level: Level;
  status: IssueStatus;
  type: 'error' | 'default';
  metadata: IssueMetadata;
  firstSeen: Date;
  lastSeen: Date;
  count: number;
  userCount: number;
  environments: string[];
  firstRelease: string | null;
  lastRelease: string | null;
  /** Stamped by the last resolve; kept through a regression, cleared by any other action. */
  resolution: ResolutionMarker | null;
  snoozeUntil: Date | null;
  /** The last time an event regressed the issue, and that event's release. */
  regressedAt: Date | null;
  regressionRelease: string | null;
}

export interface IssueActivity {
  id: number;
  issueId: number;
  at: Date;
  actor: string;
  kind: ActivityKind;
  details: Record<string, unknown>;
}

/** A triage action to apply to some issues, with the activity entry it leaves. */
export interface IssueChange {
  state: IssueState;
  at: Date;
  actor: string;
  kind: ActivityKind;
  details: Record<string, unknown>;
}

export interface IssueQuery {
  projectId: number;
  status?: IssueStatus | 'all';
  level?: Level;
  /** Case-insensitive text searched in the title and culprit. */
  text?: string;
  /** Issues first seen at or after this moment (whats_new). */
  firstSeenSince?: Date;
  /** Issues that regressed at or after this moment (whats_new). */
  regressedSince?: Date;
  /** Issues whose first event came with this release. */
  firstRelease?: string;
  /** Issues whose last regression came with this release. */
  regressionRelease?: string;
  limit: number;
  cursor?: string;
}

export interface Release {
  projectId: number;
  version: string;
  firstSeen: Date;
  lastSeen: Date;
}

export interface MetadataStore {
  ensureOrganization(slug: string, name: string): Promise<Organization>;
  findOrganization(slug: string): Promise<Organization | undefined>;
  listOrganizations(): Promise<Organization[]>;

  /** Creates the project and its first DSN key together; ConflictError when the slug is taken. */
  createProject(
    project: { organizationId: number; slug: string; name: string },
    key: { publicKey: string; label: string },
  ): Promise<{ project: Project; key: ProjectKey }>;
  findProject(organizationId: number, slug: string): Promise<Project | undefined>;
  getProject(id: number): Promise<Project | undefined>;
  listProjects(organizationId: number): Promise<Project[]>;
  setProjectRateLimit(projectId: number, perMinute: number | null): Promise<void>;
  listProjectKeys(projectId: number): Promise<ProjectKey[]>;
  /** Enables or disables a DSN key; the updated key, or undefined when there is none. */
  setProjectKeyActive(publicKey: string, active: boolean): Promise<ProjectKey | undefined>;
  findProjectKey(publicKey: string): Promise<{ key: ProjectKey; project: Project } | undefined>;

  /** ConflictError when a live token of that name exists in the organization. */
  createAgentToken(token: {
    organizationId: number;
    projectId: number | null;
    name: string;
    role: Role;
    tokenHash: string;
  }): Promise<AgentToken>;
  /** The live (unrevoked) token with this hash. */
  findAgentToken(tokenHash: string): Promise<AgentToken | undefined>;
  revokeAgentToken(organizationId: number, name: string): Promise<AgentToken | undefined>;
  listAgentTokens(organizationId: number): Promise<AgentToken[]>;

  /** ConflictError when a live upload token of that name exists in the organization. */
  createUploadToken(token: { organizationId: number; projectId: number; name: string; tokenHash: string }): Promise<UploadToken>;
  /** The live (unrevoked) upload token with this hash. */
  findUploadToken(tokenHash: string): Promise<UploadToken | undefined>;
  revokeUploadToken(organizationId: number, name: string): Promise<UploadToken | undefined>;
  listUploadTokens(organizationId: number): Promise<UploadToken[]>;

  /**
   * Claims the assembly of a bundle: true when this caller should assemble it (no state yet, or
   * an assembly that stopped updating before `staleBefore`, its process presumably gone).
   */
  claimAssembly(projectId: number, checksum: string, staleBefore: Date): Promise<boolean>;
  finishAssembly(projectId: number, checksum: string, state: 'ok' | 'error', detail: string | null): Promise<void>;
  getAssembly(projectId: number, checksum: string): Promise<BundleAssembly | undefined>;
  /** Forgets assemblies, so that uploading those bundles again stores them again. */
  forgetAssemblies(projectId: number, checksums: string[]): Promise<void>;
  /** Inserts or replaces the index entries (by project, debug id and type). */
  saveSourceMapArtifacts(artifacts: Array<Omit<SourceMapArtifact, 'uploadedAt' | 'lastUsedAt'>>): Promise<void>;
  listSourceMapArtifacts(projectId: number): Promise<SourceMapArtifact[]>;
  findSourceMapArtifact(
    projectId: number,
    debugId: string,
    type: SourceMapArtifact['type'],
  ): Promise<SourceMapArtifact | undefined>;
  /** Artifacts whose last use (or upload, if never used) is before the cutoff, oldest first. */
  listSourceMapArtifactsUnusedSince(cutoff: Date, limit: number): Promise<SourceMapArtifact[]>;
  deleteSourceMapArtifacts(artifacts: Array<Pick<SourceMapArtifact, 'projectId' | 'debugId' | 'type'>>): Promise<void>;
  /** Records that these maps symbolicated an event at `at` (retention keeps maps in use). */
  touchSourceMapArtifacts(projectId: number, debugIds: string[], at: Date): Promise<void>;

  /** Applies a batch of event occurrences atomically; idempotent by (project, event id). */
  recordOccurrences(batch: OccurrenceBatch): Promise<OccurrenceResult[]>;
  listIssues(query: IssueQuery): Promise<Page<Issue>>;
  findIssue(projectId: number, shortNumber: number): Promise<Issue | undefined>;
  getIssue(id: number): Promise<Issue | undefined>;
  /** Applies a triage action to the issues of one project; returns the ids whose status changed. */
  changeIssues(projectId: number, issueIds: number[], change: IssueChange): Promise<number[]>;
  /** Removes issues with their hashes, users and activity; a later event with their fingerprint starts a new issue. */
  deleteIssues(projectId: number, issueIds: number[]): Promise<number>;
  /** Newest first. */
  listIssueActivity(issueId: number, limit: number): Promise<IssueActivity[]>;
  /** Snoozed issues whose snooze ended by `now` go back to unresolved; returns how many. */
  expireSnoozes(now: Date): Promise<number>;
  listReleases(projectId: number): Promise<Release[]>;
  findRelease(projectId: number, version: string): Promise<Release | undefined>;

  /** Resolves when the store answers; used by /healthz. */
  /** Forgets which event ids were counted before the cutoff (float seconds): retention. */
  forgetProcessedEventsBefore(cutoff: number): Promise<number>;
  ping(): Promise<void>;
}
