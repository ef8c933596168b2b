// Schema version 31: the person who made each agent token on the dashboard (null for the CLI,
// and once that person is deleted). Removing a person, or an owner's demotion (only owners make
// agent tokens), revokes the tokens they made: they hold the plaintext, and removal looked
// complete while their tokens still read every DSN and deleted issues.
export default /* sql */ `
ALTER TABLE agent_tokens ADD COLUMN created_by integer REFERENCES users (id) ON DELETE SET NULL;
CREATE INDEX agent_tokens_created_by ON agent_tokens (created_by) WHERE created_by IS NOT NULL;
`;
