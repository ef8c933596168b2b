// AgentActivityStore port, a slice of the MetadataStore: one record per MCP tool call (who, which
// tool, a short summary of its arguments, how it ended, the issues it touched), written by the
// mcp role after each call is answered, read by the dashboard's Agent activity page and the
// Agent tokens page, pruned by the retention job. One SQL implementation
// (adapters/postgres/pg-agent-activity-store.ts).
import type { Page } from './page.ts';

export const AGENT_CALL_OUTCOMES = ['ok', 'refused', 'rate_limited', 'error'] as const;
export type AgentCallOutcome = (typeof AGENT_CALL_OUTCOMES)[number];

export interface NewAgentCall {
  organizationId: number;
  tokenId: number;
  /** The token's name when it made the call (a later token may take the name). */
  tokenName: string;
  tool: string;
  at: Date;
  durationMs: number;
  outcome: AgentCallOutcome;
  /** refused: `role` or `scope`; error: its kind (`invalid_arguments`, `not_found`, ...); else null. */
  reason: string | null;
  /** Short, and never a secret (core/agent/argument-summary.ts). */
  argumentSummary: string;
  /** Short ids of the issues it named or changed. */
  issues: string[];
}

export interface AgentCall extends NewAgentCall {
  id: number;
}

export interface AgentCallQuery {
  organizationId: number;
  tokenId?: number | undefined;
  tool?: string | undefined;
  /** A short id: only calls that touched this issue. */
  issue?: string | undefined;
  /** Only calls made at or after this moment. */
  since?: Date | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface AgentActivityStore {
  recordAgentCalls(calls: NewAgentCall[]): Promise<void>;
  /** Newest first, keyset-paged. */
  listAgentCalls(query: AgentCallQuery): Promise<Page<AgentCall>>;
  /** Calls per token id since `since`, in one query; a token with none is absent. */
  countAgentCallsSince(organizationId: number, since: Date): Promise<Map<number, number>>;
  /** Deletes calls made before `cutoff`; returns how many. */
  deleteAgentCallsBefore(cutoff: Date): Promise<number>;
}
