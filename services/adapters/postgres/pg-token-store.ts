// TokenStore over SQL (PGlite standalone, Postgres distributed): agent and upload tokens, by the
// hash of their secret. A slice of PgMetadataStore; it does not own the SqlClient.
import type { Role } from '../../core/auth/roles.ts';
import { ConflictError, ForbiddenError } from '../../core/errors.ts';
import type { AgentToken, TokenStore, UploadToken } from '../../core/ports/token-store.ts';
import { isUniqueViolation } from './pg-errors.ts';
import {
  TOKEN_COLUMNS,
  UPLOAD_TOKEN_COLUMNS,
  toAgentToken,
  toUploadToken,
  type AgentTokenRow,
  type UploadTokenRow,
} from './rows.ts';
import type { SqlClient } from './sql-client.ts';

export class PgTokenStore implements TokenStore {
  constructor(private readonly db: SqlClient) {}

  async createAgentToken(token: {
    organizationId: number;
    projectId: number | null;
    name: string;
    role: Role;
    tokenHash: string;
    createdBy?: number;
  }): Promise<AgentToken> {
    try {
      const params = [token.organizationId, token.projectId, token.name, token.role, token.tokenHash];
      // A person's token is made only while they are an owner, checked with their row locked:
      // the dashboard checked the role as the request began, and a token made while its maker
      // was being demoted, after the demotion revoked their tokens, stayed live.
      const inserted =
        token.createdBy === undefined
          ? await this.db.query<{ id: number }>(
              `INSERT INTO agent_tokens (organization_id, project_id, name, role, token_hash)
               VALUES ($1, $2, $3, $4, $5) RETURNING id`,
              params,
            )
          : await this.db.query<{ id: number }>(
              `INSERT INTO agent_tokens (organization_id, project_id, name, role, token_hash, created_by)
               SELECT $1, $2, $3, $4, $5, u.id FROM users u WHERE u.id = $6 AND u.role = 'owner' FOR SHARE
               RETURNING id`,
              [...params, token.createdBy],
            );
      if (inserted.rows.length === 0) {
        throw new ForbiddenError('only owners make agent tokens, and you are no longer one: nothing was made');
      }
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

  async markAgentTokenUsed(id: number, at: Date): Promise<void> {
    // Guarded here too, so callers racing with the same stale copy write once, and an older
    // time never replaces a newer one.
    await this.db.query(
      `UPDATE agent_tokens SET last_used_at = $2
       WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $2::timestamptz - interval '1 minute')`,
      [id, at],
    );
  }

  private async tokenWhere(where: string, params: unknown[]): Promise<AgentToken[]> {
    const result = await this.db.query<AgentTokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM agent_tokens t LEFT JOIN projects p ON p.id = t.project_id
       LEFT JOIN users c ON c.id = t.created_by WHERE ${where}`,
      params,
    );
    return result.rows.map(toAgentToken);
  }

  async createUploadToken(token: {
    organizationId: number;
    projectId: number;
    name: string;
    tokenHash: string;
    createdBy?: number;
  }): Promise<UploadToken> {
    try {
      const params = [token.organizationId, token.projectId, token.name, token.tokenHash];
      // Made only while its maker is an owner or admin, checked with their row locked, as agent tokens are.
      const inserted =
        token.createdBy === undefined
          ? await this.db.query<{ id: number }>(
              'INSERT INTO upload_tokens (organization_id, project_id, name, token_hash) VALUES ($1, $2, $3, $4) RETURNING id',
              params,
            )
          : await this.db.query<{ id: number }>(
              `INSERT INTO upload_tokens (organization_id, project_id, name, token_hash, created_by)
               SELECT $1, $2, $3, $4, u.id FROM users u WHERE u.id = $5 AND u.role IN ('owner', 'admin') FOR SHARE
               RETURNING id`,
              [...params, token.createdBy],
            );
      if (inserted.rows.length === 0) {
        throw new ForbiddenError('only owners and admins make upload tokens, and you are no longer one: nothing was made');
      }
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

  async revokeUploadToken(organizationId: number, name: string, projectId?: number): Promise<UploadToken | undefined> {
    const updated = await this.db.query<{ id: number }>(
      `UPDATE upload_tokens SET revoked_at = now()
       WHERE organization_id = $1 AND name = $2 AND revoked_at IS NULL AND ($3::integer IS NULL OR project_id = $3)
       RETURNING id`,
      [organizationId, name, projectId ?? null],
    );
    const id = updated.rows[0]?.id;
    return id === undefined ? undefined : (await this.uploadTokenWhere('u.id = $1', [id]))[0];
  }

  async listUploadTokens(organizationId: number): Promise<UploadToken[]> {
    return this.uploadTokenWhere('u.organization_id = $1 ORDER BY u.created_at, u.id', [organizationId]);
  }

  private async uploadTokenWhere(where: string, params: unknown[]): Promise<UploadToken[]> {
    const result = await this.db.query<UploadTokenRow>(
      `SELECT ${UPLOAD_TOKEN_COLUMNS} FROM upload_tokens u JOIN projects p ON p.id = u.project_id
       LEFT JOIN users c ON c.id = u.created_by WHERE ${where}`,
      params,
    );
    return result.rows.map(toUploadToken);
  }
}
