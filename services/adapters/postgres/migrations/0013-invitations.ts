// Schema version 13: invitations, the one-time links an owner makes on the Members page
// (`<base URL>/invitations/<code>`). Each carries the role the new person gets and, optionally,
// the email it was meant for; only the code's SHA-256 is stored. An invitation ends when used,
// revoked or expired, and with the owner who made it.
export default /* sql */ `
CREATE TABLE invitations (
  id serial PRIMARY KEY,
  code_hash text NOT NULL UNIQUE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  email text,
  invited_by integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
`;
