// MetadataStore port: what Errata keeps in its SQL database besides alerts, as five slices of
// one concern each: tenancy, tokens, agent activity, the source map index, issues. A consumer that needs one
// concern can narrow to its slice (e.g. take a `TokenStore`); the slices' types are re-exported
// here, so importers of this module need not know where each one lives.
// PGlite standalone, Postgres distributed, one SQL implementation (adapters/postgres).
import type { AgentActivityStore } from './agent-activity-store.ts';
import type { IssueStore } from './issue-store.ts';
import type { SourceMapIndex } from './source-map-index.ts';
import type { TenancyStore } from './tenancy-store.ts';
import type { TokenStore } from './token-store.ts';

export {
  ISSUE_STATUSES,
  type Issue,
  type IssueActivity,
  type IssueMetadata,
  type IssueQuery,
  type IssueStatus,
} from './issue-store.ts';
export type { SourceMapArtifact } from './source-map-index.ts';
export type { Organization, Project, ProjectKey } from './tenancy-store.ts';
export type { AgentToken, UploadToken } from './token-store.ts';

export interface MetadataStore extends TenancyStore, TokenStore, AgentActivityStore, SourceMapIndex, IssueStore {
  /** Resolves when the store answers; used by /healthz. */
  ping(): Promise<void>;
}
