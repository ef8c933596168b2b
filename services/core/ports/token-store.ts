// TokenStore port, a slice of the MetadataStore: agent tokens (`errata_agent_...`, for /mcp and
// /api/v1) and source map upload tokens (`errata_...`), each stored by the hash of its secret.
// The mcp role authenticates agents with it, ingest's upload protocol the upload tools; the CLI
// and the management API create, list and revoke them. One SQL implementation
// (adapters/postgres/pg-token-store.ts).
import type { Role } from '../auth/roles.ts';

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
  /** When it last authenticated a request, to the minute (markAgentTokenUsed); null if never. */
  lastUsedAt: Date | null;
  /** The email of the person who made it on the dashboard; null when made with the CLI. */
  createdBy: string | null;
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
  /** The email of the person who made it on the dashboard; null when made with the CLI. */
  createdBy: string | null;
}

export interface TokenStore {
  /** ConflictError when a live token of that name exists in the organization. */
  createAgentToken(token: {
    organizationId: number;
    projectId: number | null;
    name: string;
    role: Role;
    tokenHash: string;
    /** The person making it on the dashboard: removing or demoting them revokes it (UserStore). */
    createdBy?: number;
  }): Promise<AgentToken>;
  /** The live (unrevoked) token with this hash. */
  findAgentToken(tokenHash: string): Promise<AgentToken | undefined>;
  revokeAgentToken(organizationId: number, name: string): Promise<AgentToken | undefined>;
  listAgentTokens(organizationId: number): Promise<AgentToken[]>;
  /**
   * Records that the token authenticated a request at `at`, unless it already has a use within
   * the minute before: at most one write a minute per token, however busy the agent is.
   */
  markAgentTokenUsed(id: number, at: Date): Promise<void>;

  /**
   * ConflictError when a live upload token of that name exists in the organization; with
   * `createdBy`, ForbiddenError unless that person is an owner or admin still.
   */
  createUploadToken(token: {
    organizationId: number;
    projectId: number;
    name: string;
    tokenHash: string;
    createdBy?: number;
  }): Promise<UploadToken>;
  /** The live (unrevoked) upload token with this hash. */
  findUploadToken(tokenHash: string): Promise<UploadToken | undefined>;
  /** The live token of that name, only if it is the project's when `projectId` is given: in one statement, so no other is revoked. */
  revokeUploadToken(organizationId: number, name: string, projectId?: number): Promise<UploadToken | undefined>;
  listUploadTokens(organizationId: number): Promise<UploadToken[]>;
}
