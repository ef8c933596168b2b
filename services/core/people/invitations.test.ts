import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { createPasswordHasher } from '../auth/password-hash.ts';
import { hashSecret } from '../auth/secrets.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { acceptInvitation, checkInvitation, invitationLink, INVITATION_TTL_MS, invite, revokeInvitation } from './invitations.ts';
import { createUser } from './users.ts';

let stores: EmbeddedStores;
const passwords = createPasswordHasher({ params: { ln: 10, r: 8, p: 1 } });
const deps = () => ({ users: stores.users, passwords });
let ownerId: number;

beforeAll(async () => {
  stores = await openEmbeddedStores();
  ownerId = (await createUser(deps(), { email: 'owner@example.com', role: 'owner', password: 'owner-pass' })).id;
});
afterAll(() => stores.close());

const t0 = new Date('2026-01-01T00:00:00Z');
const later = (ms: number) => new Date(t0.getTime() + ms);

describe('invitations', () => {
  it('makes a link under the base URL, a week long, stored only as a hash', async () => {
    expect(invitationLink('https://errata.example.com/', 'abc')).toBe('https://errata.example.com/invitations/abc');
    const { code, invitation } = await invite(
      stores.users,
      { role: 'admin', email: ' Ada@Example.com ', invitedBy: ownerId },
      t0,
    );
    expect(code).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(invitation).toMatchObject({
      role: 'admin',
      email: 'Ada@Example.com',
      invitedBy: ownerId,
      expiresAt: later(INVITATION_TTL_MS),
    });
    const rows = await stores.client.query<{ code_hash: string }>('SELECT code_hash FROM invitations WHERE id = $1', [
      invitation.id,
    ]);
    expect(rows.rows[0]!.code_hash).toBe(hashSecret(code));
    expect(JSON.stringify(rows.rows)).not.toContain(code);
    expect(await checkInvitation(stores.users, code, later(INVITATION_TTL_MS - 1))).toEqual(invitation);
    expect(await checkInvitation(stores.users, code, later(INVITATION_TTL_MS))).toBeUndefined();
  });

  it('refuses an unknown role, a bad email, and an email someone signs in with, saying what to do', async () => {
    await expect(invite(stores.users, { role: 'triage', email: '', invitedBy: ownerId }, t0)).rejects.toThrow(
      /unknown role "triage": use owner, admin or member/,
    );
    await expect(invite(stores.users, { role: 'member', email: 'nope', invitedBy: ownerId }, t0)).rejects.toThrow(
      /not an email address/,
    );
    await expect(invite(stores.users, { role: 'member', email: 'OWNER@example.com', invitedBy: ownerId }, t0)).rejects.toThrow(
      /"OWNER@example.com" already signs in here: change their role/,
    );
  });

  it('creates the person with the invited role once; a taken email or short password leaves the link working', async () => {
    const { code } = await invite(stores.users, { role: 'admin', email: '', invitedBy: ownerId }, t0);
    const form = { name: ' Grace ', email: 'grace@example.com', password: 'hopper-1906' };
    await expect(acceptInvitation(deps(), code, { ...form, email: 'Owner@example.com' }, t0)).rejects.toThrow(ConflictError);
    await expect(acceptInvitation(deps(), code, { ...form, email: 'Owner@example.com' }, t0)).rejects.toThrow(
      /someone already signs in with "Owner@example.com": sign in with it, or choose another email/,
    );
    await expect(acceptInvitation(deps(), code, { ...form, password: 'short' }, t0)).rejects.toThrow(/at least 8 characters/);
    const user = await acceptInvitation(deps(), code, form, later(1000));
    expect(user).toMatchObject({ name: 'Grace', email: 'grace@example.com', role: 'admin' });
    const stored = await stores.users.findUserByEmail('grace@example.com');
    expect(await passwords.verify('hopper-1906', stored!.passwordHash)).toBe(true);
    expect(await acceptInvitation(deps(), code, { ...form, email: 'again@example.com' }, later(2000))).toBeUndefined();
    expect(await stores.users.findUserByEmail('again@example.com')).toBeUndefined();
    // Nobody vouched for the email grace typed: single sign-on will not take her account over by it.
    expect(stored!.emailSelfChosen).toBe(true);
  });

  it('joins with the email the invitation names, which its owner vouched for, and no other', async () => {
    const { code } = await invite(stores.users, { role: 'member', email: 'Linus@example.com', invitedBy: ownerId }, t0);
    const form = { name: '', email: 'someone-else@example.com', password: 'long enough' };
    await expect(acceptInvitation(deps(), code, form, t0)).rejects.toThrow(
      'this invitation is for Linus@example.com: join with that email, or ask an owner for an invitation that names yours',
    );
    expect(await acceptInvitation(deps(), code, { ...form, email: 'linus@example.com' }, t0)).toMatchObject({ role: 'member' });
    expect((await stores.users.findUserByEmail('linus@example.com'))!.emailSelfChosen).toBe(false);
    expect((await stores.users.findUserByEmail('owner@example.com'))!.emailSelfChosen).toBe(false);
  });

  it('works no more once expired or revoked', async () => {
    const expired = await invite(stores.users, { role: 'member', email: '', invitedBy: ownerId }, t0);
    const form = { name: '', email: 'late@example.com', password: 'long enough' };
    expect(await acceptInvitation(deps(), expired.code, form, later(INVITATION_TTL_MS))).toBeUndefined();
    const revoked = await invite(stores.users, { role: 'member', email: '', invitedBy: ownerId }, t0);
    await revokeInvitation(stores.users, revoked.invitation.id);
    expect(await acceptInvitation(deps(), revoked.code, form, t0)).toBeUndefined();
    await expect(revokeInvitation(stores.users, revoked.invitation.id)).rejects.toThrow(NotFoundError);
    expect(await stores.users.findUserByEmail('late@example.com')).toBeUndefined();
  });
});
