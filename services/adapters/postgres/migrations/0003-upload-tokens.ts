// Schema version 3: source map upload tokens, project-scoped and hashed like agent tokens.
export default /* sql */ `
CREATE TABLE upload_tokens (
  id serial PRIMARY KEY,
  organization_id integer NOT NULL REFERENCES organizations (id),
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  -- SHA-256 of the plaintext; the plaintext is shown once and never stored.
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE UNIQUE INDEX upload_tokens_live_name ON upload_tokens (organization_id, name) WHERE revoked_at IS NULL;
`;
