// TenancyStore port, a slice of the MetadataStore: organizations, their projects and each
// project's DSN keys. Ingest finds the project of a DSN key; the mcp role resolves the
// organization and project a request names; the dispatcher reads projects for alerts; the CLI
// creates them. One SQL implementation (adapters/postgres/pg-tenancy-store.ts).

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

/** A project deleted whose events, logs, counted event ids and files may still be stored. */
export interface DeletedProject {
  projectId: number;
  organizationId: number;
  slug: string;
  deletedAt: Date;
}

/** A project's grouping rules as the user wrote them (Sentry's text syntax); '' when none. */
export interface GroupingRuleTexts {
  fingerprintRules: string;
  stackTraceRules: string;
}

export interface TenancyStore {
  ensureOrganization(slug: string, name: string): Promise<Organization>;
  findOrganization(slug: string): Promise<Organization | undefined>;
  getOrganization(id: number): Promise<Organization | undefined>;
  listOrganizations(): Promise<Organization[]>;

  /** Creates the project and its first DSN key together; ConflictError when the slug is taken. */
  createProject(
    project: { organizationId: number; slug: string; name: string },
    key: { publicKey: string; label: string },
  ): Promise<{ project: Project; key: ProjectKey }>;
  findProject(organizationId: number, slug: string): Promise<Project | undefined>;
  getProject(id: number): Promise<Project | undefined>;
  listProjects(organizationId: number): Promise<Project[]>;
  /**
   * Deletes the project, and with it its DSN keys, tokens, issues, releases, rules, source map
   * index and undelivered alerts; its slug is free again at once. Its events, logs, counted event
   * ids and files stay, listed by listDeletedProjects, until forgetDeletedProject. Returns the
   * public keys it had (for key caches), or undefined when there is no such project.
   */
  deleteProject(projectId: number, at: Date): Promise<{ publicKeys: string[] } | undefined>;
  /** Projects deleted before `before`, oldest first, at most `limit`. */
  listDeletedProjects(before: Date, limit: number): Promise<DeletedProject[]>;
  /** Forgets the project's counted event ids and unsent alerts, then the project: the rest of its data is gone. */
  forgetDeletedProject(projectId: number): Promise<void>;
  setProjectRateLimit(projectId: number, perMinute: number | null): Promise<void>;
  /** Gives the project another name (its slug stays); the project as now stored, or undefined when there is none. */
  renameProject(projectId: number, name: string): Promise<Project | undefined>;
  listProjectKeys(projectId: number): Promise<ProjectKey[]>;
  /** Adds an active DSN key to the project (a second DSN, e.g. one per app, that can be disabled alone). */
  createProjectKey(projectId: number, key: { publicKey: string; label: string }): Promise<ProjectKey>;
  /** Enables or disables a DSN key; the updated key, or undefined when there is none. */
  setProjectKeyActive(publicKey: string, active: boolean): Promise<ProjectKey | undefined>;
  findProjectKey(publicKey: string): Promise<{ key: ProjectKey; project: Project } | undefined>;
  /** The project's grouping rules; both texts empty when none were set. */
  getGroupingRules(projectId: number): Promise<GroupingRuleTexts>;
  /** Replaces the texts given (verbatim), keeps the other; returns both as now stored. */
  setGroupingRules(projectId: number, texts: Partial<GroupingRuleTexts>): Promise<GroupingRuleTexts>;
}
