// Schema version 1: organizations, projects, DSN keys, agent tokens, issues, releases, and the
// embedded EventStore and LogStore tables. Kept as TypeScript so every build (bundled or not)
// carries its migrations. Never edit a released migration: add the next one.
export default /* sql */ `
-- Errata schema, version 1. Shared by PGlite (standalone) and Postgres (distributed).
-- Ids are 32-bit: plenty for one instance, and every driver returns them as numbers.

CREATE TABLE organizations (
  id serial PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE projects (
  id serial PRIMARY KEY,
  organization_id integer NOT NULL REFERENCES organizations (id),
  slug text NOT NULL,
  name text NOT NULL,
  -- Last issue number handed out; short ids are <SLUG>-<n>.
  issue_counter integer NOT NULL DEFAULT 0,
  rate_limit_per_minute integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, slug)
);

CREATE TABLE project_keys (
  id serial PRIMARY KEY,
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  -- The DSN public key is not a secret (it ships in browser bundles), so it is stored as is.
  public_key text NOT NULL UNIQUE,
  label text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE agent_tokens (
  id serial PRIMARY KEY,
  organization_id integer NOT NULL REFERENCES organizations (id),
  project_id integer REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('read', 'triage', 'admin')),
  -- SHA-256 of the plaintext; the plaintext is shown once and never stored.
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE UNIQUE INDEX agent_tokens_live_name ON agent_tokens (organization_id, name) WHERE revoked_at IS NULL;

CREATE TABLE issues (
  id serial PRIMARY KEY,
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  short_number integer NOT NULL,
  title text NOT NULL,
  culprit text NOT NULL DEFAULT '',
  level text NOT NULL,
  status text NOT NULL DEFAULT 'unresolved',
  type text NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  first_seen timestamptz NOT NULL,
  last_seen timestamptz NOT NULL,
  times_seen integer NOT NULL DEFAULT 0,
  user_count integer NOT NULL DEFAULT 0,
  environments text[] NOT NULL DEFAULT '{}',
  first_release text,
  last_release text,
  UNIQUE (project_id, short_number)
);
CREATE INDEX issues_project_last_seen ON issues (project_id, last_seen DESC, id DESC);

-- Every grouping hash an issue has been seen with (primary and secondary).
CREATE TABLE issue_hashes (
  project_id integer NOT NULL,
  hash text NOT NULL,
  issue_id integer NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  PRIMARY KEY (project_id, hash)
);
CREATE INDEX issue_hashes_issue ON issue_hashes (issue_id);

-- Distinct affected users per issue (id:, email:, username: or ip: keys).
CREATE TABLE issue_users (
  issue_id integer NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  user_key text NOT NULL,
  PRIMARY KEY (issue_id, user_key)
);

-- Event ids already counted: makes redelivery from the queue harmless.
CREATE TABLE processed_events (
  project_id integer NOT NULL,
  event_id text NOT NULL,
  issue_id integer,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, event_id)
);
CREATE INDEX processed_events_received ON processed_events (received_at);

CREATE TABLE releases (
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  version text NOT NULL,
  first_seen timestamptz NOT NULL,
  last_seen timestamptz NOT NULL,
  PRIMARY KEY (project_id, version)
);

-- EventStore (embedded and Postgres): the normalized payload, with the columns lists filter on.
CREATE TABLE events (
  project_id integer NOT NULL,
  event_id text NOT NULL,
  issue_id integer NOT NULL,
  timestamp timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  level text NOT NULL,
  title text NOT NULL,
  culprit text NOT NULL,
  platform text NOT NULL,
  environment text,
  release text,
  trace_id text,
  user_key text,
  -- The normalized event as JSON, raw-deflated and base64-encoded: a quarter of the bytes to
  -- move into the database (PGlite moves bytea slowly, hence text), and opaque to queries.
  payload_deflated text NOT NULL,
  PRIMARY KEY (project_id, event_id)
);
CREATE INDEX events_issue_time ON events (issue_id, timestamp DESC);

-- LogStore (embedded and Postgres).
CREATE TABLE logs (
  project_id integer NOT NULL,
  id text NOT NULL,
  timestamp timestamptz NOT NULL,
  observed_at timestamptz NOT NULL,
  trace_id text,
  span_id text,
  level text NOT NULL,
  severity_number smallint NOT NULL,
  body text NOT NULL,
  attributes jsonb NOT NULL DEFAULT '{}',
  release text,
  environment text,
  PRIMARY KEY (project_id, id)
);
CREATE INDEX logs_project_time ON logs (project_id, timestamp DESC, id DESC);
CREATE INDEX logs_trace ON logs (project_id, trace_id) WHERE trace_id IS NOT NULL;
`;
