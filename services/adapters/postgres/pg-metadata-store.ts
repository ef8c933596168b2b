// MetadataStore over SQL (PGlite standalone, Postgres distributed): the five slices of the port,
// each its own class over the same SqlClient (pg-tenancy-store.ts, pg-token-store.ts,
// pg-agent-activity-store.ts, pg-source-map-index.ts, pg-issue-store.ts), answered from one object. It does not own the
// SqlClient: whoever opened the database (runtime/compose.ts) closes it.
import type { AgentActivityStore } from '../../core/ports/agent-activity-store.ts';
import type { IssueStore } from '../../core/ports/issue-store.ts';
import type { MetadataStore } from '../../core/ports/metadata-store.ts';
import type { SourceMapIndex } from '../../core/ports/source-map-index.ts';
import type { TenancyStore } from '../../core/ports/tenancy-store.ts';
import type { TokenStore } from '../../core/ports/token-store.ts';
import { PgAgentActivityStore } from './pg-agent-activity-store.ts';
import { PgIssueStore } from './pg-issue-store.ts';
import { PgSourceMapIndex } from './pg-source-map-index.ts';
import { PgTenancyStore } from './pg-tenancy-store.ts';
import { PgTokenStore } from './pg-token-store.ts';
import type { SqlClient } from './sql-client.ts';

export class PgMetadataStore implements MetadataStore {
  private readonly tenancy: TenancyStore;
  private readonly tokens: TokenStore;
  private readonly activity: AgentActivityStore;
  private readonly sourceMaps: SourceMapIndex;
  private readonly issues: IssueStore;

  constructor(private readonly db: SqlClient) {
    this.tenancy = new PgTenancyStore(db);
    this.tokens = new PgTokenStore(db);
    this.activity = new PgAgentActivityStore(db);
    this.sourceMaps = new PgSourceMapIndex(db);
    this.issues = new PgIssueStore(db);
  }

  // Each method is answered by its slice; the types come from the slice's port, so a method
  // sent to the wrong slice does not compile.
  readonly ensureOrganization: TenancyStore['ensureOrganization'] = (...a) => this.tenancy.ensureOrganization(...a);
  readonly findOrganization: TenancyStore['findOrganization'] = (...a) => this.tenancy.findOrganization(...a);
  readonly getOrganization: TenancyStore['getOrganization'] = (...a) => this.tenancy.getOrganization(...a);
  readonly listOrganizations: TenancyStore['listOrganizations'] = (...a) => this.tenancy.listOrganizations(...a);
  readonly createProject: TenancyStore['createProject'] = (...a) => this.tenancy.createProject(...a);
  readonly findProject: TenancyStore['findProject'] = (...a) => this.tenancy.findProject(...a);
  readonly getProject: TenancyStore['getProject'] = (...a) => this.tenancy.getProject(...a);
  readonly listProjects: TenancyStore['listProjects'] = (...a) => this.tenancy.listProjects(...a);
  readonly deleteProject: TenancyStore['deleteProject'] = (...a) => this.tenancy.deleteProject(...a);
  readonly listDeletedProjects: TenancyStore['listDeletedProjects'] = (...a) => this.tenancy.listDeletedProjects(...a);
  readonly forgetDeletedProject: TenancyStore['forgetDeletedProject'] = (...a) => this.tenancy.forgetDeletedProject(...a);
  readonly setProjectRateLimit: TenancyStore['setProjectRateLimit'] = (...a) => this.tenancy.setProjectRateLimit(...a);
  readonly renameProject: TenancyStore['renameProject'] = (...a) => this.tenancy.renameProject(...a);
  readonly listProjectKeys: TenancyStore['listProjectKeys'] = (...a) => this.tenancy.listProjectKeys(...a);
  readonly createProjectKey: TenancyStore['createProjectKey'] = (...a) => this.tenancy.createProjectKey(...a);
  readonly setProjectKeyActive: TenancyStore['setProjectKeyActive'] = (...a) => this.tenancy.setProjectKeyActive(...a);
  readonly findProjectKey: TenancyStore['findProjectKey'] = (...a) => this.tenancy.findProjectKey(...a);
  readonly getGroupingRules: TenancyStore['getGroupingRules'] = (...a) => this.tenancy.getGroupingRules(...a);
  readonly setGroupingRules: TenancyStore['setGroupingRules'] = (...a) => this.tenancy.setGroupingRules(...a);

  readonly createAgentToken: TokenStore['createAgentToken'] = (...a) => this.tokens.createAgentToken(...a);
  readonly findAgentToken: TokenStore['findAgentToken'] = (...a) => this.tokens.findAgentToken(...a);
  readonly revokeAgentToken: TokenStore['revokeAgentToken'] = (...a) => this.tokens.revokeAgentToken(...a);
  readonly listAgentTokens: TokenStore['listAgentTokens'] = (...a) => this.tokens.listAgentTokens(...a);
  readonly markAgentTokenUsed: TokenStore['markAgentTokenUsed'] = (...a) => this.tokens.markAgentTokenUsed(...a);
  readonly createUploadToken: TokenStore['createUploadToken'] = (...a) => this.tokens.createUploadToken(...a);
  readonly findUploadToken: TokenStore['findUploadToken'] = (...a) => this.tokens.findUploadToken(...a);
  readonly revokeUploadToken: TokenStore['revokeUploadToken'] = (...a) => this.tokens.revokeUploadToken(...a);
  readonly listUploadTokens: TokenStore['listUploadTokens'] = (...a) => this.tokens.listUploadTokens(...a);

  readonly recordAgentCalls: AgentActivityStore['recordAgentCalls'] = (...a) => this.activity.recordAgentCalls(...a);
  readonly listAgentCalls: AgentActivityStore['listAgentCalls'] = (...a) => this.activity.listAgentCalls(...a);
  readonly countAgentCallsSince: AgentActivityStore['countAgentCallsSince'] = (...a) => this.activity.countAgentCallsSince(...a);
  readonly deleteAgentCallsBefore: AgentActivityStore['deleteAgentCallsBefore'] = (...a) =>
    this.activity.deleteAgentCallsBefore(...a);

  readonly claimAssembly: SourceMapIndex['claimAssembly'] = (...a) => this.sourceMaps.claimAssembly(...a);
  readonly finishAssembly: SourceMapIndex['finishAssembly'] = (...a) => this.sourceMaps.finishAssembly(...a);
  readonly getAssembly: SourceMapIndex['getAssembly'] = (...a) => this.sourceMaps.getAssembly(...a);
  readonly forgetAssemblies: SourceMapIndex['forgetAssemblies'] = (...a) => this.sourceMaps.forgetAssemblies(...a);
  readonly forgetAssembliesBefore: SourceMapIndex['forgetAssembliesBefore'] = (...a) =>
    this.sourceMaps.forgetAssembliesBefore(...a);
  readonly keepAssembling: SourceMapIndex['keepAssembling'] = (...a) => this.sourceMaps.keepAssembling(...a);
  readonly saveSourceMapArtifacts: SourceMapIndex['saveSourceMapArtifacts'] = (...a) =>
    this.sourceMaps.saveSourceMapArtifacts(...a);
  readonly listSourceMapArtifacts: SourceMapIndex['listSourceMapArtifacts'] = (...a) =>
    this.sourceMaps.listSourceMapArtifacts(...a);
  readonly findSourceMapArtifact: SourceMapIndex['findSourceMapArtifact'] = (...a) => this.sourceMaps.findSourceMapArtifact(...a);
  readonly countSourceMapArtifacts: SourceMapIndex['countSourceMapArtifacts'] = (...a) =>
    this.sourceMaps.countSourceMapArtifacts(...a);
  readonly listSourceMapArtifactsUnusedSince: SourceMapIndex['listSourceMapArtifactsUnusedSince'] = (...a) =>
    this.sourceMaps.listSourceMapArtifactsUnusedSince(...a);
  readonly deleteSourceMapArtifacts: SourceMapIndex['deleteSourceMapArtifacts'] = (...a) =>
    this.sourceMaps.deleteSourceMapArtifacts(...a);
  readonly touchSourceMapArtifacts: SourceMapIndex['touchSourceMapArtifacts'] = (...a) =>
    this.sourceMaps.touchSourceMapArtifacts(...a);

  readonly recordOccurrences: IssueStore['recordOccurrences'] = (...a) => this.issues.recordOccurrences(...a);
  readonly listIssues: IssueStore['listIssues'] = (...a) => this.issues.listIssues(...a);
  readonly countIssues: IssueStore['countIssues'] = (...a) => this.issues.countIssues(...a);
  readonly listEnvironments: IssueStore['listEnvironments'] = (...a) => this.issues.listEnvironments(...a);
  readonly listIssueOutlines: IssueStore['listIssueOutlines'] = (...a) => this.issues.listIssueOutlines(...a);
  readonly tagSummary: IssueStore['tagSummary'] = (...a) => this.issues.tagSummary(...a);
  readonly findIssue: IssueStore['findIssue'] = (...a) => this.issues.findIssue(...a);
  readonly getIssue: IssueStore['getIssue'] = (...a) => this.issues.getIssue(...a);
  readonly mutedIssues: IssueStore['mutedIssues'] = (...a) => this.issues.mutedIssues(...a);
  readonly changeIssues: IssueStore['changeIssues'] = (...a) => this.issues.changeIssues(...a);
  readonly deleteIssues: IssueStore['deleteIssues'] = (...a) => this.issues.deleteIssues(...a);
  readonly listDeletedIssues: IssueStore['listDeletedIssues'] = (...a) => this.issues.listDeletedIssues(...a);
  readonly forgetDeletedIssues: IssueStore['forgetDeletedIssues'] = (...a) => this.issues.forgetDeletedIssues(...a);
  readonly listIssueActivity: IssueStore['listIssueActivity'] = (...a) => this.issues.listIssueActivity(...a);
  readonly expireSnoozes: IssueStore['expireSnoozes'] = (...a) => this.issues.expireSnoozes(...a);
  readonly listReleases: IssueStore['listReleases'] = (...a) => this.issues.listReleases(...a);
  readonly countReleases: IssueStore['countReleases'] = (...a) => this.issues.countReleases(...a);
  readonly findRelease: IssueStore['findRelease'] = (...a) => this.issues.findRelease(...a);
  readonly releaseCounts: IssueStore['releaseCounts'] = (...a) => this.issues.releaseCounts(...a);
  readonly forgetProcessedEventsBefore: IssueStore['forgetProcessedEventsBefore'] = (...a) =>
    this.issues.forgetProcessedEventsBefore(...a);

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }
}
