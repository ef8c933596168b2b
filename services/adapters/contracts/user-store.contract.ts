// The UserStore contract (people, sessions, one-time codes): every adapter must pass these
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
      expect(await store.findUserByEmail(email.toUpperCase())).toEqual({ ...user, passwordHash: '$scrypt$hash' });
      expect(await store.findUser(user.id)).toEqual(user);
      expect((await store.listUsers()).map((u) => u.id)).toContain(user.id);
      await expect(
        store.createUser({ email: email.toLowerCase(), name: 'Other', role: 'member', passwordHash: null }),
      ).rejects.toBeInstanceOf(ConflictError);

      const changed = await store.updateUser(user.id, {
        name: 'Ada L.',
        role: 'owner',
        timeZone: 'Europe/London',
        theme: 'dark',
      });
      expect(changed).toMatchObject({ name: 'Ada L.', role: 'owner', timeZone: 'Europe/London', theme: 'dark' });
      expect(await store.updateUser(user.id, {})).toEqual(changed);
      expect(await store.updateUser(user.id, { timeZone: null })).toMatchObject({ timeZone: null, theme: 'dark' });
      await store.setPasswordHash(user.id, '$scrypt$new');
      expect((await store.findUserByEmail(email))?.passwordHash).toBe('$scrypt$new');

      expect(await store.deleteUser(user.id)).toBe(true);
      expect(await store.deleteUser(user.id)).toBe(false);
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
  });
}
