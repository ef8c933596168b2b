// The UserStore contract (people, sessions, one-time codes, invitations): every adapter must pass these
// tests, run against the real database. The database may hold other suites' rows, so users get
// unique emails and counts are compared before and after.
import { beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../core/errors.ts';
import type { UserStore } from '../../core/ports/user-store.ts';
import { unique } from './metadata-fixtures.ts';

export function describeUserStoreContract(name: string, open: () => Promise<UserStore>): void {
  describe(`UserStore contract: ${name}`, () => {
    let store: UserStore;
    beforeAll(async () => {
      store = await open();
      // An owner besides the ones the tests make, demote and delete: the store never lets the only one go.
      await newUser('owner');
    });
    const t0 = new Date('2026-03-01T12:00:00.000Z');
    const later = (ms: number) => new Date(t0.getTime() + ms);
    const newUser = (role: 'owner' | 'admin' | 'member' = 'member') =>
      store.createUser({ email: `u-${unique()}@example.com`, name: 'U', role, passwordHash: '$scrypt$x' });

    it('creates, finds (email in any case), lists, counts, updates and deletes users', async () => {
      const before = await store.countUsers();
      const email = `Mixed.${unique()}@Example.com`;
      const user = await store.createUser({ email, name: 'Ada', role: 'admin', passwordHash: '$scrypt$hash' });
      expect(user).toMatchObject({ email, name: 'Ada', role: 'admin', timeZone: null, theme: 'system' });
      expect(user.createdAt).toBeInstanceOf(Date);
      expect(user).not.toHaveProperty('passwordHash');
      expect(await store.countUsers()).toBe(before + 1);
      expect(await store.findUserByEmail(email.toUpperCase())).toEqual({
        ...user,
        passwordHash: '$scrypt$hash',
        emailSelfChosen: false,
      });
      expect(await store.findUser(user.id)).toEqual(user);
      expect((await store.listUsers()).map((u) => u.id)).toContain(user.id);
      await expect(
        store.createUser({ email: email.toLowerCase(), name: 'Other', role: 'member', passwordHash: null }),
      ).rejects.toBeInstanceOf(ConflictError);

      expect(await store.setRole(user.id, 'owner')).toMatchObject({ id: user.id, role: 'owner' });
      const changed = await store.updateUser(user.id, { name: 'Ada L.', timeZone: 'Europe/London', theme: 'dark' });
      expect(changed).toMatchObject({ name: 'Ada L.', role: 'owner', timeZone: 'Europe/London', theme: 'dark' });
      expect(await store.updateUser(user.id, {})).toEqual(changed);
      expect(await store.updateUser(user.id, { timeZone: null })).toMatchObject({ timeZone: null, theme: 'dark' });
      await store.setPasswordHash(user.id, '$scrypt$new');
      expect((await store.findUserByEmail(email))?.passwordHash).toBe('$scrypt$new');

      expect(await store.setRole(user.id, 'admin')).toMatchObject({ role: 'admin' });
      expect(await store.deleteUser(user.id)).toBe('deleted');
      expect(await store.deleteUser(user.id)).toBe('missing');
      expect(await store.setRole(user.id, 'admin')).toBeUndefined();
      expect(await store.findUser(user.id)).toBeUndefined();
      expect(await store.findUserByEmail(email)).toBeUndefined();
      expect(await store.updateUser(user.id, { name: 'Gone' })).toBeUndefined();
      expect(await store.countUsers()).toBe(before);
    });

    it("keeps sessions by token hash, touches them forward only, and ends only the user's own", async () => {
      const user = await newUser();
      const other = await newUser();
      const hash = `s-${unique()}`;
      const session = await store.createSession({
        userId: user.id,
        tokenHash: hash,
        createdAt: t0,
        userAgent: 'UA',
        address: '::1',
      });
      expect(session).toEqual({
        id: session.id,
        userId: user.id,
        createdAt: t0,
        lastSeenAt: t0,
        userAgent: 'UA',
        address: '::1',
      });
      expect(await store.findSession(hash)).toEqual(session);
      expect(await store.findSession(`s-${unique()}`)).toBeUndefined();
      await store.touchSession(session.id, later(5000));
      await store.touchSession(session.id, later(1000));
      expect((await store.findSession(hash))?.lastSeenAt).toEqual(later(5000));

      const second = await store.createSession({
        userId: user.id,
        tokenHash: `s-${unique()}`,
        createdAt: later(1),
        userAgent: null,
        address: null,
      });
      const third = await store.createSession({
        userId: user.id,
        tokenHash: `s-${unique()}`,
        createdAt: later(2),
        userAgent: null,
        address: null,
      });
      const theirs = await store.createSession({
        userId: other.id,
        tokenHash: `s-${unique()}`,
        createdAt: t0,
        userAgent: null,
        address: null,
      });
      expect((await store.listSessions(user.id)).map((s) => s.id)).toEqual([session.id, second.id, third.id]);
      expect(await store.deleteSession(user.id, theirs.id)).toBe(false);
      expect(await store.deleteSession(user.id, second.id)).toBe(true);
      expect(await store.deleteSessions(user.id, third.id)).toBe(1);
      expect((await store.listSessions(user.id)).map((s) => s.id)).toEqual([third.id]);
      expect(await store.deleteSessions(user.id)).toBe(1);
      expect((await store.listSessions(other.id)).map((s) => s.id)).toEqual([theirs.id]);
      await store.deleteUser(other.id);
      expect(await store.listSessions(other.id)).toEqual([]);
    });

    it('deletes expired sessions and codes, whoever they belong to, and keeps the live ones', async () => {
      const user = await newUser();
      const other = await newUser();
      const days = (n: number) => new Date(t0.getTime() - n * 86_400_000);
      const session = (userId: number, createdAt: Date) =>
        store.createSession({ userId, tokenHash: `s-${unique()}`, createdAt, userAgent: 'UA', address: '::1' });
      await session(user.id, days(30)); // idle since
      const old = await session(other.id, days(40)); // in use, but started long ago
      await store.touchSession(old.id, days(1));
      const live = await session(user.id, days(10));
      expect(await store.deleteExpiredSessions(days(20), days(35))).toBeGreaterThanOrEqual(2);
      expect((await store.listSessions(user.id)).map((s) => s.id)).toEqual([live.id]);
      expect(await store.listSessions(other.id)).toEqual([]);

      const expired = `c-${unique()}`;
      const current = `c-${unique()}`;
      await store.replaceCode({ purpose: 'reset', userId: user.id, createdAt: days(2), expiresAt: days(1), codeHash: expired });
      await store.replaceCode({ purpose: 'reset', userId: other.id, createdAt: t0, expiresAt: later(60_000), codeHash: current });
      expect(await store.deleteExpiredCodes(t0)).toBeGreaterThanOrEqual(1);
      expect(await store.findCode('reset', expired, days(3))).toBeUndefined();
      expect(await store.findCode('reset', current, t0)).toBeDefined();
    });

    it('keeps one-time codes by hash: live until expiry, taken once, replaced per purpose and user', async () => {
      const user = await newUser();
      const other = await newUser();
      const reset = { purpose: 'reset' as const, userId: user.id, createdAt: t0, expiresAt: later(60_000) };
      const first = `c-${unique()}`;
      await store.replaceCode({ ...reset, codeHash: first });
      expect(await store.findCode('reset', first, later(59_999))).toEqual(reset);
      expect(await store.findCode('reset', first, later(60_000))).toBeUndefined();
      expect(await store.findCode('setup', first, t0)).toBeUndefined();
      const theirs = `c-${unique()}`;
      await store.replaceCode({ ...reset, userId: other.id, codeHash: theirs });
      const second = `c-${unique()}`;
      await store.replaceCode({ ...reset, codeHash: second });
      expect(await store.findCode('reset', first, t0)).toBeUndefined();
      expect(await store.takeCode('reset', second, later(60_000))).toBeUndefined();
      const taken = await Promise.all([store.takeCode('reset', second, t0), store.takeCode('reset', second, t0)]);
      expect(taken.filter(Boolean)).toEqual([reset]);
      expect(await store.findCode('reset', theirs, t0)).toMatchObject({ userId: other.id });
      // A new password ends the person's reset links (before, a link given out earlier still set one).
      const third = `c-${unique()}`;
      await store.replaceCode({ ...reset, codeHash: third });
      await store.setPasswordHash(user.id, '$scrypt$changed');
      expect(await store.findCode('reset', third, t0)).toBeUndefined();
      expect(await store.findCode('reset', theirs, t0)).toMatchObject({ userId: other.id });
      await store.deleteUser(other.id);
      expect(await store.findCode('reset', theirs, t0)).toBeUndefined();
    });

    it('keeps the setup code until used or until a user is created', async () => {
      const setup = { purpose: 'setup' as const, userId: null, createdAt: t0, expiresAt: null };
      const first = `c-${unique()}`;
      await store.replaceCode({ ...setup, codeHash: first });
      expect(await store.findCode('setup', first, later(10 ** 12))).toEqual(setup);
      const second = `c-${unique()}`;
      await store.replaceCode({ ...setup, codeHash: second });
      expect(await store.findCode('setup', first, t0)).toBeUndefined();
      await newUser('owner');
      expect(await store.findCode('setup', second, t0)).toBeUndefined();
    });

    it('links a single sign-on identity to one person, and a person to one subject per issuer', async () => {
      const [ada, bob] = [await newUser(), await newUser()];
      const issuer = `https://id-${unique()}.example.com`;
      expect(await store.findUserByIdentity(issuer, 'sub-ada')).toBeUndefined();
      expect(await store.linkIdentity(ada.id, issuer, 'sub-ada')).toBe(true);
      expect(await store.linkIdentity(ada.id, issuer, 'sub-ada')).toBe(true);
      expect(await store.findUserByIdentity(issuer, 'sub-ada')).toEqual(ada);
      expect(await store.identitySubject(ada.id, issuer)).toBe('sub-ada');
      // The identity is Ada's: Bob cannot have it; Ada cannot take a second subject at this issuer.
      expect(await store.linkIdentity(bob.id, issuer, 'sub-ada')).toBe(false);
      expect(await store.linkIdentity(ada.id, issuer, 'sub-other')).toBe(false);
      expect(await store.findUserByIdentity(issuer, 'sub-other')).toBeUndefined();
      // Another issuer is another namespace of subjects.
      expect(await store.linkIdentity(bob.id, `${issuer}/other`, 'sub-ada')).toBe(true);
      expect(await store.identitySubject(bob.id, issuer)).toBeUndefined();
      // Deleting a person frees their identity.
      await store.deleteUser(ada.id);
      expect(await store.findUserByIdentity(issuer, 'sub-ada')).toBeUndefined();
      expect(await store.linkIdentity(bob.id, issuer, 'sub-ada')).toBe(true);
    });

    it('tells when each person was last seen, from their sessions', async () => {
      const user = await newUser();
      const idle = await newUser();
      for (const [at, suffix] of [
        [t0, 'a'],
        [later(9000), 'b'],
      ] as const) {
        await store.createSession({
          userId: user.id,
          tokenHash: `s-${unique()}-${suffix}`,
          createdAt: at,
          userAgent: null,
          address: null,
        });
      }
      const seen = await store.lastSeenByUser();
      expect(seen.get(user.id)).toEqual(later(9000));
      expect(seen.has(idle.id)).toBe(false);
    });

    it('keeps invitations by hash until expiry, revoked by id, accepted once into a person with their role', async () => {
      const owner = await newUser('owner');
      const invitation = { role: 'admin' as const, email: null, invitedBy: owner.id, createdAt: t0, expiresAt: later(60_000) };
      const code = `i-${unique()}`;
      const created = await store.createInvitation({ ...invitation, codeHash: code });
      expect(created).toEqual({ ...invitation, id: created.id });
      expect(await store.findInvitation(code, later(59_999))).toEqual(created);
      expect(await store.findInvitation(code, later(60_000))).toBeUndefined();
      expect((await store.listInvitations(t0)).map((i) => i.id)).toContain(created.id);
      expect((await store.listInvitations(later(60_000))).map((i) => i.id)).not.toContain(created.id);

      // An email already taken: refused, and the invitation still works.
      const taken = await newUser();
      await expect(
        store.acceptInvitation(code, t0, { email: taken.email.toUpperCase(), name: 'N', passwordHash: '$scrypt$x' }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await store.findInvitation(code, t0)).toEqual(created);
      expect(
        await store.acceptInvitation(code, later(60_000), {
          email: `late-${unique()}@example.com`,
          name: 'N',
          passwordHash: 'h',
        }),
      ).toBeUndefined();

      const email = `new-${unique()}@example.com`;
      const accepted = await Promise.all([
        store.acceptInvitation(code, t0, { email, name: 'New', passwordHash: '$scrypt$new' }),
        store.acceptInvitation(code, t0, { email: `other-${unique()}@example.com`, name: 'Other', passwordHash: 'h' }),
      ]);
      const made = accepted.filter(Boolean);
      expect(made).toHaveLength(1);
      expect(made[0]).toMatchObject({ name: made[0]!.email === email ? 'New' : 'Other', role: 'admin' });
      // The invitation named no email: the one typed is marked as nobody's vouching.
      expect((await store.findUserByEmail(made[0]!.email))!.emailSelfChosen).toBe(true);
      const named = `named-${unique()}@example.com`;
      const namedCode = `i-${unique()}`;
      await store.createInvitation({ ...invitation, email: named, codeHash: namedCode });
      await store.acceptInvitation(namedCode, t0, { email: named, name: 'Named', passwordHash: 'h' });
      expect((await store.findUserByEmail(named))!.emailSelfChosen).toBe(false);
      expect(await store.findInvitation(code, t0)).toBeUndefined();

      const revoked = await store.createInvitation({ ...invitation, role: 'member', codeHash: `i-${unique()}` });
      expect(await store.deleteInvitation(revoked.id)).toBe(true);
      expect(await store.deleteInvitation(revoked.id)).toBe(false);
      // An invitation ends with the owner who made it.
      const orphanCode = `i-${unique()}`;
      await store.createInvitation({ ...invitation, codeHash: orphanCode });
      expect(await store.deleteUser(owner.id)).toBe('deleted');
      expect(await store.findInvitation(orphanCode, t0)).toBeUndefined();
    });

    it("ends a demoted owner's invitations, which would make them a new owner account, and no one else's", async () => {
      const [demoted, other] = [await newUser('owner'), await newUser('owner')];
      const invitation = { role: 'owner' as const, email: null, createdAt: t0, expiresAt: later(60_000) };
      const [theirs, kept] = [`i-${unique()}`, `i-${unique()}`];
      await store.createInvitation({ ...invitation, invitedBy: demoted.id, codeHash: theirs });
      await store.createInvitation({ ...invitation, invitedBy: other.id, codeHash: kept });
      expect(await store.setRole(demoted.id, 'owner')).toMatchObject({ role: 'owner' });
      expect(await store.findInvitation(theirs, t0)).toBeDefined();
      expect(await store.setRole(demoted.id, 'member')).toMatchObject({ role: 'member' });
      expect(await store.findInvitation(theirs, t0)).toBeUndefined();
      expect(await store.findInvitation(kept, t0)).toBeDefined();
    });

    it('never leaves no owner, even when two owners demote or remove each other at once', async () => {
      const [ada, bob] = [await newUser('owner'), await newUser('owner')];
      for (const other of await store.listUsers()) {
        if (other.role === 'owner' && other.id !== ada.id && other.id !== bob.id) await store.setRole(other.id, 'admin');
      }
      // On a server with a pool, the two transactions run at once: one waits for the other's locks.
      const demotions = await Promise.all([store.setRole(ada.id, 'member'), store.setRole(bob.id, 'member')]);
      expect(demotions.filter((outcome) => outcome === 'only-owner')).toHaveLength(1);
      const [owner] = (await store.listUsers()).filter((user) => user.role === 'owner');
      expect([ada.id, bob.id]).toContain(owner!.id);
      expect(await store.deleteUser(owner!.id)).toBe('only-owner');
      expect(await store.setRole(owner!.id, 'owner')).toMatchObject({ role: 'owner' });

      const carl = await newUser();
      expect(await store.setRole(carl.id, 'owner')).toMatchObject({ role: 'owner' });
      const removals = await Promise.all([store.deleteUser(owner!.id), store.deleteUser(carl.id)]);
      expect(removals.sort()).toEqual(['deleted', 'only-owner']);
      expect((await store.listUsers()).filter((user) => user.role === 'owner')).toHaveLength(1);
    });
  });
}
