// AgentActivityStore over SQL (PGlite standalone, Postgres distributed): the agent_calls table
// (migration 0012). A slice of PgMetadataStore; it does not own the SqlClient.
import type {
  AgentActivityStore,
  AgentCall,
  AgentCallOutcome,
  AgentCallQuery,
  NewAgentCall,
} from '../../core/ports/agent-activity-store.ts';
import { decodeCursor, encodeCursor, type Page } from '../../core/ports/page.ts';
import type { SqlClient } from './sql-client.ts';

interface AgentCallRow {
  id: string;
  organization_id: number;
  token_id: number;
  token_name: string;
  tool: string;
  at: Date;
  duration_ms: number;
  outcome: AgentCallOutcome;
  reason: string | null;
  argument_summary: string;
  issues: string[];
}

// bigserial comes back as text from `pg`; read as text everywhere so both drivers agree.
// ORDER BY qualifies agent_calls.id: bare, it would be the text alias below, ordering 10 before 9.
const COLUMNS =
  'id::text AS id, organization_id, token_id, token_name, tool, at, duration_ms, outcome, reason, argument_summary, issues';

export class PgAgentActivityStore implements AgentActivityStore {
  constructor(private readonly db: SqlClient) {}

  async recordAgentCalls(calls: NewAgentCall[]): Promise<void> {
    if (calls.length === 0) return;
    const params: unknown[] = [];
    const rows = calls.map((call) => {
      const values = [
        call.organizationId,
        call.tokenId,
        call.tokenName,
        call.tool,
        call.at,
        Math.max(0, Math.round(call.durationMs)),
        call.outcome,
        call.reason,
        call.argumentSummary,
        call.issues,
      ];
      const first = params.length + 1;
      params.push(...values);
      return `(${values.map((_, i) => `$${first + i}`).join(', ')})`;
    });
    await this.db.query(
      `INSERT INTO agent_calls
         (organization_id, token_id, token_name, tool, at, duration_ms, outcome, reason, argument_summary, issues)
       VALUES ${rows.join(', ')}`,
      params,
    );
  }

  async listAgentCalls(query: AgentCallQuery): Promise<Page<AgentCall>> {
    const params: unknown[] = [query.organizationId];
    const where = ['organization_id = $1'];
    if (query.tokenId !== undefined) where.push(`token_id = $${params.push(query.tokenId)}`);
    if (query.tool !== undefined) where.push(`tool = $${params.push(query.tool)}`);
    if (query.issue !== undefined) where.push(`issues @> ARRAY[$${params.push(query.issue)}::text]`);
    if (query.since !== undefined) where.push(`at >= $${params.push(query.since)}`);
    if (query.cursor) {
      const [at, id] = decodeCursor(query.cursor, ['time', 'integer']);
      where.push(`(at, id) < ($${params.push(at)}::timestamptz, $${params.push(id)}::bigint)`);
    }
    const result = await this.db.query<AgentCallRow>(
      `SELECT ${COLUMNS} FROM agent_calls WHERE ${where.join(' AND ')}
       ORDER BY agent_calls.at DESC, agent_calls.id DESC LIMIT $${params.push(query.limit + 1)}`,
      params,
    );
    const items = result.rows.slice(0, query.limit).map(toAgentCall);
    const last = items[items.length - 1];
    return result.rows.length > query.limit && last
      ? { items, nextCursor: encodeCursor([last.at.toISOString(), last.id]) }
      : { items };
  }

  async countAgentCallsSince(organizationId: number, since: Date): Promise<Map<number, number>> {
    const result = await this.db.query<{ token_id: number; calls: number }>(
      `SELECT token_id, count(*)::integer AS calls FROM agent_calls
       WHERE organization_id = $1 AND at >= $2 GROUP BY token_id`,
      [organizationId, since],
    );
    return new Map(result.rows.map((row) => [row.token_id, row.calls]));
  }

  async deleteAgentCallsBefore(cutoff: Date): Promise<number> {
    // Joined to organizations so each one's range is read from the (organization, time) index.
    const result = await this.db.query(
      `DELETE FROM agent_calls a USING organizations o WHERE a.organization_id = o.id AND a.at < $1`,
      [cutoff],
    );
    return result.affectedRows;
  }
}

function toAgentCall(row: AgentCallRow): AgentCall {
  return {
    id: Number(row.id),
    organizationId: row.organization_id,
    tokenId: row.token_id,
    tokenName: row.token_name,
    tool: row.tool,
    at: row.at,
    durationMs: row.duration_ms,
    outcome: row.outcome,
    reason: row.reason,
    argumentSummary: row.argument_summary,
    issues: row.issues,
  };
}
