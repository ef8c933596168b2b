import { describe, expect, it } from 'vitest';
import type { User } from '../ports/user-store.ts';
import { decideOidcSignIn, parseRoleMapping, roleFromClaim } from './oidc-roles.ts';

const user = (role: User['role']): User & { emailSelfChosen: boolean } => ({
  emailSelfChosen: false,
  id: 7,
  email: 'ada@example.com',
  name: 'Ada',
  role,
  timeZone: null,
  theme: 'system',
  createdAt: new Date(0),
});

describe('parseRoleMapping', () => {
  it('reads value=role pairs, spaces and a trailing comma allowed, and "=" inside a value', () => {
    const mapping = parseRoleMapping(' errata-owners=owner, cn=devs=member ,');
    expect([...mapping]).toEqual([
      ['errata-owners', 'owner'],
      ['cn=devs', 'member'],
    ]);
  });

  it('says what is wrong with an entry and how to write it', () => {
    expect(() => parseRoleMapping('errata-admins')).toThrow('"errata-admins" is not value=role: write e.g. errata-admins=admin');
    expect(() => parseRoleMapping('=owner')).toThrow('is not value=role');
    expect(() => parseRoleMapping('ops=root')).toThrow('"ops=root" names the role "root": use owner, admin or member');
    expect(() => parseRoleMapping('ops=owner,ops=member')).toThrow('"ops" is mapped twice, to two roles: keep one');
    expect(() => parseRoleMapping(' , ')).toThrow('no value=role pairs');
  });
});

describe('roleFromClaim', () => {
  const mapping = parseRoleMapping('errata-owners=owner,errata-admins=admin,errata-devs=member');

  it('takes the strongest role among the mapped values of a list or a single string', () => {
    expect(roleFromClaim(['errata-devs', 'staff', 'errata-admins'], mapping)).toBe('admin');
    expect(roleFromClaim(['errata-owners', 'errata-devs'], mapping)).toBe('owner');
    expect(roleFromClaim('errata-devs', mapping)).toBe('member');
  });

  it('grants nothing for unmapped values, a missing claim or values that are not strings', () => {
    expect(roleFromClaim(['staff'], mapping)).toBeUndefined();
    expect(roleFromClaim(undefined, mapping)).toBeUndefined();
    expect(roleFromClaim([{ name: 'errata-owners' }, 3], mapping)).toBeUndefined();
  });
});

describe('decideOidcSignIn', () => {
  const facts = {
    email: 'ada@example.com',
    emailVerified: true,
    role: 'member' as const,
    linked: undefined,
    existing: undefined,
    existingLinkedElsewhere: false,
    owners: 1,
    createUsers: false,
    trustUnverifiedEmail: false,
  };

  it('refuses without an email, with an unverified one, or without a mapped role', () => {
    expect(decideOidcSignIn({ ...facts, email: undefined })).toEqual({ kind: 'refused', reason: 'no-email' });
    expect(decideOidcSignIn({ ...facts, emailVerified: false })).toEqual({ kind: 'refused', reason: 'email-unverified' });
    expect(decideOidcSignIn({ ...facts, role: undefined, existing: user('admin') })).toEqual({
      kind: 'refused',
      reason: 'no-role',
    });
  });

  it('lets an email the provider did not say is verified pick an existing account only when told to trust it', () => {
    // A provider that sends no email_verified may let its users type any address: a colleague's
    // would have signed into the colleague's account (before, absent was trusted).
    const owner = user('owner');
    const unconfirmed = { ...facts, emailVerified: undefined, existing: owner, owners: 2 };
    expect(decideOidcSignIn(unconfirmed)).toEqual({ kind: 'refused', reason: 'email-unconfirmed' });
    expect(decideOidcSignIn({ ...unconfirmed, trustUnverifiedEmail: true })).toEqual({
      kind: 'sign-in',
      user: owner,
      role: 'member',
    });
    // A new account takes nobody's: the group claim alone grants its role.
    expect(decideOidcSignIn({ ...facts, emailVerified: undefined, createUsers: true })).toEqual({
      kind: 'create',
      role: 'member',
    });
  });

  it('creates an unknown person only when creating users is on', () => {
    expect(decideOidcSignIn(facts)).toEqual({ kind: 'refused', reason: 'unknown-user' });
    expect(decideOidcSignIn({ ...facts, createUsers: true })).toEqual({ kind: 'create', role: 'member' });
  });

  it('signs a known person in with the role the claim grants, up or down', () => {
    const admin = user('admin');
    expect(decideOidcSignIn({ ...facts, existing: admin, role: 'owner' })).toEqual({
      kind: 'sign-in',
      user: admin,
      role: 'owner',
    });
    expect(decideOidcSignIn({ ...facts, existing: admin })).toEqual({ kind: 'sign-in', user: admin, role: 'member' });
    const owner = user('owner');
    expect(decideOidcSignIn({ ...facts, existing: owner, owners: 2 })).toEqual({ kind: 'sign-in', user: owner, role: 'member' });
  });

  it('never demotes the last owner', () => {
    const owner = user('owner');
    expect(decideOidcSignIn({ ...facts, existing: owner, owners: 1 })).toEqual({ kind: 'sign-in', user: owner, role: 'owner' });
  });

  it('signs a linked identity into its own account, whatever email it gives now, with the role its claim grants', () => {
    const linked = user('admin');
    const other = { ...user('member'), id: 8, email: 'new-address@example.com' };
    expect(decideOidcSignIn({ ...facts, linked, email: 'new-address@example.com', existing: other })).toEqual({
      kind: 'sign-in',
      user: linked,
      role: 'member',
    });
    expect(decideOidcSignIn({ ...facts, linked, email: undefined })).toEqual({ kind: 'sign-in', user: linked, role: 'member' });
    expect(decideOidcSignIn({ ...facts, linked, role: undefined })).toEqual({ kind: 'refused', reason: 'no-role' });
  });

  it('refuses an email its account typed unvouched, joining by an invitation that named none, even as an owner', () => {
    // An invitee joined as a colleague's address with their own password: the colleague's first
    // sign-on would have given that account the colleague's role.
    const existing = { ...user('member'), emailSelfChosen: true };
    expect(decideOidcSignIn({ ...facts, existing, role: 'owner', createUsers: true })).toEqual({
      kind: 'refused',
      reason: 'email-self-chosen',
    });
  });

  it('refuses an email whose account is linked to another subject of the provider, even with creating users on', () => {
    const existing = user('member');
    expect(decideOidcSignIn({ ...facts, existing, existingLinkedElsewhere: true, createUsers: true })).toEqual({
      kind: 'refused',
      reason: 'linked-elsewhere',
    });
  });
});
