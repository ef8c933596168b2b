// Schema version 26: whether a person's email was typed by them, joining by an invitation that
// named none. Nobody vouched for such an address, so single sign-on does not take the account
// over by it (core/people/oidc-roles.ts): an invitee who joined as a colleague's address, with
// their own password, got the colleague's role at the colleague's first sign-on. Accounts made
// before this version are taken as vouched for, as they were.
export default /* sql */ `
ALTER TABLE users ADD COLUMN email_self_chosen boolean NOT NULL DEFAULT false;
`;
