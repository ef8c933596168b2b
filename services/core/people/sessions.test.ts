import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { hashSecret } from '../auth/secrets.ts';
import type { UserStore } from '../ports/user-store.ts';
import {
  endAllSessions,
  endSession,
  listOwnSessions,
  mintSessionToken,
  resumeSession,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  sessionExpiresAt,
  startSession,
} from './sessions.ts';

let stores: EmbeddedStores;
let users: UserStore;
beforeAll(async () => {
  stores = await openEmbeddedStores();
  users = stores.users;
});
afterAll(() => stores.close());

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const HOUR = 60 * 60 * 1000;
let n = 0;
const newUser = () => users.createUser({ email: `s${++n}@example.com`, name: 'S', role: 'member', passwordHash: null });

describe('sessions', () => {
  it('mints 32 random bytes as base64url and stores only their hash', async () => {
    expect(mintSessionToken()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const user = await newUser();
    const { token, session } = await startSession(users, user.id, t0, { userAgent: 'Firefox', address: '10.0.0.1' });
    const rows = await stores.client.query<{ token_hash: string }>('SELECT token_hash FROM user_sessions WHERE id = $1', [
      session.id,
    ]);
    expect(rows.rows[0]!.token_hash).toBe(hashSecret(token));
    expect(JSON.stringify(rows.rows)).not.toContain(token);
    expect(session).toMatchObject({ userId: user.id, userAgent: 'Firefox', address: '10.0.0.1' });
    expect(await resumeSession(users, 'not-a-token', t0)).toBeUndefined();
  });

  it('stays alive while used and ends after the idle time', async () => {
    const user = await newUser();
    const { token } = await startSession(users, user.id, t0);
    const resumed = await resumeSession(users, token, at(SESSION_IDLE_MS - HOUR));
    expect(resumed?.user.id).toBe(user.id);
    expect(resumed?.session.lastSeenAt).toEqual(at(SESSION_IDLE_MS - HOUR));
    // Touched: the idle clock restarted.
    expect(await resumeSession(users, token, at(SESSION_IDLE_MS + HOUR))).toBeDefined();
    expect(await resumeSession(users, token, at(2 * SESSION_IDLE_MS + 2 * HOUR))).toBeUndefined();
    expect(await users.listSessions(user.id)).toEqual([]);
  });

  it('ends at the absolute limit however active', async () => {
    const user = await newUser();
    const { token } = await startSession(users, user.id, t0);
    for (let day = 1; day < 30; day += 5) expect(await resumeSession(users, token, at(day * 24 * HOUR))).toBeDefined();
    expect(await resumeSession(users, token, at(SESSION_ABSOLUTE_MS - HOUR))).toBeDefined();
    expect(await resumeSession(users, token, at(SESSION_ABSOLUTE_MS))).toBeUndefined();
    expect(sessionExpiresAt({ createdAt: t0, lastSeenAt: at(SESSION_ABSOLUTE_MS - HOUR) })).toEqual(at(SESSION_ABSOLUTE_MS));
  });

  it("lists a user's live sessions, ends one, and ends all but the current", async () => {
    const user = await newUser();
    const other = await newUser();
    const a = await startSession(users, user.id, t0);
    const b = await startSession(users, user.id, at(HOUR));
    const c = await startSession(users, user.id, at(2 * HOUR));
    const stale = await startSession(users, user.id, at(-SESSION_IDLE_MS));
    const theirs = await startSession(users, other.id, t0);
    const listed = await listOwnSessions(users, user.id, at(3 * HOUR));
    expect(listed.map((s) => s.id)).toEqual([a.session.id, b.session.id, c.session.id]);
    expect(listed[0]!.expiresAt).toEqual(at(SESSION_IDLE_MS));
    expect(await resumeSession(users, stale.token, at(3 * HOUR))).toBeUndefined();
    // Another user's session is not ours to end.
    expect(await endSession(users, user.id, theirs.session.id)).toBe(false);
    expect(await endSession(users, user.id, a.session.id)).toBe(true);
    expect(await resumeSession(users, a.token, at(3 * HOUR))).toBeUndefined();
    expect(await endAllSessions(users, user.id, c.session.id)).toBe(1);
    expect((await listOwnSessions(users, user.id, at(3 * HOUR))).map((s) => s.id)).toEqual([c.session.id]);
    expect(await endAllSessions(users, user.id)).toBe(1);
    expect(await resumeSession(users, theirs.token, at(3 * HOUR))).toBeDefined();
  });
});
