// Schema version 11: when each agent token last authenticated a request, for the dashboard's
// Agent tokens page. Written at most once a minute per token (markAgentTokenUsed), so a busy
// agent costs no write per call. Tokens from before this version show "never" until next used.
export default /* sql */ `
ALTER TABLE agent_tokens ADD COLUMN last_used_at timestamptz;
`;
