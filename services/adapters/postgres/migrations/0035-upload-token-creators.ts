// Schema version 36: the person who made each upload token on the dashboard (null for the CLI,
// and once that person is deleted). Removing a person, or their demotion to member (owners and
// admins make upload tokens), revokes the upload tokens they made, as it does their agent tokens:
// they hold the plaintext, and a removed admin could still plant source maps that change the
// stack traces everyone reads.
export default /* sql */ `
ALTER TABLE upload_tokens ADD COLUMN created_by integer REFERENCES users (id) ON DELETE SET NULL;
CREATE INDEX upload_tokens_created_by ON upload_tokens (created_by) WHERE created_by IS NOT NULL;
`;
