// Schema version 17: which single sign-on identity (the provider's issuer and its subject, the
// id it never reassigns) belongs to which person. Sign-in found people by verified email alone,
// so a provider that gave a departed person's address to someone new signed the newcomer into
// the old account. Now a linked identity signs in its own person whatever its email says, and an
// account linked to one subject of an issuer is never taken by another subject's email.
// Existing people are linked at their next single sign-on.
export default /* sql */ `
CREATE TABLE user_identities (
  issuer text NOT NULL,
  subject text NOT NULL,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  linked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, subject),
  UNIQUE (user_id, issuer)
);
`;
