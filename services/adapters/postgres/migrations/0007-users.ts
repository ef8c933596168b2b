// Schema version 7: the people who sign in to the dashboard, their sessions and their one-time
// codes (setup and password reset). Secrets are stored as SHA-256 digests, passwords as scrypt
// PHC strings.
export default /* sql */ `
CREATE TABLE users (
  id serial PRIMARY KEY,
  email text NOT NULL,
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  password_hash text,
  time_zone text,
  theme text NOT NULL DEFAULT 'system' CHECK (theme IN ('system', 'light', 'dark')),
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Emails are unique without regard to case; lookups use the same expression.
CREATE UNIQUE INDEX users_email ON users (lower(email));

CREATE TABLE user_sessions (
  id serial PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  user_agent text,
  address text
);
CREATE INDEX user_sessions_user ON user_sessions (user_id);

CREATE TABLE one_time_codes (
  id serial PRIMARY KEY,
  purpose text NOT NULL CHECK (purpose IN ('setup', 'reset')),
  -- Null for the setup code, which creates the first user.
  user_id integer REFERENCES users (id) ON DELETE CASCADE,
  code_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  -- Null: valid until used.
  expires_at timestamptz
);
`;
