// Schema version 12: one row per MCP tool call, for the dashboard's Agent activity page and the
// Agent tokens page's calls in the last 24 hours. The token's name is copied as it was at the call,
// and token_id has no foreign key: a token's calls outlive it (a project's deletion removes its
// tokens). Deleted with events, after ERRATA_EVENT_RETENTION_DAYS (dispatcher/retention.ts).
export default /* sql */ `
CREATE TABLE agent_calls (
  id bigserial PRIMARY KEY,
  organization_id integer NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  token_id integer NOT NULL,
  token_name text NOT NULL,
  tool text NOT NULL,
  at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('ok', 'refused', 'rate_limited', 'error')),
  -- refused: role or scope; error: what kind (invalid_arguments, not_found, internal_error, ...).
  reason text,
  argument_summary text NOT NULL,
  -- The short ids of the issues the call named or changed.
  issues text[] NOT NULL DEFAULT '{}'
);
-- The page lists an organization's calls newest first; the tokens page counts each token's since a time.
CREATE INDEX agent_calls_organization_time ON agent_calls (organization_id, at DESC, id DESC);
CREATE INDEX agent_calls_token_time ON agent_calls (token_id, at DESC, id DESC);
CREATE INDEX agent_calls_issues ON agent_calls USING gin (issues);
`;
