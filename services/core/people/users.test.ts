import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { createPasswordHasher } from '../auth/password-hash.ts';
import { ConflictError, NotFoundError, UserInputError } from '../errors.ts';
import { resumeSession, startSession } from './sessions.ts';
import {
  changePassword,
  createUser,
  deleteUser,
  findUserByEmailOrThrow,
  MIN_PASSWORD_LENGTH,
  setPassword,
  timeZones,
  updateProfile,
} from './users.ts';

let stores: EmbeddedStores;
const passwords = createPasswordHasher({ params: { ln: 10, r: 8, p: 1 } });
const deps = () => ({ users: stores.users, passwords });
beforeAll(async () => {
  stores = await openEmbeddedStores();
});
afterAll(() => stores.close());

describe('people', () => {
  it('creates a user with a hashed password, a name from the email when none is given', async () => {
    const user = await createUser(deps(), { email: ' Grace@Example.com ', role: 'owner', password: 'hopper-1906' });
    expect(user).toMatchObject({ email: 'Grace@Example.com', name: 'Grace', role: 'owner', theme: 'system', timeZone: null });
    const stored = await stores.users.findUserByEmail('grace@example.com');
    expect(stored?.passwordHash).toMatch(/^\$scrypt\$/);
    expect(await passwords.verify('hopper-1906', stored!.passwordHash)).toBe(true);
    await expect(createUser(deps(), { email: 'GRACE@example.com', role: 'member', password: 'another-one' })).rejects.toThrow(
      ConflictError,
    );
  });

  it('refuses a bad email, role or password, saying what to give instead', async () => {
    await expect(createUser(deps(), { email: 'nope', role: 'member', password: 'long enough' })).rejects.toThrow(
      /"nope" is not an email address: give one like ada@example.com/,
    );
    await expect(createUser(deps(), { email: 'a@b.c', role: 'triage', password: 'long enough' })).rejects.toThrow(
      /unknown role "triage": use owner, admin or member/,
    );
    await expect(
      createUser(deps(), { email: 'a@b.c', role: 'member', password: 'x'.repeat(MIN_PASSWORD_LENGTH - 1) }),
    ).rejects.toThrow(UserInputError);
  });

  it('deletes users with their sessions, but never the last owner', async () => {
    const owner = await createUser(deps(), { email: 'owner@example.com', role: 'owner', password: 'owner-pass' });
    await createUser(deps(), { email: 'second-owner@example.com', role: 'owner', password: 'owner-pass' });
    const member = await createUser(deps(), { email: 'member@example.com', role: 'member', password: 'member-pass' });
    const { token } = await startSession(stores.users, member.id, new Date());
    expect((await deleteUser(stores.users, 'MEMBER@example.com')).id).toBe(member.id);
    expect(await resumeSession(stores.users, token, new Date())).toBeUndefined();
    await expect(deleteUser(stores.users, 'member@example.com')).rejects.toThrow(NotFoundError);
    await deleteUser(stores.users, 'second-owner@example.com');
    await deleteUser(stores.users, 'grace@example.com');
    await expect(deleteUser(stores.users, owner.email)).rejects.toThrow(/"owner@example.com" is the only owner/);
  });

  it('sets a new password and ends every other session', async () => {
    const user = await createUser(deps(), { email: 'reset@example.com', role: 'member', password: 'old-password' });
    const kept = await startSession(stores.users, user.id, new Date());
    const other = await startSession(stores.users, user.id, new Date());
    await setPassword(deps(), user.id, 'new-password', kept.session.id);
    const stored = await stores.users.findUserByEmail('reset@example.com');
    expect(await passwords.verify('new-password', stored!.passwordHash)).toBe(true);
    expect(await resumeSession(stores.users, kept.token, new Date())).toBeDefined();
    expect(await resumeSession(stores.users, other.token, new Date())).toBeUndefined();
    expect(await findUserByEmailOrThrow(stores.users, 'reset@example.com')).not.toHaveProperty('passwordHash');
  });

  it('changes a name, time zone and theme, refusing an unknown zone or theme and an empty name', async () => {
    const user = await createUser(deps(), { email: 'ada@example.com', role: 'member', password: 'analytical' });
    expect(
      await updateProfile(stores.users, user.id, { name: ' Ada L. ', timeZone: 'Europe/London', theme: 'dark' }),
    ).toMatchObject({
      name: 'Ada L.',
      timeZone: 'Europe/London',
      theme: 'dark',
    });
    expect((await updateProfile(stores.users, user.id, { name: 'Ada', timeZone: '', theme: 'system' })).timeZone).toBeNull();
    await expect(updateProfile(stores.users, user.id, { name: 'Ada', timeZone: 'Mars/Olympus', theme: 'light' })).rejects.toThrow(
      /"Mars\/Olympus" is not a time zone/,
    );
    await expect(updateProfile(stores.users, user.id, { name: 'Ada', timeZone: '', theme: 'neon' })).rejects.toThrow(
      /unknown theme "neon"/,
    );
    await expect(updateProfile(stores.users, user.id, { name: '  ', timeZone: '', theme: 'light' })).rejects.toThrow(
      /the name is empty/,
    );
    expect(await stores.users.findUser(user.id)).toMatchObject({ name: 'Ada', timeZone: null, theme: 'system' });
    expect(timeZones()).toContain('Europe/Berlin');
    expect(timeZones()[0]).toBe('UTC');
  });

  it('changes a password only given the current one, ending every other session', async () => {
    const user = await createUser(deps(), { email: 'lin@example.com', role: 'member', password: 'first-password' });
    const mine = await startSession(stores.users, user.id, new Date(), { userAgent: null, address: null });
    const other = await startSession(stores.users, user.id, new Date(), { userAgent: null, address: null });
    await expect(
      changePassword(deps(), user.id, { current: 'wrong-one', password: 'second-password' }, mine.session.id),
    ).rejects.toThrow(/the current password is not right/);
    expect(await resumeSession(stores.users, other.token, new Date())).toBeDefined();
    await changePassword(deps(), user.id, { current: 'first-password', password: 'second-password' }, mine.session.id);
    const stored = await stores.users.findUserByEmail('lin@example.com');
    expect(await passwords.verify('second-password', stored!.passwordHash)).toBe(true);
    expect(await resumeSession(stores.users, other.token, new Date())).toBeUndefined();
    expect(await resumeSession(stores.users, mine.token, new Date())).toBeDefined();
  });
});
